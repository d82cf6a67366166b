/**
 * StreamPipeline props: validation messages and the variants the example app does not use
 * (on-demand streams, imported sources, Kinesis sinks, lookup secrets, per-stage settings).
 * Bundling is skipped (`aws:cdk:bundling-stacks: []`): these tests look at the template only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Duration, Stack } from 'aws-cdk-lib';
import type { CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import type { JobGraph, JobOperator } from '../../shared/plan/job-graph.ts';
import topMerchandise from '../../examples/orders/top-merchandise.ts';
import { StreamPipeline } from '../../infra/lib/stream-pipeline.ts';
import type { StreamPipelineProps } from '../../infra/lib/stream-pipeline.ts';
import { environmentOf, functionOfStage, policyTargetsOfType, statementsOfFunction } from './template-helpers.ts';

process.env.CDK_VALIDATION = 'false';

const REPO_ROOT_FOR_SQL = fileURLToPath(new URL('../..', import.meta.url));

const graph: JobGraph = topMerchandise.jobGraph({ parallelism: 2 });

function synth(props: Partial<StreamPipelineProps>): { stack: Stack; pipeline: StreamPipeline; template: Template } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Test');
  const pipeline = new StreamPipeline(stack, 'P', { jobGraph: graph, ...props } as StreamPipelineProps);
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
    new StreamPipeline(new Stack(app, 'Test'), 'P', props as StreamPipelineProps);
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
      spec: { table, joinType: 'LEFT', keys: [{ probe: 'merchandiseId', lookup: 'id' }] },
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
      new StreamPipeline(stack, 'P', { jobGraph: graph, sourceStreams: { orders } });
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
      new StreamPipeline(stack, 'P', { jobGraph: graphWithLookup('customers'), lookupSecrets: { customers: secret } });
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
