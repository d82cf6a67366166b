/**
 * `StreamPipeline`: the L3 construct that deploys one Flambda job graph on AWS.
 *
 * ```
 *  source stream ─► ESM ─► stage-0 fn ─► exchange stream ─► ESM ─► stage-1 fn ─► … ─► sink
 *  (shards = source      (reads its    (shards = next        │            (DynamoDB table,
 *   parallelism)          input only)   stage's parallelism)  │             Kinesis stream, log)
 *                                                             ▼
 *                 state table (pk, sk, TTL `ttl`, PITR) ◄── every stage; DLQ ◄── every stage + ESM
 *  EventBridge (every minute) ─► heartbeat fn ─► one record per source shard (idle shards advance)
 *  EventBridge (every minute) ─► producer fn per generator source (VALUES, datagen) ─► its source stream
 * ```
 *
 * One stream per exchange, one function per stage, one event source mapping per function with
 * parallelization factor 1 (a shard's records must be processed in order by one invocation at
 * a time: state and checkpoints are per shard) and partial batch responses (the handler reports
 * the first failing record; Lambda re-delivers from there).
 *
 * A generator source gets a producer function (functions/generator-producer.ts) that puts its
 * rows into its source stream, effectively once: a bounded one (VALUES, datagen with
 * `number-of-rows`) in its first invocations, then ends it with a +∞ watermark; an unbounded
 * datagen table at its `rows-per-second`, the rows that came due at every scheduled invocation.
 */
import { existsSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { Annotations, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as kinesis from 'aws-cdk-lib/aws-kinesis';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { KinesisEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import type { UserFunctionDefinition } from '../../shared/api/user-functions.ts';
import { writeSqlPipelineModule } from './sql-pipeline-module.ts';
import { HEARTBEAT_ENV, PRODUCER_ENV, STAGE_ENV } from '../../shared/aws/env.ts';
import { ATTR, DEFAULT_TTL_ATTRIBUTE } from '../../shared/aws/state/constants.ts';
import type { LookupSourceDescriptor } from '../../shared/plan/logical.ts';
import type { JobGraph, JobSink, JobSource, JobStage } from '../../shared/plan/job-graph.ts';
import { serializeJobGraph } from '../../shared/plan/job-graph.ts';
import { PipelineDashboard } from './pipeline-dashboard.ts';
import type { PipelineAlarmProps } from './pipeline-dashboard.ts';
import {
  baseBundling,
  DEPS_LOCK_FILE,
  GENERATOR_PRODUCER_ENTRY,
  HEARTBEAT_ENTRY,
  JOB_GRAPH_FILE,
  LOOKUP_FILES_DIR,
  PIPELINE_MODULE_FILE,
  PROJECT_ROOT,
  STAGE_HANDLER_ENTRY,
  stageBundling,
} from './stage-bundling.ts';
import type { BundledFile } from './stage-bundling.ts';
import { checkDurationSeconds, checkIntegerRange, StreamPipelineValidationError } from './validation.ts';

/**
 * Environment variable of a stage function that reads lookup tables: a JSON object, lookup
 * table name → Secrets Manager secret ARN. The ARN, never the value: the function reads the
 * secret at cold start with its own (granted) permission.
 */
export const LOOKUP_SECRETS_ENV = STAGE_ENV.lookupSecrets;

/**
 * The most shards a stage (and so a stream) may have here: a guard against typos, not an AWS
 * limit. Kinesis has no per-stream shard limit; its shard quota is per account and region,
 * shared by every provisioned stream (by default 20,000 in us-east-1, us-west-2 and eu-west-1,
 * 1,000 or 6,000 elsewhere — Kinesis Data Streams "Quotas and limits"), so a pipeline whose
 * stages need more raises this bound and, first, the account's quota.
 */
export const MAX_SHARDS = 500;

/** Anything with the TypeScript API's `jobGraph(options)`: a `Pipeline`. */
export interface JobGraphSource {
  jobGraph(options?: { readonly parallelism?: number; readonly keyGroups?: number }): JobGraph;
}

/** How a sink is written on AWS; overrides the connector of the job graph's sink. */
export type AwsSinkConnector = 'dynamodb' | 'kinesis' | 'print' | 'blackhole';

/** Per-stage settings; each falls back to the pipeline-wide prop of the same name. */
export interface StageSettings {
  /** Lambda memory, MB, 128..10240. @default - the pipeline's `memorySize` */
  readonly memorySize?: number;
  /** Lambda timeout, 1..900 s. @default - the pipeline's `timeout` */
  readonly timeout?: Duration;
  /** Records per batch, 1..10000. @default - the pipeline's `batchSize` */
  readonly batchSize?: number;
  /** Batching window, 0..300 s. @default - the pipeline's `maxBatchingWindow` */
  readonly maxBatchingWindow?: Duration;
}

/** Props of {@link StreamPipeline}. Give exactly one of `jobGraph` and `pipeline`. */
export interface StreamPipelineProps extends PipelineAlarmProps {
  /** The job graph to deploy. @default - built from `pipeline` */
  readonly jobGraph?: JobGraph;
  /** A pipeline (TypeScript API) whose job graph is built with `parallelism`. @default - `jobGraph` is used */
  readonly pipeline?: JobGraphSource;
  /** Shards of every stage not forced to one shard, when building from `pipeline`; 1..500. @default 1 */
  readonly parallelism?: number;
  /**
   * Path of the pipeline module (its default export's `userFunctions` are the pipeline's map and
   * window functions). Required when the job graph calls user functions; bundled next to the
   * handler.
   * @default - no module (the job graph must not reference user functions)
   */
  readonly pipelineModule?: string;
  /**
   * Existing streams to read sources from, by source name (e.g. `Stream.fromStreamArn`).
   * A source whose connector names a `streamArn` is imported by it.
   * @default - a stream is created per source, shard count = the source stage's parallelism
   */
  readonly sourceStreams?: Readonly<Record<string, kinesis.IStream>>;
  /**
   * Capacity mode of the streams created here. On demand, Kinesis chooses the shard count, so
   * the shard count no longer equals the stage parallelism; the handlers route by hash range and
   * state by key group, so results are unchanged.
   * @default kinesis.StreamMode.PROVISIONED
   */
  readonly streamMode?: kinesis.StreamMode;
  /**
   * Retention of the streams created here, 24..8760 hours. A batch that keeps failing waits for
   * its fix at most this long (the mappings retry forever by default), and the iterator-age alarm
   * must fire well before it (`iteratorAgeAlarmThreshold` at most half of it).
   * @default Duration.hours(24)
   */
  readonly streamRetention?: Duration;
  /**
   * Lambda runtime of every function: Node.js 20 or later (bundles target Node 20, the
   * development runtime). Lambda deprecated nodejs20.x on 2026-04-30; the default is the latest
   * Node.js runtime, which cdk-nag's AwsSolutions-L1 asks for.
   * @default lambda.Runtime.NODEJS_24_X
   */
  readonly runtime?: lambda.Runtime;
  /** Lambda memory of the stage functions, MB, 128..10240. @default 1024 */
  readonly memorySize?: number;
  /**
   * Lambda timeout of the stage functions, 1..900 s. The checkpoint lease is the invocation's
   * remaining time (docs/effectively-once.md), so after a hard crash a shard waits up to this
   * long before another invocation may take it over: keep it short.
   * @default Duration.seconds(60)
   */
  readonly timeout?: Duration;
  /** Records per batch, 1..10000. @default 500 */
  readonly batchSize?: number;
  /** Batching window, 0..300 s. @default Duration.seconds(1) */
  readonly maxBatchingWindow?: Duration;
  /**
   * Where the mappings of the source streams start reading. The exchange streams' mappings
   * always start at TRIM_HORIZON: an exchange stream is created with the pipeline, and every
   * record in it must be processed.
   * @default lambda.StartingPosition.TRIM_HORIZON
   */
  readonly startingPosition?: lambda.StartingPosition;
  /** The time AT_TIMESTAMP starts at; required with it and only with it. @default - none */
  readonly startingPositionTimestamp?: Date;
  /**
   * Retries of a failing batch before the mapping skips it; -1 (infinite) or 0..10000. The
   * handler dead-letters bad records itself, so only transient or configuration failures (a
   * throttled or denied call, a missing table) retry, and they should wait for the fix within
   * the stream's retention. With finite retries a skipped batch's metadata goes to the DLQ, and
   * the next invocation settles the skipped range (`SkippedRanges`, alarmed) so the shard goes on
   * — but the batch's records are not processed.
   * @default -1
   */
  readonly retryAttempts?: number;
  /**
   * Oldest record the mapping still delivers, 60 s..7 days; older ones are skipped like a batch
   * whose retries ran out. Must be below `streamRetention`, so that a skipped batch can still be
   * read back from the stream (its dead letter names where).
   * @default - no limit (-1: records are retried until the stream's retention removes them)
   */
  readonly maxRecordAge?: Duration;
  /** Per-stage overrides, by stage id (`stage-2`). @default - no overrides */
  readonly stages?: Readonly<Record<string, StageSettings>>;
  /**
   * How each sink is written on AWS, by sink name, overriding the job graph's connector (e.g.
   * write the Top-N example's `print` leaderboard to a DynamoDB table).
   * @default - the job graph's connectors
   */
  readonly sinkConnectors?: Readonly<Record<string, AwsSinkConnector>>;
  /** Shards of Kinesis sink streams created here, 1..500. @default 1 */
  readonly sinkStreamShards?: number;
  /**
   * Credentials of SQL lookup tables, by lookup table name. Each secret is granted read to the
   * stages that look the table up, and passed by ARN in `FLAMBDA_LOOKUP_SECRETS`; on AWS it
   * replaces the table's `passwordFrom` variable. (A descriptor's own `secretArn`, SQL
   * `'password' = '${secret:arn:…}'`, is granted the same way without being named here.)
   * @default - no lookup secrets
   */
  readonly lookupSecrets?: Readonly<Record<string, secretsmanager.ISecret>>;
  /**
   * Environment variables of the stage functions that read `passwordFrom` lookup sources, by
   * variable name; each is set only on the stages whose lookups name it. The value is stored in
   * the function configuration in plain text: prefer `lookupSecrets`.
   * @default - none (a `passwordFrom` table without a secret in `lookupSecrets` is refused)
   */
  readonly lookupEnvironment?: Readonly<Record<string, string>>;
  /**
   * JSON-lines files of `jsonl` lookup tables, by table name, bundled into the stages that look
   * them up (`FLAMBDA_LOOKUP_FILES`). Relative paths are taken from the working directory.
   * @default - the path in each table's source (a table without one is refused)
   */
  readonly lookupFiles?: Readonly<Record<string, string>>;
  /**
   * A VPC for the stages with JDBC lookup tables, to reach a private database. Their subnets
   * must also reach Kinesis, DynamoDB, SQS and Secrets Manager (a NAT gateway, or VPC endpoints).
   * @default - the stages run outside a VPC (public database endpoints only)
   */
  readonly vpc?: ec2.IVpc;
  /** Subnets of those stages in `vpc`. @default - the VPC's private subnets */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /** Security groups of those stages in `vpc`. @default - one created per function */
  readonly securityGroups?: readonly ec2.ISecurityGroup[];
  /**
   * The customer-managed KMS keys of streams imported by their connector (a source's
   * `streamArn`, a Kinesis sink's `streamName`), by source or sink name, so that readers get
   * kms:Decrypt and writers kms:GenerateDataKey on them. (Streams given in `sourceStreams`
   * carry their own key: `Stream.fromStreamAttributes({ streamArn, encryptionKey })`.)
   * @default - imported streams are unencrypted or use the AWS-managed key
   */
  readonly streamKeys?: Readonly<Record<string, kms.IKey>>;
  /** Removal policy of the state table, sink tables and log groups. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** Retention of the functions' log groups. @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** Whether the heartbeat schedule is created (idle source shards advance time). @default true */
  readonly heartbeat?: boolean;
  /** How often the heartbeat runs. @default events.Schedule.rate(Duration.minutes(1)) */
  readonly heartbeatSchedule?: events.Schedule;
  /**
   * Generator sources (VALUES, datagen, a TypeScript `generator`) whose stream is filled from
   * outside, by source name: they get no producer function (their generator then serves local
   * runs only). Every other generator source gets one, which needs `pipelineModule`.
   * @default - every generator source gets a producer function
   */
  readonly externalSources?: readonly string[];
  /**
   * How often the producer functions run. Each invocation puts the rows that came due since the
   * last (an unbounded datagen table at its `rows-per-second`), or finds its generator ended.
   * @default events.Schedule.rate(Duration.minutes(1))
   */
  readonly producerSchedule?: events.Schedule;
  /** Whether the CloudWatch dashboard is created. @default true */
  readonly dashboard?: boolean;
}

/** What was deployed for one stage. */
export interface DeployedStage {
  readonly stage: JobStage;
  readonly function: NodejsFunction;
  readonly input: kinesis.IStream;
  readonly eventSource: KinesisEventSource;
}

interface ResolvedSettings {
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly batchSize: number;
  readonly maxBatchingWindow: Duration;
}

const DEFAULTS = {
  parallelism: 1,
  memorySize: 1024,
  timeout: Duration.seconds(60),
  batchSize: 500,
  maxBatchingWindow: Duration.seconds(1),
  retryAttempts: -1,
  streamRetention: Duration.hours(24),
  iteratorAgeAlarmThreshold: Duration.minutes(1),
  sinkStreamShards: 1,
  removalPolicy: RemovalPolicy.RETAIN,
  logRetention: logs.RetentionDays.ONE_MONTH,
} as const;

/** A lookup table a stage reads, and where its rows come from. */
interface StageLookup {
  readonly table: string;
  readonly source: LookupSourceDescriptor;
}

/** Lookup tables read by a stage: operators of type `LookupJoin` name their table and source in `spec`. */
function lookupsOf(stage: JobStage): StageLookup[] {
  const lookups: StageLookup[] = [];
  for (const op of stage.operators as readonly { readonly type: string; readonly spec: unknown }[]) {
    const spec = op.spec as { table?: unknown; source?: LookupSourceDescriptor } | undefined;
    if (op.type === 'LookupJoin' && typeof spec?.table === 'string' && spec.source !== undefined) lookups.push({ table: spec.table, source: spec.source });
  }
  return lookups;
}

/** The lookup table names of a stage. */
function lookupTablesOf(stage: JobStage): string[] {
  return lookupsOf(stage).map((l) => l.table);
}

/** Whether a stage looks anything up in a JDBC database. */
function hasJdbcLookup(stage: JobStage): boolean {
  return lookupsOf(stage).some((l) => l.source.type === 'jdbc');
}

/** Path of a lookup table's JSON-lines file inside a stage bundle (table names are SQL identifiers). */
function bundledLookupFile(table: string): string {
  return `${LOOKUP_FILES_DIR}/${table.replace(/[^A-Za-z0-9_.-]/g, '_')}.jsonl`;
}

/** A Secrets Manager ARN ends in `-` and six random characters when it is complete. */
function isCompleteSecretArn(arn: string): boolean {
  return /^arn:[^:]+:secretsmanager:[^:]*:[^:]*:secret:.+-[A-Za-z0-9]{6}$/.test(arn);
}

/** Operators that call a user function of the pipeline module (their spec names a `ref`). */
function userFunctionOperators(graph: JobGraph): string[] {
  return graph.stages.flatMap((s) => s.operators.filter((op) => typeof (op.spec as { ref?: unknown }).ref === 'string').map((op) => op.id));
}

/**
 * Deploys a job graph: streams, one function per stage, event source mappings, state table,
 * dead-letter queue, heartbeat, sinks, dashboard and alarms. Permissions are grants only, each
 * function getting its own input, output, sink, the state table and the DLQ.
 */
export class StreamPipeline extends Construct {
  /**
   * A pipeline written in Flink SQL: the script is compiled at synth time (shared/sql/, never in
   * a function bundle) into the same job graph a TypeScript pipeline gives.
   *
   * A script with `CREATE FUNCTION f AS 'module.ts#export'` takes the loaded functions
   * (`functions`, e.g. from `sqlUserFunctions(path)` of shared/cli/load-pipeline.ts) and the
   * directory the modules are relative to (`scriptDir`); the stage functions then get a
   * generated pipeline module (infra/lib/sql-pipeline-module.ts) that bundles those modules.
   *
   * @throws SqlError (a PlanError naming line and column) for a script that does not compile.
   */
  static fromSql(
    scope: Construct,
    id: string,
    sql: string,
    props: Omit<StreamPipelineProps, 'jobGraph' | 'pipeline'> & {
      readonly name?: string;
      /** The user functions of the script's CREATE FUNCTION statements, by 'module.ts#export'. */
      readonly functions?: ReadonlyMap<string, UserFunctionDefinition>;
      /** The directory the function modules are relative to. @default process.cwd() */
      readonly scriptDir?: string;
    } = {},
  ): StreamPipeline {
    const { name, functions, scriptDir, ...rest } = props;
    const pipelineName = name ?? id.toLowerCase().replace(/[^a-z0-9_-]/g, '-');
    const program = compileSql(sql, { name: pipelineName, ...(functions ? { functions } : {}) });
    const pipelineModule = rest.pipelineModule ?? writeSqlPipelineModule(sql, pipelineName, scriptDir ?? process.cwd(), program.pipeline.generators.size > 0);
    return new StreamPipeline(scope, id, { ...rest, pipeline: program.pipeline, ...(pipelineModule !== undefined ? { pipelineModule } : {}) });
  }

  /** The deployed job graph (after sink connector overrides). */
  readonly jobGraph: JobGraph;
  /** The state table of every stage (partition key `pk`, sort key `sk`). */
  readonly stateTable: dynamodb.Table;
  /** Dead letters of the handlers and failed-batch records of the event source mappings. */
  readonly deadLetterQueue: sqs.Queue;
  /** Source streams by source name (created or imported). */
  readonly sourceStreams: ReadonlyMap<string, kinesis.IStream>;
  /** Exchange streams by the id of the stage they feed. */
  readonly exchangeStreams: ReadonlyMap<string, kinesis.Stream>;
  /** Stage functions and their inputs, by stage id. */
  readonly stages: ReadonlyMap<string, DeployedStage>;
  /** DynamoDB sink tables by sink name. */
  readonly sinkTables: ReadonlyMap<string, dynamodb.ITable>;
  /** Kinesis sink streams by sink name. */
  readonly sinkStreams: ReadonlyMap<string, kinesis.IStream>;
  /** The heartbeat function, unless `heartbeat` is false. */
  readonly heartbeatFunction: NodejsFunction | undefined;
  /** The producer function of every generator source not in `externalSources`, by source name. */
  readonly producers: ReadonlyMap<string, NodejsFunction>;
  /** The dashboard and alarms. */
  readonly monitoring: PipelineDashboard;
  /** The Lambda runtime of every function. */
  readonly runtime: lambda.Runtime;
  /** Secrets read by lookups (named in `lookupSecrets` or by a descriptor's `secretArn`), by ARN. */
  private readonly lookupSecretsByArn = new Map<string, secretsmanager.ISecret>();
  /** DynamoDB lookup tables, by table name (imported with every index a lookup queries). */
  private readonly lookupTables = new Map<string, dynamodb.ITable>();

  constructor(scope: Construct, id: string, props: StreamPipelineProps) {
    super(scope, id);
    this.jobGraph = applySinkConnectors(resolveJobGraph(props), props.sinkConnectors);
    const graph = this.jobGraph;
    validate(graph, props);
    this.runtime = props.runtime ?? lambda.Runtime.NODEJS_24_X;

    const removalPolicy = props.removalPolicy ?? DEFAULTS.removalPolicy;
    const streamMode = props.streamMode ?? kinesis.StreamMode.PROVISIONED;
    const retentionPeriod = props.streamRetention ?? DEFAULTS.streamRetention;
    const newStream = (streamId: string, shardCount: number): kinesis.Stream =>
      new kinesis.Stream(this, streamId, {
        streamMode,
        ...(streamMode === kinesis.StreamMode.PROVISIONED ? { shardCount } : {}),
        retentionPeriod,
        // AWS-managed key (aws/kinesis): encryption at rest without a CMK's monthly cost.
        encryption: kinesis.StreamEncryption.MANAGED,
        // Like the tables: a destroyed example leaves no stream billing shard-hours behind.
        removalPolicy,
      });

    this.stateTable = new dynamodb.Table(this, 'StateTable', {
      partitionKey: { name: ATTR.pk, type: dynamodb.AttributeType.STRING },
      sortKey: { name: ATTR.sk, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: DEFAULT_TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy,
    });

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      // SSE-SQS: encrypted at rest with no KMS grants needed by the event source mappings.
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // The longest SQS allows: dead letters are for humans and replays.
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is the dead-letter queue of the pipeline; a DLQ of the DLQ would only move the same messages again.',
    });

    // Sources: imported (prop or connector ARN) or created with one shard per source shard.
    const sources = new Map<string, kinesis.IStream>();
    for (const source of graph.sources) {
      const given = props.sourceStreams?.[source.name];
      const arn = source.connector.type === 'kinesis' ? source.connector.streamArn : undefined;
      sources.set(
        source.name,
        given ?? (arn !== undefined ? this.importStream(`Source-${source.name}`, arn, props.streamKeys?.[source.name]) : newStream(`Source-${source.name}`, source.parallelism)),
      );
    }
    this.sourceStreams = sources;

    // One exchange stream per stage fed by other stages; shard count = the reader's parallelism.
    // A two-input stage (a join) has one stream too: both its producers write into it.
    const exchanges = new Map<string, kinesis.Stream>();
    for (const stage of graph.stages) {
      if (stage.input.type !== 'source') exchanges.set(stage.id, newStream(`Exchange-${stage.id}`, stage.parallelism));
    }
    this.exchangeStreams = exchanges;

    const { tables, streams } = this.createSinks(graph, props, removalPolicy, newStream);
    this.sinkTables = tables;
    this.sinkStreams = streams;

    this.importLookupTables(graph);
    const graphJson = serializeJobGraph(graph, 0);
    // Relative module paths are taken from the working directory (the project root under `cdk`).
    const pipelineModule = props.pipelineModule === undefined ? undefined : resolvePath(props.pipelineModule);
    const deployed = new Map<string, DeployedStage>();
    for (const stage of graph.stages) {
      deployed.set(stage.id, this.createStage(graph, stage, props, stageBundling(graphJson, pipelineModule, lookupFilesOf(stage, props)), removalPolicy));
    }
    this.stages = deployed;

    this.heartbeatFunction = props.heartbeat === false ? undefined : this.createHeartbeat(props, removalPolicy);
    const producers = new Map<string, NodejsFunction>();
    for (const source of producedSources(graph, props)) {
      producers.set(source.name, this.createProducer(source, props, stageBundling(graphJson, pipelineModule), removalPolicy));
    }
    this.producers = producers;

    this.monitoring = new PipelineDashboard(this, 'Monitoring', {
      pipelineName: graph.name,
      stages: [...deployed.values()].map((d) => ({ id: d.stage.id, function: d.function })),
      deadLetterQueue: this.deadLetterQueue,
      dashboard: props.dashboard ?? true,
      ...(this.heartbeatFunction !== undefined ? { heartbeat: this.heartbeatFunction } : {}),
      producers: [...producers].map(([source, fn]) => ({ source, function: fn })),
      ...alarmProps(props),
    });
    if ((props.retryAttempts ?? DEFAULTS.retryAttempts) !== -1) {
      Annotations.of(this).addWarningV2(
        '@flambda/finite-retries',
        `retryAttempts ${props.retryAttempts}: a batch still failing after that many retries is skipped; its records are not processed (the SkippedRanges alarm fires and the dead-letter queue holds their position)`,
      );
    }

    this.suppressNagFindings();
  }

  private createSinks(
    graph: JobGraph,
    props: StreamPipelineProps,
    removalPolicy: RemovalPolicy,
    newStream: (id: string, shards: number) => kinesis.Stream,
  ): { tables: Map<string, dynamodb.ITable>; streams: Map<string, kinesis.IStream> } {
    const tables = new Map<string, dynamodb.ITable>();
    const streams = new Map<string, kinesis.IStream>();
    for (const sink of graph.sinks) {
      const connector = sink.connector;
      if (connector.type === 'dynamodb') {
        // Items are keyed by `pk` = the upsert key values as JSON (dynamodb-upsert-sink.ts).
        tables.set(
          sink.name,
          connector.tableName !== undefined
            ? dynamodb.Table.fromTableName(this, `Sink-${sink.name}`, connector.tableName)
            : new dynamodb.Table(this, `Sink-${sink.name}`, {
                partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
                billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
                pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
                encryption: dynamodb.TableEncryption.AWS_MANAGED,
                removalPolicy,
              }),
        );
      } else if (connector.type === 'kinesis') {
        streams.set(
          sink.name,
          connector.streamName !== undefined
            ? this.importStream(
                `Sink-${sink.name}`,
                Stack.of(this).formatArn({ service: 'kinesis', resource: 'stream', resourceName: connector.streamName }),
                props.streamKeys?.[sink.name],
              )
            : newStream(`Sink-${sink.name}`, props.sinkStreamShards ?? DEFAULTS.sinkStreamShards),
        );
      }
    }
    return { tables, streams };
  }

  /** A stream imported by ARN, with its customer-managed key when it has one (grants then include KMS). */
  private importStream(id: string, streamArn: string, encryptionKey: kms.IKey | undefined): kinesis.IStream {
    return encryptionKey === undefined ? kinesis.Stream.fromStreamArn(this, id, streamArn) : kinesis.Stream.fromStreamAttributes(this, id, { streamArn, encryptionKey });
  }

  /** Imports each DynamoDB lookup table once, with every index a lookup of the graph queries. */
  private importLookupTables(graph: JobGraph): void {
    const indexes = new Map<string, Set<string>>();
    for (const lookup of graph.stages.flatMap(lookupsOf)) {
      if (lookup.source.type !== 'dynamodb') continue;
      const names = indexes.get(lookup.source.table) ?? new Set<string>();
      if (lookup.source.indexName !== undefined) names.add(lookup.source.indexName);
      indexes.set(lookup.source.table, names);
    }
    let n = 0;
    for (const [tableName, names] of indexes) {
      this.lookupTables.set(tableName, dynamodb.Table.fromTableAttributes(this, `LookupTable${n++}`, { tableName, ...(names.size > 0 ? { globalIndexes: [...names] } : {}) }));
    }
  }

  /** The secret of a lookup ARN, imported once per pipeline. */
  private lookupSecret(arn: string): secretsmanager.ISecret {
    let secret = this.lookupSecretsByArn.get(arn);
    if (secret === undefined) {
      const id = `LookupSecret${this.lookupSecretsByArn.size}`;
      secret = isCompleteSecretArn(arn) ? secretsmanager.Secret.fromSecretCompleteArn(this, id, arn) : secretsmanager.Secret.fromSecretPartialArn(this, id, arn);
      this.lookupSecretsByArn.set(arn, secret);
    }
    return secret;
  }

  private createStage(
    graph: JobGraph,
    stage: JobStage,
    props: StreamPipelineProps,
    bundling: ReturnType<typeof stageBundling>,
    removalPolicy: RemovalPolicy,
  ): DeployedStage {
    const settings = resolveSettings(props, stage.id);
    const fromSource = stage.input.type === 'source';
    const input = stage.input.type === 'source' ? this.sourceStreams.get(stage.input.source) : this.exchangeStreams.get(stage.id);
    if (input === undefined) throw new StreamPipelineValidationError(`internal: no input stream for ${stage.id}`);

    const outputStreams: Record<string, string> = {};
    const output = stage.output.type === 'exchange' ? this.exchangeStreams.get(stage.output.toStage) : undefined;
    if (stage.output.type === 'exchange') {
      if (output === undefined) throw new StreamPipelineValidationError(`${stage.id} writes to ${stage.output.toStage}, which is not a stage of the job graph`);
      outputStreams[stage.output.toStage] = output.streamName;
    }
    // The stage's own sink plus the sinks of its side outputs (late rows of windows).
    const sinkNames = [...(stage.output.type === 'sink' ? [stage.output.sink] : []), ...(stage.sideOutputs ?? []).map((s) => s.sink)];
    const sinkTargets: Record<string, string> = {};
    for (const name of sinkNames) {
      const table = this.sinkTables.get(name);
      const stream = this.sinkStreams.get(name);
      if (table !== undefined) sinkTargets[name] = table.tableName;
      if (stream !== undefined) sinkTargets[name] = stream.streamName;
    }

    // Lookups: the secrets and tables this stage's joins read (granted below), the JSON-lines
    // files bundled with it, and the passwordFrom variables the deployment sets.
    const lookups = lookupsOf(stage);
    const tableSecrets: Record<string, string> = {};
    const secrets = new Set<secretsmanager.ISecret>();
    const dimensionTables = new Set<dynamodb.ITable>();
    const lookupEnvironment: Record<string, string> = {};
    for (const { table, source } of lookups) {
      const named = props.lookupSecrets?.[table];
      if (named !== undefined) {
        tableSecrets[table] = named.secretArn;
        secrets.add(named);
      }
      if (source.type === 'jdbc' && source.secretArn !== undefined) secrets.add(this.lookupSecret(source.secretArn));
      if (source.type === 'jdbc' && source.passwordFrom !== undefined && named === undefined && source.secretArn === undefined) {
        lookupEnvironment[source.passwordFrom] = props.lookupEnvironment?.[source.passwordFrom] as string;
      }
      if (source.type === 'dynamodb') dimensionTables.add(this.lookupTables.get(source.table) as dynamodb.ITable);
    }
    // The files themselves are bundled by stageBundling (lookupFilesOf).
    const fileTables = Object.fromEntries(lookups.filter((l) => l.source.type === 'jsonl').map((l) => [l.table, `./${bundledLookupFile(l.table)}`]));

    const logGroup = new logs.LogGroup(this, `Logs-${stage.id}`, {
      retention: props.logRetention ?? DEFAULTS.logRetention,
      removalPolicy,
    });
    const inVpc = props.vpc !== undefined && hasJdbcLookup(stage);
    const fn = new NodejsFunction(this, `Stage-${stage.id}`, {
      description: `Flambda ${graph.name} ${stage.id}: ${stage.operators.map((op) => op.type).join(' → ') || 'pass-through'}`,
      entry: STAGE_HANDLER_ENTRY,
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: DEPS_LOCK_FILE,
      runtime: this.runtime,
      architecture: lambda.Architecture.ARM_64,
      memorySize: settings.memorySize,
      timeout: settings.timeout,
      logGroup,
      bundling,
      ...(inVpc
        ? {
            vpc: props.vpc,
            ...(props.vpcSubnets !== undefined ? { vpcSubnets: props.vpcSubnets } : {}),
            ...(props.securityGroups !== undefined ? { securityGroups: [...props.securityGroups] } : {}),
          }
        : {}),
      environment: {
        [STAGE_ENV.jobGraphPath]: `./${JOB_GRAPH_FILE}`,
        [STAGE_ENV.stageId]: stage.id,
        [STAGE_ENV.stateTable]: this.stateTable.tableName,
        [STAGE_ENV.outputStreams]: Stack.of(this).toJsonString(outputStreams),
        [STAGE_ENV.deadLetterQueueUrl]: this.deadLetterQueue.queueUrl,
        [STAGE_ENV.sinkTargets]: Stack.of(this).toJsonString(sinkTargets),
        ...(props.pipelineModule === undefined ? {} : { [STAGE_ENV.pipelineModule]: `./${PIPELINE_MODULE_FILE}` }),
        ...(Object.keys(tableSecrets).length === 0 ? {} : { [LOOKUP_SECRETS_ENV]: Stack.of(this).toJsonString(tableSecrets) }),
        ...(Object.keys(fileTables).length === 0 ? {} : { [STAGE_ENV.lookupFiles]: JSON.stringify(fileTables) }),
        ...lookupEnvironment,
      },
    });

    // Least privilege: this stage's input, output, sinks, lookup secrets and tables only.
    input.grantRead(fn);
    output?.grantWrite(fn);
    for (const name of sinkNames) {
      this.sinkTables.get(name)?.grantWriteData(fn);
      this.sinkStreams.get(name)?.grantWrite(fn);
    }
    for (const secret of secrets) secret.grantRead(fn);
    for (const table of dimensionTables) table.grantReadData(fn);
    this.stateTable.grantReadWriteData(fn);
    this.deadLetterQueue.grantSendMessages(fn);

    // Exchange streams are created with the pipeline: every record in them must be read.
    const startingPosition = fromSource ? (props.startingPosition ?? lambda.StartingPosition.TRIM_HORIZON) : lambda.StartingPosition.TRIM_HORIZON;
    const eventSource = new KinesisEventSource(input, {
      startingPosition,
      ...(startingPosition === lambda.StartingPosition.AT_TIMESTAMP && props.startingPositionTimestamp !== undefined
        ? { startingPositionTimestamp: props.startingPositionTimestamp.getTime() / 1000 }
        : {}),
      batchSize: settings.batchSize,
      maxBatchingWindow: settings.maxBatchingWindow,
      reportBatchItemFailures: true,
      // One invocation per shard at a time: state, checkpoints and output order are per shard.
      parallelizationFactor: 1,
      // Splitting a batch would reorder the retry against the checkpoint; the handler already
      // reports the first failing record.
      bisectBatchOnError: false,
      retryAttempts: props.retryAttempts ?? DEFAULTS.retryAttempts,
      ...(props.maxRecordAge !== undefined ? { maxRecordAge: props.maxRecordAge } : {}),
      onFailure: new SqsDlq(this.deadLetterQueue),
    });
    fn.addEventSource(eventSource);
    if (props.maxRecordAge === undefined) {
      // The CDK cannot express "no maximum age"; -1 is CloudFormation's (and the API's) value for it.
      const mapping = fn.node.children.find((c): c is lambda.EventSourceMapping => c instanceof lambda.EventSourceMapping);
      (mapping?.node.defaultChild as lambda.CfnEventSourceMapping | undefined)?.addPropertyOverride('MaximumRecordAgeInSeconds', -1);
    }
    return { stage, function: fn, input, eventSource };
  }

  private createHeartbeat(props: StreamPipelineProps, removalPolicy: RemovalPolicy): NodejsFunction {
    // Source shards, so idle ones advance their watermark; exchange shards, so processing time
    // (and processing-time timers) moves in downstream stages that get no records.
    const streams = [...this.sourceStreams.values(), ...this.exchangeStreams.values()];
    const logGroup = new logs.LogGroup(this, 'Logs-heartbeat', {
      retention: props.logRetention ?? DEFAULTS.logRetention,
      removalPolicy,
    });
    const fn = new NodejsFunction(this, 'Heartbeat', {
      description: `Flambda ${this.jobGraph.name}: heartbeats to every source and exchange shard`,
      entry: HEARTBEAT_ENTRY,
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: DEPS_LOCK_FILE,
      runtime: this.runtime,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.seconds(30),
      logGroup,
      bundling: baseBundling(),
      environment: {
        [HEARTBEAT_ENV.streams]: Stack.of(this).toJsonString(streams.map((s) => s.streamName)),
      },
    });
    for (const stream of streams) stream.grantWrite(fn);
    new events.Rule(this, 'HeartbeatSchedule', {
      description: `Flambda ${this.jobGraph.name}: heartbeat schedule`,
      schedule: props.heartbeatSchedule ?? events.Schedule.rate(Duration.minutes(1)),
      targets: [new targets.LambdaFunction(fn, { retryAttempts: 0 })],
    });
    return fn;
  }

  /**
   * The producer function of a generator source: bundled as a stage is (the job graph and the
   * pipeline module beside the handler), run on `producerSchedule`, allowed to write its source
   * stream and read it back (a producer resuming after a crash looks there for the rows it
   * already put), and to keep its position in the state table.
   */
  private createProducer(source: JobSource, props: StreamPipelineProps, bundling: ReturnType<typeof stageBundling>, removalPolicy: RemovalPolicy): NodejsFunction {
    const stream = this.sourceStreams.get(source.name);
    if (stream === undefined) throw new StreamPipelineValidationError(`internal: no stream for source '${source.name}'`);
    const connector = source.connector as Extract<JobSource['connector'], { type: 'generator' }>;
    const logGroup = new logs.LogGroup(this, `Logs-producer-${source.name}`, {
      retention: props.logRetention ?? DEFAULTS.logRetention,
      removalPolicy,
    });
    const fn = new NodejsFunction(this, `Producer-${source.name}`, {
      description: `Flambda ${this.jobGraph.name}: puts the rows of generator source '${source.name}' (${connector.display}) into its stream`,
      entry: GENERATOR_PRODUCER_ENTRY,
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: DEPS_LOCK_FILE,
      runtime: this.runtime,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 512,
      // Within the schedule's minute: an invocation rarely overlaps the next (which then steps aside).
      timeout: Duration.seconds(50),
      logGroup,
      bundling,
      environment: {
        [STAGE_ENV.jobGraphPath]: `./${JOB_GRAPH_FILE}`,
        [STAGE_ENV.stateTable]: this.stateTable.tableName,
        [STAGE_ENV.pipelineModule]: `./${PIPELINE_MODULE_FILE}`,
        [PRODUCER_ENV.source]: source.name,
        [PRODUCER_ENV.stream]: stream.streamName,
      },
    });
    stream.grantReadWrite(fn);
    this.stateTable.grantReadWriteData(fn);
    new events.Rule(this, `ProducerSchedule-${source.name}`, {
      description: `Flambda ${this.jobGraph.name}: producer schedule of generator source '${source.name}'`,
      schedule: props.producerSchedule ?? events.Schedule.rate(Duration.minutes(1)),
      targets: [new targets.LambdaFunction(fn, { retryAttempts: 0 })],
    });
    // A provisioned shard takes 1,000 records a second (Kinesis quotas): beyond, the producer falls behind.
    const shards = props.streamMode === kinesis.StreamMode.ON_DEMAND || props.sourceStreams?.[source.name] !== undefined ? undefined : source.parallelism;
    if (connector.rowsPerSecond !== undefined && shards !== undefined && connector.rowsPerSecond > shards * 1_000) {
      Annotations.of(this).addWarningV2(
        '@flambda/generator-rate',
        `generator source '${source.name}' asks for ${connector.rowsPerSecond} rows per second, but its stream of ${shards} shard${shards === 1 ? '' : 's'} takes ${shards * 1_000}: its producer will fall behind (lower 'rows-per-second' or raise the source's parallelism)`,
      );
    }
    return fn;
  }

  /**
   * cdk-nag findings that are deliberate, each with the reason, on the resources they concern
   * (not stack-wide, so a new finding elsewhere still fails).
   */
  private suppressNagFindings(): void {
    const functions = [...[...this.stages.values()].map((s) => s.function), ...(this.heartbeatFunction ? [this.heartbeatFunction] : []), ...this.producers.values()];
    for (const fn of functions) {
      const validations = Validations.of(fn);
      validations.acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          'AWSLambdaBasicExecutionRole allows logs:CreateLogGroup, logs:CreateLogStream and logs:PutLogEvents on every resource ("*"), not only this ' +
          "function's log group; accepted because those actions only create and append logs (never read or delete them), and it is the AWS-maintained policy Lambda expects.",
      });
      if (fn.isBoundToVpc) {
        validations.acknowledge({
          id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
          reason:
            'AWSLambdaVPCAccessExecutionRole allows creating, describing and deleting network interfaces on every resource ("*"), which Lambda needs to attach ' +
            'the function to the VPC of its JDBC lookup databases; Lambda scopes the interfaces to the function itself.',
        });
      }
      if (this.runtime === lambda.Runtime.NODEJS_20_X) {
        const why =
          'Flambda targets Node 20 (@middy/core 6 and the pinned toolchain; @middy/core 7 needs Node 22) until the project moves; the runtime prop moves every function at once.';
        validations.acknowledge({ id: 'AwsSolutions-L1', reason: why });
        // The CDK's built-in CloudFormation validation warns that nodejs20.x is deprecated.
        validations.acknowledge({ id: 'CloudFormation-Validate::W2531', reason: why });
      }
    }
  }
}

