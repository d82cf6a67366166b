/**
 * StreamPipeline props: validation messages and the variants the example app does not use
 * (on-demand streams, imported sources, Kinesis sinks, lookup secrets, per-stage settings).
 * Bundling is skipped (`aws:cdk:bundling-stacks: []`): these tests look at the template only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { CfnElement } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { Pipeline } from '../../shared/api/index.ts';
import type { JobGraph, JobOperator } from '../../shared/plan/job-graph.ts';
import topMerchandise from '../../examples/orders/top-merchandise.ts';
import { StreamPipeline } from '../../infra/lib/stream-pipeline.ts';
import type { StreamPipelineProps } from '../../infra/lib/stream-pipeline.ts';
import { environmentOf, functionOfStage, policyTargetsOfType, resourcesOf, statementsOfFunction } from './template-helpers.ts';
import type { Statement } from './template-helpers.ts';

process.env.CDK_VALIDATION = 'false';

const REPO_ROOT_FOR_SQL = fileURLToPath(new URL('../..', import.meta.url));

const graph: JobGraph = topMerchandise.jobGraph({ parallelism: 2 });

/**
 * `props` with the Top-N example's generator source `orders` in `externalSources` when the graph
 * has it: its stream is filled from outside, as the example stack deploys it (a producer
 * function would need a pipeline module; test/infra/generator-producer.test.ts covers those).
 */
function external(props: Partial<StreamPipelineProps>): Partial<StreamPipelineProps> {
  const sources = (props.jobGraph ?? props.pipeline?.jobGraph())?.sources ?? [];
  const generated = sources.some((s) => s.name === 'orders' && s.connector.type === 'generator');
  return generated && props.externalSources === undefined ? { ...props, externalSources: ['orders'] } : props;
}

function synth(props: Partial<StreamPipelineProps>): { stack: Stack; pipeline: StreamPipeline; template: Template } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Test');
  const pipeline = new StreamPipeline(stack, 'P', external({ jobGraph: graph, ...props }) as StreamPipelineProps);
  return { stack, pipeline, template: Template.fromStack(stack) };
}

describe('StreamPipeline.fromSql', () => {
  it('deploys a Flink SQL script: the seed Top-N gives the same stages as its TypeScript version', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Sql');
    const sql = readFileSync(join(REPO_ROOT_FOR_SQL, 'examples/sql/top-n.sql'), 'utf8');
    const pipeline = StreamPipeline.fromSql(stack, 'TopN', sql, { parallelism: 2 });
    expect(pipeline.jobGraph.stages.map((s) => s.operators.map((o) => o.type))).toEqual([['Calc'], ['GroupAggregate'], ['Rank']]);
    const template = Template.fromStack(stack);
    // One source stream and two exchanges; one function per stage plus the heartbeat.
    template.resourceCountIs('AWS::Kinesis::Stream', 3);
    template.resourceCountIs('AWS::Lambda::Function', 4);
  });

  it('names the line and column of a script that does not compile', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => StreamPipeline.fromSql(new Stack(app, 'Bad'), 'Bad', 'INSERT INTO nowhere SELECT a FROM missing;')).toThrow(/line 1:\d+/);
  });
});

function attempt(props: Partial<StreamPipelineProps>): () => void {
  return () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    new StreamPipeline(new Stack(app, 'Test'), 'P', external(props) as StreamPipelineProps);
  };
}

function logicalId(construct: IConstruct): string {
  return Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
}

/** The Top-N graph with a LookupJoin operator in stage-1 (what the lookup join will plan). */
function graphWithLookup(table: string): JobGraph {
  const stages = graph.stages.map((s) => {
    if (s.id !== 'stage-1') return s;
    const lookup = {
      id: 'LookupJoin_9',
      type: 'LookupJoin',
      spec: { table, joinType: 'LEFT', keys: [{ probe: 'merchandiseId', lookup: 'id' }], source: { type: 'jdbc', url: 'jdbc:mysql://db:3306/shop', table } },
      inputSchema: s.inputSchema,
      outputSchema: s.inputSchema,
      description: `LookupJoin(table=[${table}])`,
    } as unknown as JobOperator;
    return { ...s, operators: [lookup, ...s.operators] };
  });
  return { ...graph, stages };
}

