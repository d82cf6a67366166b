/**
 * The example app's Top-N stack, synthesized once with real bundling (local esbuild) and shared
 * by every test of this file: resources, event source mappings, least privilege, monitoring,
 * cdk-nag, cfn-lint and bundle sizes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import type { CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import cdkNag from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadUserCode } from '../../shared/aws/env.ts';
import { STAGE_METRICS } from '../../shared/aws/stage-metrics.ts';
import { Pipeline } from '../../shared/api/index.ts';
import { parseJobGraph } from '../../shared/plan/job-graph.ts';
import type { JobGraph } from '../../shared/plan/job-graph.ts';
import topMerchandise from '../../examples/orders/top-merchandise.ts';
import { TopMerchandiseStack } from '../../infra/lib/example-stacks.ts';
import { StreamPipeline } from '../../infra/lib/stream-pipeline.ts';
import {
  environmentOf,
  functionOfStage,
  idsOfType,
  policyTargetsOfType,
  referencedIds,
  resourcesOf,
  statementsOfFunction,
} from './template-helpers.ts';

/** Upper bound of one function's bundle (the stage handler is ~0.3 MB today). */
const MAX_BUNDLE_BYTES = 5 * 1024 * 1024;

let app: App;
let stack: TopMerchandiseStack;
let template: Template;
let outdir: string;
let other: Stack;
let otherPipeline: StreamPipeline;
let otherTemplate: Template;
let lookupTemplate: Template;

/** A pipeline whose first stage looks up a JSON-lines table (a bundled file on AWS). */
function jsonlLookupGraph(): JobGraph {
  const p = new Pipeline('jsonl-lookup');
  const orders = p.lookupTable('past_orders', { schema: { user_id: 'INT NOT NULL', sname: 'STRING' }, source: { jsonl: 'examples/lookup/orders.jsonl' } });
  p.source('ev', { schema: { user_id: 'INT NOT NULL' } }).lookupJoin(orders, { on: { user_id: 'user_id' }, columns: ['sname'] }).sinkTo('out');
  const planned = p.jobGraph({ parallelism: 1 });
  return { ...planned, sinks: planned.sinks.map((s) => ({ ...s, connector: { type: 'print' } })) };
}