/** The job graph from `jobGraph` or `pipeline`. */
function resolveJobGraph(props: StreamPipelineProps): JobGraph {
  if ((props.jobGraph === undefined) === (props.pipeline === undefined)) {
    throw new StreamPipelineValidationError(`give exactly one of jobGraph and pipeline (given ${props.jobGraph === undefined ? 'neither' : 'both'})`);
  }
  if (props.jobGraph !== undefined) {
    if (props.parallelism !== undefined) throw new StreamPipelineValidationError(`parallelism applies to pipeline only; the jobGraph already has its stages' parallelism (given ${props.parallelism})`);
    return props.jobGraph;
  }
  const parallelism = props.parallelism ?? DEFAULTS.parallelism;
  checkIntegerRange('parallelism', parallelism, 1, MAX_SHARDS);
  return props.pipeline!.jobGraph({ parallelism });
}

/** Replaces sink connectors as `overrides` says; names must be sinks of the graph. */
function applySinkConnectors(graph: JobGraph, overrides: Readonly<Record<string, AwsSinkConnector>> | undefined): JobGraph {
  if (overrides === undefined) return graph;
  const names = new Set(graph.sinks.map((s) => s.name));
  for (const [name, type] of Object.entries(overrides)) {
    if (!names.has(name)) throw new StreamPipelineValidationError(`sinkConnectors names sink '${name}', which the job graph does not have (sinks: ${[...names].join(', ') || 'none'})`);
    if (!['dynamodb', 'kinesis', 'print', 'blackhole'].includes(type)) {
      throw new StreamPipelineValidationError(`sinkConnectors['${name}'] must be dynamodb, kinesis, print or blackhole (given ${String(type)})`);
    }
  }
  return {
    ...graph,
    sinks: graph.sinks.map((s): JobSink => {
      const type = overrides[s.name];
      return type === undefined ? s : { ...s, connector: { type } };
    }),
  };
}