describe('Construct: StreamPipeline props', () => {
  describe('Validation', () => {
    it.each<[string, Partial<StreamPipelineProps>, string]>([
      ['parallelism', { jobGraph: undefined, pipeline: topMerchandise, parallelism: 0 }, 'parallelism must be 1..500 (given 0)'],
      ['parallelism (upper)', { jobGraph: undefined, pipeline: topMerchandise, parallelism: 501 }, 'parallelism must be 1..500 (given 501)'],
      ['stage parallelism', { jobGraph: { ...graph, stages: graph.stages.map((s) => (s.id === 'stage-1' ? { ...s, parallelism: 0 } : s)) } }, 'stage-1 parallelism must be 1..500 (given 0)'],
      ['batchSize', { batchSize: 0 }, 'batchSize must be 1..10000 (given 0)'],
      ['memorySize', { memorySize: 64 }, 'memorySize must be 128..10240 (given 64)'],
      ['timeout', { timeout: Duration.seconds(901) }, 'timeout must be 1..900 seconds (given 15 minutes 1 second)'],
      ['maxBatchingWindow', { maxBatchingWindow: Duration.minutes(6) }, 'maxBatchingWindow must be 0..300 seconds (given 6 minutes)'],
      ['retryAttempts', { retryAttempts: -2 }, 'retryAttempts must be -1..10000 (given -2)'],
      ['maxRecordAge', { maxRecordAge: Duration.seconds(30) }, 'maxRecordAge must be 60..604800 seconds (given 30 seconds)'],
      ['per-stage memory', { stages: { 'stage-2': { memorySize: 20_000 } } }, "stages['stage-2'].memorySize must be 128..10240 (given 20000)"],
      ['unknown stage', { stages: { 'stage-9': { memorySize: 512 } } }, "stages names 'stage-9', which is not a stage of the job graph (stages: stage-0, stage-1, stage-2)"],
      ['unknown sink', { sinkConnectors: { results: 'dynamodb' } }, "sinkConnectors names sink 'results', which the job graph does not have (sinks: leaderboard)"],
      ['unknown source', { sourceStreams: { bids: {} as kinesis.IStream } }, "sourceStreams names source 'bids', which the job graph does not have (sources: orders)"],
      ['local-only sink', { jobGraph: { ...graph, sinks: graph.sinks.map((s) => ({ ...s, connector: { type: 'collect' } })) } }, "sink 'leaderboard' uses the 'collect' connector"],
      ['both graph and pipeline', { pipeline: topMerchandise }, 'give exactly one of jobGraph and pipeline (given both)'],
      ['neither graph nor pipeline', { jobGraph: undefined }, 'give exactly one of jobGraph and pipeline (given neither)'],
      ['runtime', { runtime: lambda.Runtime.NODEJS_18_X }, 'runtime must be nodejs20.x or later (given nodejs18.x)'],
      ['alarm threshold', { errorsAlarmThreshold: 0 }, 'errorsAlarmThreshold must be 1..1000000 (given 0)'],
      ['lookup secret of no lookup', { lookupSecrets: { customers: {} as secretsmanager.ISecret } }, "lookupSecrets names table 'customers', which no LookupJoin of the job graph reads (lookup tables: none)"],
    ])('refuses a bad %s, naming the value', (_what, props, message) => {
      expect(attempt({ jobGraph: graph, ...props })).toThrow(message);
    });

    it('refuses user functions without a pipeline module', () => {
      const stages = graph.stages.map((s) =>
        s.id === 'stage-0' ? { ...s, operators: [{ id: 'Map_5', type: 'Map', spec: { ref: 'udf_1', display: 'f' }, inputSchema: s.inputSchema, outputSchema: s.inputSchema, description: 'Map' } as JobOperator] } : s,
      );
      expect(attempt({ jobGraph: { ...graph, stages } })).toThrow('operators Map_5 call user functions: give pipelineModule');
    });
  });

  describe('Variants', () => {
    it('creates on-demand streams without a shard count', () => {
      const { template } = synth({ streamMode: kinesis.StreamMode.ON_DEMAND });
      template.allResourcesProperties('AWS::Kinesis::Stream', { StreamModeDetails: { StreamMode: 'ON_DEMAND' }, ShardCount: Match.absent() });
    });

    it('reads an imported source stream and creates only the exchanges', () => {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      const stack = new Stack(app, 'Test');
      const orders = kinesis.Stream.fromStreamArn(stack, 'Orders', 'arn:aws:kinesis:eu-west-1:123456789012:stream/orders');
      new StreamPipeline(stack, 'P', external({ jobGraph: graph, sourceStreams: { orders } }) as StreamPipelineProps);
      const template = Template.fromStack(stack);
      template.resourceCountIs('AWS::Kinesis::Stream', 2);
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { EventSourceArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/orders' });
      const stage0 = statementsOfFunction(template, functionOfStage(template, 'stage-0'));
      expect(JSON.stringify(stage0)).toContain('stream/orders');
      expect(JSON.stringify(statementsOfFunction(template, functionOfStage(template, 'stage-1')))).not.toContain('stream/orders');
    });

    it('writes a Kinesis sink to a stream of its own, granted to the sink stage only', () => {
      const { pipeline, template } = synth({ sinkConnectors: { leaderboard: 'kinesis' }, sinkStreamShards: 2 });
      template.resourceCountIs('AWS::Kinesis::Stream', 4);
      const sink = logicalId(pipeline.sinkStreams.get('leaderboard')!);
      expect(policyTargetsOfType(template, functionOfStage(template, 'stage-2'), 'AWS::Kinesis::Stream').has(sink)).toBe(true);
      expect(policyTargetsOfType(template, functionOfStage(template, 'stage-1'), 'AWS::Kinesis::Stream').has(sink)).toBe(false);
    });

    it('creates nothing for a print sink', () => {
      const { template } = synth({});
      template.resourceCountIs('AWS::DynamoDB::Table', 1);
      template.resourceCountIs('AWS::Kinesis::Stream', 3);
    });

    it('passes lookup secrets by ARN, granted to the stage that looks the table up only', () => {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      const stack = new Stack(app, 'Test');
      const secret = new secretsmanager.Secret(stack, 'CustomersDb');
      new StreamPipeline(stack, 'P', external({ jobGraph: graphWithLookup('customers'), lookupSecrets: { customers: secret } }) as StreamPipelineProps);
      const template = Template.fromStack(stack);
      const env = environmentOf(template, functionOfStage(template, 'stage-1'));
      expect(env.FLAMBDA_LOOKUP_SECRETS).toEqual({ 'Fn::Join': ['', ['{"customers":"', { Ref: logicalId(secret) }, '"}']] });
      const reads = (stage: string): boolean =>
        statementsOfFunction(template, functionOfStage(template, stage)).some((s) => [s.Action].flat().includes('secretsmanager:GetSecretValue'));
      expect(reads('stage-1')).toBe(true);
      expect(reads('stage-0')).toBe(false);
      expect(reads('stage-2')).toBe(false);
      expect(environmentOf(template, functionOfStage(template, 'stage-0')).FLAMBDA_LOOKUP_SECRETS).toBeUndefined();
    });

    it('applies per-stage settings over the pipeline-wide ones', () => {
      const { template } = synth({ memorySize: 512, batchSize: 100, stages: { 'stage-2': { memorySize: 3008, timeout: Duration.seconds(120), batchSize: 1000 } } });
      const props = (stage: string): Record<string, unknown> => (template.toJSON() as { Resources: Record<string, { Properties: Record<string, unknown> }> }).Resources[functionOfStage(template, stage)]!.Properties;
      expect(props('stage-2')).toMatchObject({ MemorySize: 3008, Timeout: 120 });
      expect(props('stage-0')).toMatchObject({ MemorySize: 512, Timeout: 60 });
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { BatchSize: 1000 });
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { BatchSize: 100 });
    });

    it('builds the job graph from a pipeline at the given parallelism', () => {
      const { pipeline, template } = synth({ jobGraph: undefined, pipeline: topMerchandise, parallelism: 4 });
      expect(pipeline.jobGraph.stages.map((s) => s.parallelism)).toEqual([4, 4, 1]);
      template.hasResourceProperties('AWS::Kinesis::Stream', { ShardCount: 4 });
    });

    it('leaves out the heartbeat and the dashboard when asked, keeping the alarms', () => {
      const { template } = synth({ heartbeat: false, dashboard: false, iteratorAgeAlarmThreshold: Duration.minutes(5) });
      template.resourceCountIs('AWS::Lambda::Function', 3);
      template.resourceCountIs('AWS::Events::Rule', 0);
      template.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'IteratorAge', Threshold: 300000 });
    });

    it('moves every function to another runtime with the runtime prop', () => {
      const { template } = synth({ runtime: lambda.Runtime.NODEJS_22_X });
      template.allResourcesProperties('AWS::Lambda::Function', { Runtime: 'nodejs22.x' });
    });
  });
});