beforeAll(() => {
  // The CDK's built-in CloudFormation validation takes ~25 s per synth; cfn-lint below checks
  // the same template against the resource schemas.
  process.env.CDK_VALIDATION = 'false';
  outdir = mkdtempSync(join(tmpdir(), 'flambda-infra-test-'));
  app = new App({ outdir });
  stack = new TopMerchandiseStack(app, 'TopMerchandise', { parallelism: 2 });
  // A second pipeline in the same app: its functions must get their own job graph.
  other = new Stack(app, 'OtherPipeline');
  otherPipeline = new StreamPipeline(other, 'P', {
    jobGraph: { ...topMerchandise.jobGraph({ parallelism: 3 }), name: 'other' },
    pipelineModule: 'examples/orders/top-merchandise.ts',
  });
  const lookups = new Stack(app, 'Lookups');
  new StreamPipeline(lookups, 'L', { jobGraph: jsonlLookupGraph() });
  template = Template.fromStack(stack);
  otherTemplate = Template.fromStack(other);
  lookupTemplate = Template.fromStack(lookups);
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The bundle directory of a function (its asset, staged in the app's outdir). */
function bundleDirOf(functionId: string): string {
  const code = resourcesOf(template)[functionId]?.Properties?.Code as { S3Key: string };
  return join(outdir, `asset.${code.S3Key.replace(/\.zip$/, '')}`);
}

/** The logical id of a construct's CloudFormation resource, in its own stack. */
function logicalId(construct: IConstruct): string {
  return Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
}

function directoryBytes(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => {
    const path = join(dir, name);
    const stat = statSync(path);
    return sum + (stat.isDirectory() ? directoryBytes(path) : stat.size);
  }, 0);
}

describe('Construct: StreamPipeline (examples/orders/top-merchandise.ts)', () => {
  describe('Resources', () => {
    it('creates one stream per source and per exchange, with the parallelism as shard count, KMS-encrypted', () => {
      const graph = stack.pipeline.jobGraph;
      const exchanges = graph.stages.filter((s) => s.input.type === 'exchange').length;
      expect(graph.sources).toHaveLength(1);
      expect(exchanges).toBe(2);
      template.resourceCountIs('AWS::Kinesis::Stream', graph.sources.length + exchanges);
      const shards = Object.values(resourcesOf(template))
        .filter((r) => r.Type === 'AWS::Kinesis::Stream')
        .map((r) => r.Properties?.ShardCount)
        .sort();
      // orders: 2 shards; stage-1 (hash): 2; stage-2 (global Top-N): 1.
      expect(shards).toEqual([1, 2, 2]);
      template.allResourcesProperties('AWS::Kinesis::Stream', {
        StreamEncryption: { EncryptionType: 'KMS', KeyId: 'alias/aws/kinesis' },
        StreamModeDetails: { StreamMode: 'PROVISIONED' },
      });
    });

    it('deletes its streams with the stack, as its tables (removalPolicy DESTROY: `npm run destroy` leaves nothing billing)', () => {
      template.allResources('AWS::Kinesis::Stream', { DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
      template.allResources('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
    });

    it('creates one function per stage plus the heartbeat: Node 20, arm64, ESM bundle', () => {
      template.resourceCountIs('AWS::Lambda::Function', stack.pipeline.jobGraph.stages.length + 1);
      template.allResourcesProperties('AWS::Lambda::Function', {
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
      });
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: { Variables: Match.objectLike({ FLAMBDA_STAGE_ID: 'stage-2', FLAMBDA_JOB_GRAPH_PATH: './job-graph.json', FLAMBDA_DEAD_LETTER_QUEUE_URL: Match.anyValue() }) },
        MemorySize: 1024,
        Timeout: 60,
      });
    });

    it('maps each stage to its input with partial batch responses, one poller per shard, no skipping and an on-failure queue', () => {
      template.resourceCountIs('AWS::Lambda::EventSourceMapping', 3);
      // Retries and record age unbounded (-1): a failing batch waits for its fix within the
      // stream's retention instead of being skipped (D8, and the wedge of D1 never arises).
      template.allResourcesProperties('AWS::Lambda::EventSourceMapping', {
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ParallelizationFactor: 1,
        BatchSize: 500,
        MaximumBatchingWindowInSeconds: 1,
        StartingPosition: 'TRIM_HORIZON',
        MaximumRetryAttempts: -1,
        MaximumRecordAgeInSeconds: -1,
        BisectBatchOnFunctionError: false,
        DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
      });
      for (const stage of stack.pipeline.jobGraph.stages) {
        const fn = functionOfStage(template, stage.id);
        const mapping = Object.values(resourcesOf(template)).find(
          (r) => r.Type === 'AWS::Lambda::EventSourceMapping' && referencedIds(r.Properties?.FunctionName).has(fn),
        );
        const input = stack.pipeline.stages.get(stage.id)!.input;
        expect([...referencedIds(mapping?.Properties?.EventSourceArn)]).toEqual([logicalId(input)]);
      }
    });

    it('creates the state table on demand with pk/sk, TTL on `ttl`, point-in-time recovery and encryption', () => {
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
      });
    });

    it('writes the leaderboard sink to an upsert table keyed by `pk` and names it in FLAMBDA_SINK_TARGETS', () => {
      template.resourceCountIs('AWS::DynamoDB::Table', 2);
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
      });
      const sinkTable = logicalId(stack.pipeline.sinkTables.get('leaderboard')!);
      const env = environmentOf(template, functionOfStage(template, 'stage-2'));
      expect(referencedIds(env.FLAMBDA_SINK_TARGETS)).toEqual(new Set([sinkTable]));
      expect(referencedIds(environmentOf(template, functionOfStage(template, 'stage-0')).FLAMBDA_SINK_TARGETS).size).toBe(0);
    });

    it('creates an encrypted dead-letter queue that refuses plain HTTP', () => {
      template.resourceCountIs('AWS::SQS::Queue', 1);
      template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, MessageRetentionPeriod: 1209600 });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
      });
    });

    it('runs the heartbeat every minute against the source and exchange streams', () => {
      template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)' });
      const heartbeat = logicalId(stack.pipeline.heartbeatFunction!);
      const streams = new Set([stack.pipeline.sourceStreams.get('orders')!, ...stack.pipeline.exchangeStreams.values()].map(logicalId));
      expect(streams.size).toBe(3);
      expect(referencedIds(environmentOf(template, heartbeat).FLAMBDA_HEARTBEAT_STREAMS)).toEqual(streams);
      expect(policyTargetsOfType(template, heartbeat, 'AWS::Kinesis::Stream')).toEqual(streams);
    });
  });

  describe('Least privilege', () => {
    it("names only the stage's own input and output streams in its policy", () => {
      for (const [id, deployed] of stack.pipeline.stages) {
        const fn = functionOfStage(template, id);
        const expected = new Set([logicalId(deployed.input)]);
        if (deployed.stage.output.type === 'exchange') {
          expected.add(logicalId(stack.pipeline.exchangeStreams.get(deployed.stage.output.toStage)!));
        }
        expect(policyTargetsOfType(template, fn, 'AWS::Kinesis::Stream'), id).toEqual(expected);
      }
    });

    it('grants the state table to every stage and the sink table only to the sink stage', () => {
      const state = logicalId(stack.pipeline.stateTable);
      const sink = logicalId(stack.pipeline.sinkTables.get('leaderboard')!);
      expect(policyTargetsOfType(template, functionOfStage(template, 'stage-0'), 'AWS::DynamoDB::Table')).toEqual(new Set([state]));
      expect(policyTargetsOfType(template, functionOfStage(template, 'stage-1'), 'AWS::DynamoDB::Table')).toEqual(new Set([state]));
      expect(policyTargetsOfType(template, functionOfStage(template, 'stage-2'), 'AWS::DynamoDB::Table')).toEqual(new Set([state, sink]));
    });

    it('reads input without write actions and never uses a bare * resource or a service-wide action', () => {
      for (const id of stack.pipeline.stages.keys()) {
        const statements = statementsOfFunction(template, functionOfStage(template, id));
        for (const s of statements) {
          const actions = [s.Action].flat();
          expect(actions.some((a) => a === '*' || a.endsWith(':*')), `${id}: ${actions.join(', ')}`).toBe(false);
          expect([s.Resource].flat()).not.toContain('*');
        }
        const inputId = logicalId(stack.pipeline.stages.get(id)!.input);
        const onInput = statements.filter((s) => referencedIds(s.Resource).has(inputId)).flatMap((s) => [s.Action].flat());
        expect(onInput).not.toContain('kinesis:PutRecords');
      }
    });
  });

  describe('Monitoring', () => {
    it('draws every stage metric of STAGE_METRICS, Lambda iterator age and the lookup hit-rate expression', () => {
      const body = JSON.stringify(Object.values(resourcesOf(template)).find((r) => r.Type === 'AWS::CloudWatch::Dashboard')?.Properties?.DashboardBody);
      for (const name of Object.values(STAGE_METRICS)) expect(body, name).toContain(`\\"${name}\\"`);
      for (const name of ['IteratorAge', 'Invocations', 'Errors', 'Throttles', 'Duration', 'ApproximateNumberOfMessagesVisible']) expect(body).toContain(name);
      expect(body).toContain('100 * FILL(hits, 0) / (FILL(hits, 0) + FILL(misses, 0))');
      // Powertools adds `service` to the Pipeline and Stage dimensions (rendered sorted).
      expect(body).toContain('\\"Pipeline\\",\\"top-merchandise\\",\\"Stage\\",\\"stage-1\\",\\"service\\",\\"top-merchandise\\"');
    });

    it('alarms per stage on iterator age, errors, failed batches and skipped ranges, and on the DLQ depth and heartbeat errors', () => {
      const stages = stack.pipeline.jobGraph.stages.length;
      template.resourceCountIs('AWS::CloudWatch::Alarm', stages * 4 + 2);
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'IteratorAge', Threshold: 60000, Statistic: 'Maximum' });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1 });
      const alarms = Object.values(resourcesOf(template)).filter((r) => r.Type === 'AWS::CloudWatch::Alarm').map((r) => r.Properties as Record<string, unknown>);
      const on = (metric: string) => alarms.filter((a) => a.MetricName === metric);
      // The handler's own metrics, with the exact dimensions Powertools publishes them under.
      for (const [metric, periods] of [['FailedBatches', 3], ['SkippedRanges', 1]] as const) {
        expect(on(metric)).toHaveLength(stages);
        for (const alarm of on(metric)) {
          expect(alarm).toMatchObject({ Namespace: 'Flambda', Statistic: 'Sum', Threshold: 1, EvaluationPeriods: periods, Period: 60 });
          expect((alarm.Dimensions as { Name: string }[]).map((d) => d.Name).sort()).toEqual(['Pipeline', 'Stage', 'service']);
        }
      }
      // Errors: one per stage function, plus the heartbeat's.
      const errors = on('Errors');
      expect(errors).toHaveLength(stages + 1);
      const heartbeat = logicalId(stack.pipeline.heartbeatFunction!);
      expect(errors.filter((a) => JSON.stringify(a.Dimensions).includes(heartbeat))).toHaveLength(1);
      // No alarm action without alarmActions / alarmTopic.
      for (const alarm of alarms) expect(alarm.AlarmActions).toBeUndefined();
    });
  });

  describe('Bundles', () => {
    it('bundles the job graph next to each stage handler', () => {
      for (const id of stack.pipeline.stages.keys()) {
        const dir = bundleDirOf(functionOfStage(template, id));
        const graph = parseJobGraph(readFileSync(join(dir, 'job-graph.json'), 'utf8'));
        expect(graph.name).toBe('top-merchandise');
        expect(graph.sinks.find((s) => s.name === 'leaderboard')?.connector).toEqual({ type: 'dynamodb' });
        expect(readdirSync(dir).sort()).toEqual(['index.mjs', 'job-graph.json']);
      }
    });

    it('keeps every function bundle small and free of CDK, SQL parser and test code', () => {
      const sizes: Record<string, number> = {};
      const functions = idsOfType(template, 'AWS::Lambda::Function');
      for (const fn of functions) {
        const dir = bundleDirOf(fn);
        sizes[fn] = directoryBytes(dir);
        const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
        for (const banned of ['aws-cdk-lib', 'vitest', 'cdk-nag']) expect(code, `${fn} contains ${banned}`).not.toContain(banned);
        expect(sizes[fn]).toBeLessThan(MAX_BUNDLE_BYTES);
      }
      console.log(`bundle sizes (bytes): ${JSON.stringify(sizes)}`);
    });

    it('bundles another pipeline of the same app with its own job graph', () => {
      const code = (id: string): string => (resourcesOf(otherTemplate)[id]?.Properties?.Code as { S3Key: string }).S3Key;
      const fn = logicalId(otherPipeline.stages.get('stage-0')!.function);
      expect(code(fn)).not.toBe((resourcesOf(template)[functionOfStage(template, 'stage-0')]?.Properties?.Code as { S3Key: string }).S3Key);
      const graph = parseJobGraph(readFileSync(join(outdir, `asset.${code(fn).replace(/\.zip$/, '')}`, 'job-graph.json'), 'utf8'));
      expect(graph.name).toBe('other');
    });

    it('bundles the JSON-lines file of a jsonl lookup table where FLAMBDA_LOOKUP_FILES points (D4)', () => {
      const fn = functionOfStage(lookupTemplate, 'stage-0');
      expect(environmentOf(lookupTemplate, fn).FLAMBDA_LOOKUP_FILES).toBe('{"past_orders":"./lookup/past_orders.jsonl"}');
      const dir = join(outdir, `asset.${(resourcesOf(lookupTemplate)[fn]?.Properties?.Code as { S3Key: string }).S3Key.replace(/\.zip$/, '')}`);
      expect(readdirSync(dir).sort()).toEqual(['index.mjs', 'job-graph.json', 'lookup']);
      expect(readFileSync(join(dir, 'lookup/past_orders.jsonl'), 'utf8')).toBe(readFileSync('examples/lookup/orders.jsonl', 'utf8'));
    });

    it('bundles the pipeline module next to the handler, loadable as the handler loads it', async () => {
      const fn = logicalId(otherPipeline.stages.get('stage-1')!.function);
      expect(environmentOf(otherTemplate, fn).FLAMBDA_PIPELINE_MODULE).toBe('./pipeline.mjs');
      const dir = join(outdir, `asset.${(resourcesOf(otherTemplate)[fn]?.Properties?.Code as { S3Key: string }).S3Key.replace(/\.zip$/, '')}`);
      expect(readdirSync(dir).sort()).toEqual(['index.mjs', 'job-graph.json', 'pipeline.mjs']);
      const code = await loadUserCode(join(dir, 'pipeline.mjs'));
      expect(code.functions).toBeInstanceOf(Map);
    });
  });

  describe('Checks', () => {
    it('passes cdk-nag AwsSolutionsChecks with every acknowledgement explained', () => {
      const report = new cdkNag.AwsSolutionsChecks(app).validateScope(stack);
      const errors = report.violations.filter((v) => v.severity === 'error' || v.severity === 'fatal');
      expect(errors.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
      const acknowledged: { id: string; reason: string }[] = [];
      const walk = (c: IConstruct): void => {
        for (const entry of c.node.metadata) {
          if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
          for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) acknowledged.push({ id, reason });
        }
        c.node.children.forEach(walk);
      };
      walk(stack);
      expect(acknowledged.length).toBeGreaterThan(0);
      for (const a of acknowledged) expect(a.reason.length, a.id).toBeGreaterThan(40);
    });

    it('passes cfn-lint, except the warnings and findings justified here', () => {
      // W3005: the CDK adds DependsOn on the role's default policy next to the GetAtt of the role
      //   (so the policy exists before the event source mapping validates permissions); redundant
      //   for the role itself, harmless.
      const justified = new Set(['W3005']);
      const file = join(outdir, 'top-merchandise.template.json');
      writeFileSync(file, JSON.stringify(template.toJSON()));
      const run = spawnSync('cfn-lint', ['--format', 'json', '--', file], { encoding: 'utf8' });
      expect(run.error).toBeUndefined();
      const findings = JSON.parse(run.stdout || '[]') as { Rule: { Id: string }; Message: string }[];
      const unjustified = findings.filter((f) => !justified.has(f.Rule.Id));
      expect(unjustified.map((f) => `${f.Rule.Id} ${f.Message}`)).toEqual([]);
      // Exit status is a bit mask (2 errors, 4 warnings, 8 informational): nothing else failed.
      expect(run.status === 0 || findings.length > 0).toBe(true);
    });
  });
});