/**
 * The JSON-lines files of a stage's `jsonl` lookup tables, to bundle with it: `lookupFiles`, else
 * the source's path, taken from the working directory.
 *
 * @throws StreamPipelineValidationError for a table without a file, or a file that does not exist.
 */
function lookupFilesOf(stage: JobStage, props: StreamPipelineProps): BundledFile[] {
  const files = new Map<string, BundledFile>();
  for (const { table, source } of lookupsOf(stage)) {
    if (source.type !== 'jsonl' || files.has(table)) continue;
    const path = props.lookupFiles?.[table] ?? source.path;
    if (path === undefined) {
      throw new StreamPipelineValidationError(`lookup table '${table}' (${stage.id}) is a JSON-lines file without a path: give lookupFiles: { ${table}: 'path/to/${table}.jsonl' }`);
    }
    const resolved = resolvePath(path);
    if (!existsSync(resolved)) throw new StreamPipelineValidationError(`lookup table '${table}' (${stage.id}): JSON-lines file ${resolved} does not exist (paths are taken from ${process.cwd()})`);
    files.set(table, { source: resolved, target: bundledLookupFile(table) });
  }
  return [...files.values()];
}

function resolveSettings(props: StreamPipelineProps, stageId: string): ResolvedSettings {
  const own = props.stages?.[stageId];
  return {
    memorySize: own?.memorySize ?? props.memorySize ?? DEFAULTS.memorySize,
    timeout: own?.timeout ?? props.timeout ?? DEFAULTS.timeout,
    batchSize: own?.batchSize ?? props.batchSize ?? DEFAULTS.batchSize,
    maxBatchingWindow: own?.maxBatchingWindow ?? props.maxBatchingWindow ?? DEFAULTS.maxBatchingWindow,
  };
}

