/**
 * Generator sources deployed with StreamPipeline: a SQL script's VALUES and datagen tables each
 * get a producer function (template: its environment, its grants — its own stream, read and
 * write, and the state table —, its schedule and its alarm), a TypeScript pipeline's generator
 * needs its module or `externalSources`, a rate beyond the stream's shards is warned about; and
 * the producer's bundle, synthesized by the CDK as it deploys it, runs bare as Lambda runs it
 * against kinesalite and dynalite: it puts the VALUES rows keyed by their positions and ends
 * the stream, then finds its generator ended, after a cold start too.
 */
import { Buffer } from 'node:buffer';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import cdkNag from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { Pipeline } from '../../shared/api/index.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import { StreamPipeline } from '../../infra/lib/stream-pipeline.ts';
import type { StreamPipelineProps } from '../../infra/lib/stream-pipeline.ts';
import { startDynalite, emulatorClient as dynamoClient } from '../aws/dynamodb-emulator.ts';
import { createStream, emulatorClient as kinesisClient, readStream, startKinesalite } from '../aws/kinesis-emulator.ts';
import { LambdaContainer, prepareBareBundle } from '../deploy/lambda-container.ts';
import { environmentOf, policyTargetsOfType, resourcesOf, statementsOfFunction } from './template-helpers.ts';

process.env.CDK_VALIDATION = 'false';

const SQL = `CREATE TABLE clicks (user_id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen', 'rows-per-second' = '5', 'fields.user_id.min' = '1', 'fields.user_id.max' = '3');
CREATE TABLE counts (user_id BIGINT, n BIGINT, PRIMARY KEY (user_id) NOT ENFORCED) WITH ('connector' = 'print');
CREATE TABLE greetings (id INT, word STRING) WITH ('connector' = 'print');
INSERT INTO counts SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;
INSERT INTO greetings VALUES (1, 'hello'), (2, 'world');`;

const out = mkdtempSync(join(tmpdir(), 'flambda-producer-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function templateOf(sql: string, props: Parameters<typeof StreamPipeline.fromSql>[3] = {}): { stack: Stack; pipeline: StreamPipeline; template: Template } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Gen');
  const pipeline = StreamPipeline.fromSql(stack, 'Gen', sql, { name: 'gen', ...props });
  return { stack, pipeline, template: Template.fromStack(stack) };
}

const idOf = (stack: Stack, construct: { node: { defaultChild?: unknown } }): string => stack.getLogicalId(construct.node.defaultChild as never);