/** The mappings of a template, by the stage of the function they feed. */
function mappingsByStage(template: Template): Map<string, Record<string, unknown>> {
  const resources = resourcesOf(template);
  const byFunction = new Map<string, string>();
  for (const [id, r] of Object.entries(resources)) {
    const stage = (r.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.FLAMBDA_STAGE_ID;
    if (r.Type === 'AWS::Lambda::Function' && typeof stage === 'string') byFunction.set(id, stage);
  }
  const mappings = new Map<string, Record<string, unknown>>();
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::Lambda::EventSourceMapping') continue;
    const fn = (r.Properties?.FunctionName as { Ref: string }).Ref;
    mappings.set(byFunction.get(fn) as string, r.Properties as Record<string, unknown>);
  }
  return mappings;
}

/** Whether any statement allows `action` on a resource whose JSON contains `resource`. */
function allows(statements: readonly Statement[], action: string, resource: string): boolean {
  return statements.some((s) => [s.Action].flat().includes(action) && JSON.stringify(s.Resource).includes(resource));
}

describe('Construct: StreamPipeline mappings, retention and alarms (D6–D8)', () => {
  it('never skips by default: retries and record age unbounded on every mapping', () => {
    const { template } = synth({});
    for (const mapping of mappingsByStage(template).values()) expect(mapping).toMatchObject({ MaximumRetryAttempts: -1, MaximumRecordAgeInSeconds: -1 });
  });

  it('starts exchange mappings at TRIM_HORIZON whatever the source mappings start at', () => {
    const latest = mappingsByStage(synth({ startingPosition: lambda.StartingPosition.LATEST }).template);
    expect([...latest].map(([stage, m]) => [stage, m.StartingPosition]).sort()).toEqual([
      ['stage-0', 'LATEST'],
      ['stage-1', 'TRIM_HORIZON'],
      ['stage-2', 'TRIM_HORIZON'],
    ]);
    const at = new Date('2026-11-11T00:00:00Z');
    const timed = mappingsByStage(synth({ startingPosition: lambda.StartingPosition.AT_TIMESTAMP, startingPositionTimestamp: at }).template);
    expect(timed.get('stage-0')).toMatchObject({ StartingPosition: 'AT_TIMESTAMP', StartingPositionTimestamp: at.getTime() / 1000 });
    expect(timed.get('stage-1')?.StartingPositionTimestamp).toBeUndefined();
    expect(attempt({ jobGraph: graph, startingPositionTimestamp: at })).toThrow('startingPositionTimestamp goes with startingPosition AT_TIMESTAMP, and only with it (given TRIM_HORIZON and 2026-11-11T00:00:00.000Z)');
    expect(attempt({ jobGraph: graph, startingPosition: lambda.StartingPosition.AT_TIMESTAMP })).toThrow(/only with it \(given AT_TIMESTAMP and no timestamp\)/);
  });

  it('keeps a finite record age below the retention of the streams it reads', () => {
    const { template } = synth({ maxRecordAge: Duration.days(2), streamRetention: Duration.days(3), retryAttempts: 5 });
    for (const mapping of mappingsByStage(template).values()) expect(mapping).toMatchObject({ MaximumRecordAgeInSeconds: 172_800, MaximumRetryAttempts: 5 });
    template.allResourcesProperties('AWS::Kinesis::Stream', { RetentionPeriodHours: 72 });
    expect(attempt({ jobGraph: graph, maxRecordAge: Duration.days(1) })).toThrow('maxRecordAge (1 day) must be below streamRetention (1 day): a batch skipped for its age must still be in the stream to be replayed');
    expect(attempt({ jobGraph: graph, iteratorAgeAlarmThreshold: Duration.hours(13) })).toThrow('iteratorAgeAlarmThreshold (13 hours) must be at most half of streamRetention (1 day)');
  });

  it('warns that finite retries skip batches', () => {
    const { stack } = synth({ retryAttempts: 3 });
    Annotations.fromStack(stack).hasWarning('/Test/P', Match.stringLikeRegexp('retryAttempts 3: a batch still failing after that many retries is skipped'));
    expect(Annotations.fromStack(synth({}).stack).findWarning('*', Match.stringLikeRegexp('retryAttempts'))).toEqual([]);
  });

  it('retains its streams with the default removal policy, and deletes them with DESTROY (D6)', () => {
    synth({}).template.allResources('AWS::Kinesis::Stream', { DeletionPolicy: 'Retain' });
    synth({ removalPolicy: RemovalPolicy.DESTROY }).template.allResources('AWS::Kinesis::Stream', { DeletionPolicy: 'Delete' });
  });

  it('sends every alarm to alarmTopic (D7)', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Test');
    const topic = new sns.Topic(stack, 'Pager');
    new StreamPipeline(stack, 'P', external({ jobGraph: graph, alarmTopic: topic }) as StreamPipelineProps);
    const template = Template.fromStack(stack);
    template.allResourcesProperties('AWS::CloudWatch::Alarm', { AlarmActions: [{ Ref: logicalId(topic) }] });
    template.resourcePropertiesCountIs('AWS::CloudWatch::Alarm', { MetricName: 'SkippedRanges' }, 3);
  });
});