function alarmProps(props: StreamPipelineProps): PipelineAlarmProps {
  return {
    ...(props.iteratorAgeAlarmThreshold !== undefined ? { iteratorAgeAlarmThreshold: props.iteratorAgeAlarmThreshold } : {}),
    ...(props.errorsAlarmThreshold !== undefined ? { errorsAlarmThreshold: props.errorsAlarmThreshold } : {}),
    ...(props.deadLetterAlarmThreshold !== undefined ? { deadLetterAlarmThreshold: props.deadLetterAlarmThreshold } : {}),
    ...(props.alarmActions !== undefined ? { alarmActions: props.alarmActions } : {}),
    ...(props.alarmTopic !== undefined ? { alarmTopic: props.alarmTopic } : {}),
  };
}

/** Every check in one place, before any resource exists. */
function validate(graph: JobGraph, props: StreamPipelineProps): void {
  if (graph.stages.length === 0) throw new StreamPipelineValidationError(`job graph '${graph.name}' has no stages`);
  for (const source of graph.sources) checkIntegerRange(`source '${source.name}' parallelism`, source.parallelism, 1, MAX_SHARDS);
  const stageIds = new Set(graph.stages.map((s) => s.id));
  for (const stage of graph.stages) checkIntegerRange(`${stage.id} parallelism`, stage.parallelism, 1, MAX_SHARDS);
  for (const sink of graph.sinks) {
    if (sink.connector.type === 'collect' || sink.connector.type === 'jsonl') {
      throw new StreamPipelineValidationError(
        `sink '${sink.name}' uses the '${sink.connector.type}' connector, which only the embedded runtime has; use dynamodb, kinesis, print or blackhole (sinkConnectors can override it)`,
      );
    }
    if (sink.connector.type === 'dynamodb' && (sink.upsertKey === undefined || sink.upsertKey.length === 0)) {
      throw new StreamPipelineValidationError(`sink '${sink.name}' writes a DynamoDB table, which needs an upsert key (given none)`);
    }
  }
  for (const [name] of Object.entries(props.sourceStreams ?? {})) {
    if (!graph.sources.some((s) => s.name === name)) {
      throw new StreamPipelineValidationError(`sourceStreams names source '${name}', which the job graph does not have (sources: ${graph.sources.map((s) => s.name).join(', ') || 'none'})`);
    }
  }
  const settings: [string, StageSettings][] = [['', props], ...Object.entries(props.stages ?? {}).map(([id, s]): [string, StageSettings] => [`stages['${id}'].`, s])];
  for (const [id] of Object.entries(props.stages ?? {})) {
    if (!stageIds.has(id)) throw new StreamPipelineValidationError(`stages names '${id}', which is not a stage of the job graph (stages: ${[...stageIds].join(', ')})`);
  }
  for (const [prefix, s] of settings) {
    if (s.memorySize !== undefined) checkIntegerRange(`${prefix}memorySize`, s.memorySize, 128, 10_240);
    if (s.timeout !== undefined) checkDurationSeconds(`${prefix}timeout`, s.timeout, 1, 900);
    if (s.batchSize !== undefined) checkIntegerRange(`${prefix}batchSize`, s.batchSize, 1, 10_000);
    if (s.maxBatchingWindow !== undefined) checkDurationSeconds(`${prefix}maxBatchingWindow`, s.maxBatchingWindow, 0, 300);
  }
  if (props.runtime !== undefined) {
    const major = /^nodejs(\d+)\.x$/.exec(props.runtime.name)?.[1];
    if (major === undefined || Number(major) < 20) throw new StreamPipelineValidationError(`runtime must be nodejs20.x or later (given ${props.runtime.name})`);
  }
  if (props.retryAttempts !== undefined) checkIntegerRange('retryAttempts', props.retryAttempts, -1, 10_000);
  if (props.maxRecordAge !== undefined) checkDurationSeconds('maxRecordAge', props.maxRecordAge, 60, 7 * 24 * 3600);
  if (props.streamRetention !== undefined) checkDurationSeconds('streamRetention', props.streamRetention, 24 * 3600, 8760 * 3600);
  if ((props.startingPosition === lambda.StartingPosition.AT_TIMESTAMP) !== (props.startingPositionTimestamp !== undefined)) {
    throw new StreamPipelineValidationError(
      `startingPositionTimestamp goes with startingPosition AT_TIMESTAMP, and only with it (given ${props.startingPosition ?? 'TRIM_HORIZON'} and ${props.startingPositionTimestamp?.toISOString() ?? 'no timestamp'})`,
    );
  }
  // Both checks concern the streams created here, whose retention is streamRetention.
  const retention = props.streamRetention ?? DEFAULTS.streamRetention;
  const createsStreams = graph.stages.some((s) => s.input.type === 'exchange') || graph.sources.some((s) => props.sourceStreams?.[s.name] === undefined && !(s.connector.type === 'kinesis' && s.connector.streamArn !== undefined));
  if (createsStreams && !retention.isUnresolved()) {
    if (props.maxRecordAge !== undefined && !props.maxRecordAge.isUnresolved() && props.maxRecordAge.toSeconds() >= retention.toSeconds()) {
      throw new StreamPipelineValidationError(
        `maxRecordAge (${props.maxRecordAge.toHumanString()}) must be below streamRetention (${retention.toHumanString()}): a batch skipped for its age must still be in the stream to be replayed`,
      );
    }
    const alarmAt = props.iteratorAgeAlarmThreshold ?? DEFAULTS.iteratorAgeAlarmThreshold;
    if (!alarmAt.isUnresolved() && alarmAt.toSeconds() * 2 > retention.toSeconds()) {
      throw new StreamPipelineValidationError(
        `iteratorAgeAlarmThreshold (${alarmAt.toHumanString()}) must be at most half of streamRetention (${retention.toHumanString()}), so the alarm fires long before records expire`,
      );
    }
  }
  if (props.sinkStreamShards !== undefined) checkIntegerRange('sinkStreamShards', props.sinkStreamShards, 1, MAX_SHARDS);
  if (props.iteratorAgeAlarmThreshold !== undefined) checkDurationSeconds('iteratorAgeAlarmThreshold', props.iteratorAgeAlarmThreshold, 1, 7 * 24 * 3600);
  if (props.errorsAlarmThreshold !== undefined) checkIntegerRange('errorsAlarmThreshold', props.errorsAlarmThreshold, 1, 1_000_000);
  if (props.deadLetterAlarmThreshold !== undefined) checkIntegerRange('deadLetterAlarmThreshold', props.deadLetterAlarmThreshold, 1, 1_000_000);

  const lookupTables = new Set(graph.stages.flatMap(lookupTablesOf));
  for (const table of Object.keys(props.lookupSecrets ?? {})) {
    if (!lookupTables.has(table)) {
      throw new StreamPipelineValidationError(`lookupSecrets names table '${table}', which no LookupJoin of the job graph reads (lookup tables: ${[...lookupTables].join(', ') || 'none'})`);
    }
  }
  validateLookups(graph, props);
  if ((props.vpcSubnets !== undefined || props.securityGroups !== undefined) && props.vpc === undefined) {
    throw new StreamPipelineValidationError(`vpcSubnets and securityGroups need vpc (given ${props.vpcSubnets !== undefined ? 'vpcSubnets' : 'securityGroups'} without it)`);
  }
  if (props.vpc !== undefined && !graph.stages.some(hasJdbcLookup)) {
    throw new StreamPipelineValidationError('vpc applies to the stages with JDBC lookup tables, and the job graph has none');
  }
  const importedByConnector = [
    ...graph.sources.filter((s) => s.connector.type === 'kinesis' && s.connector.streamArn !== undefined && props.sourceStreams?.[s.name] === undefined).map((s) => s.name),
    ...graph.sinks.filter((s) => s.connector.type === 'kinesis' && s.connector.streamName !== undefined).map((s) => s.name),
  ];
  for (const name of Object.keys(props.streamKeys ?? {})) {
    if (!importedByConnector.includes(name)) {
      throw new StreamPipelineValidationError(`streamKeys names '${name}', which is no source or sink whose stream the connector imports (imported: ${importedByConnector.join(', ') || 'none'})`);
    }
  }
  const refs = userFunctionOperators(graph);
  if (refs.length > 0 && props.pipelineModule === undefined) {
    throw new StreamPipelineValidationError(`operators ${refs.join(', ')} call user functions: give pipelineModule (the module whose default export defines them)`);
  }
  const generatorSources = graph.sources.filter((s) => s.connector.type === 'generator').map((s) => s.name);
  for (const name of props.externalSources ?? []) {
    if (!generatorSources.includes(name)) {
      throw new StreamPipelineValidationError(`externalSources names '${name}', which is no generator source of the job graph (generator sources: ${generatorSources.join(', ') || 'none'})`);
    }
  }
  const produced = producedSources(graph, props).map((s) => s.name);
  if (produced.length > 0 && props.pipelineModule === undefined) {
    throw new StreamPipelineValidationError(
      `generator source${produced.length === 1 ? '' : 's'} ${produced.map((n) => `'${n}'`).join(', ')} need${produced.length === 1 ? 's' : ''} a producer function, which takes the generator from the pipeline module: ` +
        `give pipelineModule (the module whose default export defines it), or list ${produced.length === 1 ? 'it' : 'them'} in externalSources to fill the stream from outside`,
    );
  }
}