describe('Construct: StreamPipeline with generator sources', () => {
  it('gives every generator source a producer function: its stream, the state table, a schedule and an alarm', () => {
    const { stack, pipeline, template } = templateOf(SQL);
    expect([...pipeline.producers.keys()].sort()).toEqual(['clicks', 'values_1']);
    const table = idOf(stack, pipeline.stateTable);
    for (const [source, fn] of pipeline.producers) {
      const id = idOf(stack, fn);
      const stream = idOf(stack, pipeline.sourceStreams.get(source) as never);
      expect(environmentOf(template, id)).toMatchObject({
        FLAMBDA_JOB_GRAPH_PATH: './job-graph.json',
        FLAMBDA_STATE_TABLE: { Ref: table },
        FLAMBDA_PIPELINE_MODULE: './pipeline.mjs',
        FLAMBDA_GENERATOR_SOURCE: source,
        FLAMBDA_GENERATOR_STREAM: { Ref: stream },
      });
      // Its own stream only (write, and read back after a crash), and the state table.
      expect([...policyTargetsOfType(template, id, 'AWS::Kinesis::Stream')]).toEqual([stream]);
      expect([...policyTargetsOfType(template, id, 'AWS::DynamoDB::Table')]).toEqual([table]);
      const actions = statementsOfFunction(template, id).flatMap((s) => [s.Action].flat());
      for (const action of ['kinesis:PutRecords', 'kinesis:GetRecords', 'kinesis:GetShardIterator', 'kinesis:ListShards', 'dynamodb:UpdateItem', 'dynamodb:GetItem']) expect(actions).toContain(action);
      template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)', Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [id, 'Arn'] } })] });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmDescription: `gen: the producer of generator source '${source}' failed repeatedly; its rows no longer reach the source stream` });
    }
    // The stages read the source streams as any other; the heartbeat writes to them too.
    template.resourceCountIs('AWS::Lambda::Function', pipeline.jobGraph.stages.length + 1 + 2);
  });

  it('passes cdk-nag AwsSolutionsChecks', () => {
    const { stack } = templateOf(SQL);
    const report = new cdkNag.AwsSolutionsChecks(stack.node.scope as App).validateScope(stack);
    const errors = report.violations.filter((v) => v.severity === 'error' || v.severity === 'fatal');
    expect(errors.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
  });

  it('needs the pipeline module of a TypeScript generator, unless its stream is filled from outside', () => {
    const p = new Pipeline('api');
    p.source('events', { schema: { k: 'INT' }, generator: function* events() {
      yield { k: 1 };
    } }).sinkTo('out');
    const graph = p.jobGraph({ parallelism: 1 });
    const sinks = { out: 'print' } as const;
    const build = (props: Partial<StreamPipelineProps>): StreamPipeline => new StreamPipeline(new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Api'), 'P', { jobGraph: graph, sinkConnectors: sinks, ...props });
    expect(() => build({})).toThrow(
      "generator source 'events' needs a producer function, which takes the generator from the pipeline module: give pipelineModule (the module whose default export defines it), or list it in externalSources to fill the stream from outside",
    );
    expect(() => build({ externalSources: ['nope'] })).toThrow("externalSources names 'nope', which is no generator source of the job graph (generator sources: events)");
    expect(build({ externalSources: ['events'] }).producers.size).toBe(0);
    expect([...build({ pipelineModule: 'some/module.ts' }).producers.keys()]).toEqual(['events']);
  });

  it('warns when rows-per-second is beyond what the source stream takes', () => {
    const fast = SQL.replace("'rows-per-second' = '5'", "'rows-per-second' = '5000'");
    const { stack } = templateOf(fast, { parallelism: 2 });
    Annotations.fromStack(stack).hasWarning('/Gen/Gen', Match.stringLikeRegexp("generator source 'clicks' asks for 5000 rows per second, but its stream of 2 shards takes 2000"));
    expect(Annotations.fromStack(templateOf(SQL, { parallelism: 2 }).stack).findWarning('*', Match.stringLikeRegexp('rows per second'))).toEqual([]);
  });
});

describe('the producer bundle, run as Lambda runs it', () => {
  it('puts the VALUES rows keyed by their positions, ends the stream, and then finds its generator ended', async () => {
    const app = new App({ outdir: join(out, 'cdk.out') });
    const stack = new Stack(app, 'Values');
    const pipeline = StreamPipeline.fromSql(stack, 'Values', "CREATE TABLE greetings (id INT, word STRING) WITH ('connector' = 'print'); INSERT INTO greetings VALUES (1, 'hello'), (2, 'world'), (3, CAST(NULL AS STRING));", {
      name: 'values',
      heartbeat: false,
      dashboard: false,
    });
    app.synth();
    const template = Template.fromStack(stack);
    const fn = pipeline.producers.get('values_1');
    expect(fn).toBeDefined();
    const id = idOf(stack, fn as never);
    const code = resourcesOf(template)[id]?.Properties?.Code as { S3Key: string };
    const assetDir = join(out, 'cdk.out', `asset.${code.S3Key.replace(/\.zip$/, '')}`);
    expect(readdirSync(assetDir).sort()).toEqual(['index.mjs', 'job-graph.json', 'pipeline.mjs']);
    const taskRoot = prepareBareBundle(assetDir, join(out, 'bare'), 'producer');

    const [kinesalite, dynalite] = await Promise.all([startKinesalite(), startDynalite()]);
    const kinesis = kinesisClient(kinesalite.endpoint);
    const dynamoDb = dynamoClient(dynalite.endpoint);
    const containers: LambdaContainer[] = [];
    try {
      await createStream(kinesis, 'values-source', pipeline.jobGraph.sources[0]!.parallelism);
      await createStateTable(dynamoDb, 'values-state');
      const deployed = environmentOf(template, id) as Record<string, unknown>;
      const environment: Record<string, string> = {};
      for (const [name, value] of Object.entries(deployed)) if (typeof value === 'string') environment[name] = value;
      Object.assign(environment, {
        FLAMBDA_STATE_TABLE: 'values-state',
        FLAMBDA_GENERATOR_STREAM: 'values-source',
        AWS_ENDPOINT_URL_KINESIS: kinesalite.endpoint,
        AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
      });
      const resource = resourcesOf(template)[id]?.Properties as { MemorySize: number; Timeout: number; Runtime: string; Handler: string };
      const spec = { name: 'values-producer', arn: 'arn:aws:lambda:us-east-1:123456789012:function:values-producer', environment, memoryMb: resource.MemorySize, timeoutSeconds: resource.Timeout, runtime: resource.Runtime, handler: resource.Handler, taskRoot };
      const container = (): LambdaContainer => {
        const c = new LambdaContainer(spec, { accessKeyId: 'test', secretAccessKey: 'test' }, kinesalite.endpoint);
        containers.push(c);
        return c;
      };
      const first = container();
      expect(await first.invoke({ source: 'aws.events' })).toEqual({ ok: true, result: { status: 'produced', rows: 3, recovered: 0, alreadyPut: 0, next: 3, ended: true, endMarkers: 1 } });
      expect(await first.invoke({ source: 'aws.events' })).toMatchObject({ ok: true, result: { status: 'done', rows: 0, next: 3 } });
      await first.kill();
      expect(await container().invoke({ source: 'aws.events' })).toMatchObject({ ok: true, result: { status: 'done', rows: 0, next: 3 } });

      const records = [...(await readStream(kinesis, 'values-source')).values()].flat();
      expect(records.filter((r) => r.partitionKey !== 'heartbeat').map((r) => [r.partitionKey, Buffer.from(r.data).toString('utf8')])).toEqual([
        ['values_1#1', '{"EXPR$0":1,"EXPR$1":"hello"}'],
        ['values_1#2', '{"EXPR$0":2,"EXPR$1":"world"}'],
        ['values_1#3', '{"EXPR$0":3,"EXPR$1":null}'],
      ]);
      expect(records.at(-1)?.partitionKey).toBe('heartbeat');
      expect(JSON.parse(Buffer.from(records.at(-1)!.data).toString('utf8'))).toMatchObject({ t: 'h', wm: 'Infinity' });
    } finally {
      await Promise.all(containers.map((c) => c.kill()));
      kinesis.destroy();
      dynamoDb.destroy();
      await Promise.all([kinesalite.close(), dynalite.stop()]);
    }
  }, 300_000);
});