describe('Construct: StreamPipeline imported encrypted streams', () => {
  const sourceArn = 'arn:aws:kinesis:us-east-1:123456789012:stream/orders-in';
  const imported: JobGraph = {
    ...graph,
    sources: graph.sources.map((s) => ({ ...s, connector: { type: 'kinesis', streamArn: sourceArn } })),
    sinks: graph.sinks.map((s) => ({ ...s, connector: { type: 'kinesis', streamName: 'leaderboard-out' } })),
  } as JobGraph;

  it("grants the readers kms:Decrypt and the writers kms:GenerateDataKey on the streams' own keys", () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Test');
    const inKey = kms.Key.fromKeyArn(stack, 'InKey', 'arn:aws:kms:us-east-1:123456789012:key/in-key');
    const outKey = kms.Key.fromKeyArn(stack, 'OutKey', 'arn:aws:kms:us-east-1:123456789012:key/out-key');
    new StreamPipeline(stack, 'P', { jobGraph: imported, streamKeys: { orders: inKey, leaderboard: outKey } });
    const template = Template.fromStack(stack);
    const stage0 = statementsOfFunction(template, functionOfStage(template, 'stage-0'));
    const stage2 = statementsOfFunction(template, functionOfStage(template, 'stage-2'));
    expect(allows(stage0, 'kms:Decrypt', 'key/in-key')).toBe(true);
    expect(allows(stage2, 'kms:GenerateDataKey*', 'key/out-key') || allows(stage2, 'kms:GenerateDataKey', 'key/out-key')).toBe(true);
    expect(JSON.stringify(stage0)).not.toContain('key/out-key');
    expect(JSON.stringify(statementsOfFunction(template, functionOfStage(template, 'stage-1')))).not.toContain('key/');
  });

  it('refuses a key for a stream it does not import', () => {
    expect(attempt({ jobGraph: graph, streamKeys: { orders: {} as kms.IKey } })).toThrow("streamKeys names 'orders', which is no source or sink whose stream the connector imports (imported: none)");
  });
});