/** The generator sources that get a producer function: all but `externalSources`. */
function producedSources(graph: JobGraph, props: StreamPipelineProps): JobSource[] {
  const external = new Set(props.externalSources ?? []);
  return graph.sources.filter((s) => s.connector.type === 'generator' && !external.has(s.name));
}

/**
 * Lookups that cannot run as configured: a `passwordFrom` JDBC table with neither a secret nor
 * the variable set, a `lookupEnvironment` variable no lookup reads, a `lookupFiles` entry that
 * is not a JSON-lines table, a JSON-lines table without a file.
 */
function validateLookups(graph: JobGraph, props: StreamPipelineProps): void {
  const readVariables = new Set<string>();
  const jsonlTables = new Set<string>();
  for (const stage of graph.stages) {
    for (const { table, source } of lookupsOf(stage)) {
      if (source.type === 'jsonl') jsonlTables.add(table);
      if (source.type !== 'jdbc' || source.passwordFrom === undefined) continue;
      readVariables.add(source.passwordFrom);
      if (source.secretArn === undefined && props.lookupSecrets?.[table] === undefined && props.lookupEnvironment?.[source.passwordFrom] === undefined) {
        throw new StreamPipelineValidationError(
          `lookup table '${table}' (${stage.id}) reads its JDBC password from the environment variable ${source.passwordFrom} (passwordFrom), which a deployed function does not have: ` +
            `give lookupSecrets: { ${table}: secret } (recommended), or lookupEnvironment: { ${source.passwordFrom}: … }`,
        );
      }
    }
    lookupFilesOf(stage, props);
  }
  for (const name of Object.keys(props.lookupEnvironment ?? {})) {
    if (!readVariables.has(name)) {
      throw new StreamPipelineValidationError(`lookupEnvironment sets ${name}, which no JDBC lookup table names in passwordFrom (read: ${[...readVariables].join(', ') || 'none'})`);
    }
  }
  for (const table of Object.keys(props.lookupFiles ?? {})) {
    if (!jsonlTables.has(table)) throw new StreamPipelineValidationError(`lookupFiles names '${table}', which is no JSON-lines lookup table of the job graph (JSON-lines tables: ${[...jsonlTables].join(', ') || 'none'})`);
  }
}

/** Re-exported so users of the construct need one import for the alarm props. */
export type { PipelineAlarmProps } from './pipeline-dashboard.ts';