/** A pipeline with a JDBC table (hashed: its own stage), a DynamoDB table queried by index and a JSON-lines table. */
function lookupPipeline(jdbc: { passwordFrom?: string; secretArn?: string }, jsonl: string | { path?: string } = 'examples/lookup/orders.jsonl'): JobGraph {
  const p = new Pipeline('lookups');
  const users = p.lookupTable('users', { schema: { id: 'INT NOT NULL', name: 'STRING' }, source: { jdbc: { url: 'jdbc:mysql://db.internal:3306/shop', user: 'app', ...jdbc } }, hash: true });
  const skus = p.lookupTable('skus', { schema: { sku: 'STRING NOT NULL', title: 'STRING' }, source: { dynamodb: { table: 'shop-skus', mode: 'query', indexName: 'by-sku' } } });
  const notes = p.lookupTable('notes', { schema: { id: 'INT NOT NULL', note: 'STRING' }, source: { jsonl } });
  p.source('orders', { schema: { user_id: 'INT NOT NULL', sku: 'STRING NOT NULL' } })
    .lookupJoin(skus, { on: { sku: 'sku' }, columns: ['title'] })
    .lookupJoin(notes, { on: { user_id: 'id' }, columns: ['note'] })
    .lookupJoin(users, { on: { user_id: 'id' }, columns: ['name'] })
    .sinkTo('out');
  const planned = p.jobGraph({ parallelism: 2 });
  return { ...planned, sinks: planned.sinks.map((sink) => ({ ...sink, connector: { type: 'print' } })) };
}

const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:shop/db-AbCdEf';

describe('Construct: StreamPipeline lookups on AWS (D2–D5)', () => {
  // stage-0: source → LookupJoin(skus: DynamoDB) → LookupJoin(notes: JSON lines); stage-1: LookupJoin(users: JDBC) → sink.
  it("grants GetSecretValue on a descriptor's own secret ARN to the stage that looks the table up only (D2)", () => {
    const { template } = synth({ jobGraph: lookupPipeline({ secretArn: SECRET_ARN }) });
    const reads = (stage: string) => allows(statementsOfFunction(template, functionOfStage(template, stage)), 'secretsmanager:GetSecretValue', 'shop/db-AbCdEf');
    expect(reads('stage-1')).toBe(true);
    expect(reads('stage-0')).toBe(false);
    // The ARN is in the bundled job graph already; no variable repeats it.
    expect(environmentOf(template, functionOfStage(template, 'stage-1')).FLAMBDA_LOOKUP_SECRETS).toBeUndefined();
  });

  it('grants read on DynamoDB lookup tables and the indexes they are queried by, to their stage only (D3)', () => {
    const { template } = synth({ jobGraph: lookupPipeline({ secretArn: SECRET_ARN }) });
    const stage0 = statementsOfFunction(template, functionOfStage(template, 'stage-0'));
    for (const action of ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query']) {
      expect(allows(stage0, action, 'table/shop-skus'), action).toBe(true);
      expect(allows(stage0, action, 'table/shop-skus/index/*'), `${action} on the indexes`).toBe(true);
    }
    expect(JSON.stringify(statementsOfFunction(template, functionOfStage(template, 'stage-1')))).not.toContain('shop-skus');
    expect(stage0.some((s) => [s.Action].flat().some((a) => /^dynamodb:(Put|Delete|Update|BatchWrite)/.test(a)) && JSON.stringify(s.Resource).includes('shop-skus'))).toBe(false);
  });

  it('names the bundled JSON-lines file of each jsonl table in FLAMBDA_LOOKUP_FILES of its stage, and refuses a table without a file (D4)', () => {
    const { template } = synth({ jobGraph: lookupPipeline({ secretArn: SECRET_ARN }) });
    expect(environmentOf(template, functionOfStage(template, 'stage-0')).FLAMBDA_LOOKUP_FILES).toBe('{"notes":"./lookup/notes.jsonl"}');
    expect(environmentOf(template, functionOfStage(template, 'stage-1')).FLAMBDA_LOOKUP_FILES).toBeUndefined();
    expect(attempt({ jobGraph: lookupPipeline({ secretArn: SECRET_ARN }, {}) })).toThrow("lookup table 'notes' (stage-0) is a JSON-lines file without a path: give lookupFiles: { notes: 'path/to/notes.jsonl' }");
    expect(attempt({ jobGraph: lookupPipeline({ secretArn: SECRET_ARN }, 'no/such/notes.jsonl') })).toThrow(/lookup table 'notes' \(stage-0\): JSON-lines file .*no\/such\/notes.jsonl does not exist/);
    expect(() => synth({ jobGraph: lookupPipeline({ secretArn: SECRET_ARN }, {}), lookupFiles: { notes: 'examples/lookup/orders.jsonl' } })).not.toThrow();
    expect(attempt({ jobGraph: lookupPipeline({ secretArn: SECRET_ARN }), lookupFiles: { users: 'x.jsonl' } })).toThrow("lookupFiles names 'users', which is no JSON-lines lookup table of the job graph (JSON-lines tables: notes)");
  });

  it('gives passwordFrom tables a secret or their variable, and refuses them otherwise, naming the table and variable (D4)', () => {
    expect(attempt({ jobGraph: lookupPipeline({ passwordFrom: 'DB_PASSWORD' }) })).toThrow(
      "lookup table 'users' (stage-1) reads its JDBC password from the environment variable DB_PASSWORD (passwordFrom), which a deployed function does not have: give lookupSecrets: { users: secret } (recommended), or lookupEnvironment: { DB_PASSWORD: … }",
    );
    const viaSecret = (() => {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      const stack = new Stack(app, 'Test');
      const secret = new secretsmanager.Secret(stack, 'Db');
      new StreamPipeline(stack, 'P', { jobGraph: lookupPipeline({ passwordFrom: 'DB_PASSWORD' }), lookupSecrets: { users: secret } });
      return Template.fromStack(stack);
    })();
    expect(environmentOf(viaSecret, functionOfStage(viaSecret, 'stage-1')).FLAMBDA_LOOKUP_SECRETS).toBeDefined();
    expect(environmentOf(viaSecret, functionOfStage(viaSecret, 'stage-1')).DB_PASSWORD).toBeUndefined();
    const { template } = synth({ jobGraph: lookupPipeline({ passwordFrom: 'DB_PASSWORD' }), lookupEnvironment: { DB_PASSWORD: 'from-ci' } });
    expect(environmentOf(template, functionOfStage(template, 'stage-1')).DB_PASSWORD).toBe('from-ci');
    expect(environmentOf(template, functionOfStage(template, 'stage-0')).DB_PASSWORD).toBeUndefined();
    expect(attempt({ jobGraph: lookupPipeline({ passwordFrom: 'DB_PASSWORD' }), lookupEnvironment: { DB_PASSWORD: 'x', OTHER: 'y' } })).toThrow(
      'lookupEnvironment sets OTHER, which no JDBC lookup table names in passwordFrom (read: DB_PASSWORD)',
    );
  });

  it('puts the stages with JDBC lookups, and only them, into the given VPC (D5)', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Test', { env: { account: '123456789012', region: 'us-east-1' } });
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
    const db = new ec2.SecurityGroup(stack, 'DbClients', { vpc });
    new StreamPipeline(stack, 'P', { jobGraph: lookupPipeline({ secretArn: SECRET_ARN }), vpc, securityGroups: [db], vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
    const template = Template.fromStack(stack);
    const config = (stage: string) => resourcesOf(template)[functionOfStage(template, stage)]?.Properties?.VpcConfig as { SecurityGroupIds: unknown[]; SubnetIds: unknown[] } | undefined;
    expect(config('stage-1')?.SecurityGroupIds).toEqual([{ 'Fn::GetAtt': [logicalId(db), 'GroupId'] }]);
    expect(config('stage-1')?.SubnetIds).toHaveLength(2);
    expect(config('stage-0')).toBeUndefined();
    expect(attempt({ jobGraph: graph, vpc })).toThrow('vpc applies to the stages with JDBC lookup tables, and the job graph has none');
    expect(attempt({ jobGraph: graph, securityGroups: [db] })).toThrow('vpcSubnets and securityGroups need vpc (given securityGroups without it)');
  });

  it('grants the probe SQL pipeline (secret-ARN password, DynamoDB table) what its lookups read', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Probe', { env: { account: '123456789012', region: 'us-east-1' } });
    const sql = [
      "CREATE TABLE orders (user_id INT, sku STRING, amount BIGINT, proctime AS PROCTIME()) WITH ('connector' = 'kinesis', 'stream' = 'orders', 'format' = 'json');",
      "CREATE TABLE users (id INT, name STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://db.internal:3306/shop', 'table-name' = 'users', 'username' = 'app',",
      `  'password' = '\${secret:${SECRET_ARN}}');`,
      "CREATE TABLE skus (sku STRING, title STRING) WITH ('connector' = 'dynamodb', 'table-name' = 'shop-skus');",
      "CREATE TABLE enriched (user_id INT, name STRING, title STRING, amount BIGINT) WITH ('connector' = 'print');",
      'INSERT INTO enriched SELECT o.user_id, u.name, s.title, o.amount FROM orders o',
      '  JOIN users FOR SYSTEM_TIME AS OF o.proctime AS u ON o.user_id = u.id',
      '  JOIN skus FOR SYSTEM_TIME AS OF o.proctime AS s ON o.sku = s.sku;',
    ].join('\n');
    StreamPipeline.fromSql(stack, 'Probe', sql);
    const statements = Object.values(resourcesOf(Template.fromStack(stack)))
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .flatMap((r) => (r.Properties?.PolicyDocument as { Statement: Statement[] }).Statement);
    expect(allows(statements, 'secretsmanager:GetSecretValue', 'shop/db-AbCdEf')).toBe(true);
    expect(allows(statements, 'dynamodb:BatchGetItem', 'shop-skus')).toBe(true);
  });
});
