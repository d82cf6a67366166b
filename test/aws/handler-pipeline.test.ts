/**
 * The Lambda stage handler end to end on emulators: Nexmark q15 with its source in a 2-shard
 * kinesalite stream, stage-0 (Calc) writing a hash exchange stream of N shards, stage-1
 * (GroupAggregate over DynamoDB state in dynalite) writing to a sink callback, each stage fed by
 * a LocalEventSourceMapping exactly as Lambda would feed it. Half the input is processed, then
 * both stages get new handler instances (a cold start: empty caches, fresh readers), so the
 * second half builds on the state in DynamoDB. The sink's materialized final result must equal
 * the reference's result at every exchange parallelism.
 *
 * No +∞ watermark is sent: a Kinesis source is never bounded, and q15 (a group aggregation)
 * emits its updates without one.
 */
import { Buffer } from 'node:buffer';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Pipeline } from '../../shared/api/pipeline.ts';
import { LocalEventSourceMapping } from '../../shared/aws/esm/local-event-source-mapping.ts';
import type { KinesisEventHandler } from '../../shared/aws/esm/types.ts';
import { StageHandler } from '../../shared/aws/handler/stage-handler.ts';
import type { DeadLetter } from '../../shared/aws/stage-input/types.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import { createRowEncoder, type JsonValue } from '../../shared/core/codec.ts';
import type { JobGraph } from '../../shared/plan/job-graph.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import { nexmarkTestData } from '../nexmark/test-data.ts';
import { scanTable } from './dynamodb-emulator.ts';
import { createStream } from './kinesis-emulator.ts';
import { useEmulators } from './use-emulators.ts';

const SOURCE_SHARDS = 2;

let kinesis: KinesisClient;
let dynamoDb: DynamoDBClient;
useEmulators((clients) => ({ kinesis, dynamoDb } = clients));

/** q15's graph with the source stage's parallelism set to the source stream's shard count, as a deployment would. */
async function q15Graph(parallelism: number): Promise<{ graph: JobGraph; pipeline: Pipeline }> {
  const pipeline = ((await import('../../examples/nexmark/q15.ts')) as { default: Pipeline }).default;
  const planned = pipeline.jobGraph({ parallelism });
  const graph: JobGraph = {
    ...planned,
    sources: planned.sources.map((s) => ({ ...s, parallelism: SOURCE_SHARDS })),
    stages: planned.stages.map((s) => (s.input.type === 'source' ? { ...s, parallelism: SOURCE_SHARDS } : s)),
  };
  return { graph, pipeline };
}

/** Puts bid lines into the stream, partition key = line number (1-based). */
async function putLines(streamName: string, lines: readonly string[], firstLineIndex: number): Promise<void> {
  for (let i = 0; i < lines.length; i += 500) {
    const chunk = lines.slice(i, i + 500);
    const out = await kinesis.send(
      new PutRecordsCommand({
        StreamName: streamName,
        Records: chunk.map((line, j) => ({ PartitionKey: String(firstLineIndex + i + j + 1), Data: Buffer.from(line, 'utf8') })),
      }),
    );
    expect(out.FailedRecordCount ?? 0).toBe(0);
  }
}

function mapping(streamName: string, handler: KinesisEventHandler): LocalEventSourceMapping {
  return new LocalEventSourceMapping({
    client: kinesis,
    streamName,
    startingPosition: 'TRIM_HORIZON',
    // Small batches: state must carry across batches (cache and DynamoDB) and exchange bundles.
    batchSize: 7,
    pollIntervalMs: 10,
    shardDiscoveryIntervalMs: 50,
    retryDelayMs: 1,
    handler,
  });
}

/** Rows as sorted canonical strings, so row order does not matter (as test/examples/nexmark.test.ts compares). */
function canonical(rows: readonly Record<string, JsonValue>[]): string[] {
  return rows.map((r) => JSON.stringify(Object.keys(r).sort().map((k) => [k, r[k]]))).sort();
}

const data = nexmarkTestData();
const expected = data.expected('q15');
const lines = data.bidLines;

describe('StageHandler: Nexmark q15 on kinesalite and dynalite', () => {
  it.each([1, 4])('matches the expected result at exchange parallelism %i', async (parallelism) => {
    const { graph, pipeline } = await q15Graph(parallelism);
    expect(graph.stages.map((s) => s.input.type)).toEqual(['source', 'exchange']);
    const [stage0, stage1] = graph.stages as [JobGraph['stages'][number], JobGraph['stages'][number]];
    const sinkSpec = graph.sinks[0]!;
    const sourceStream = `q15-bid-p${parallelism}`;
    const exchangeStream = `q15-exchange-p${parallelism}`;
    const tableName = `q15-state-p${parallelism}`;
    await Promise.all([
      createStream(kinesis, sourceStream, SOURCE_SHARDS),
      createStream(kinesis, exchangeStream, parallelism),
      createStateTable(dynamoDb, tableName),
    ]);

    const view = new MaterializedView({ key: sinkSpec.upsertKey!, columns: sinkSpec.schema.fields.map((f) => f.name), strict: true });
    const deadLetters: DeadLetter[] = [];
    const errors: unknown[] = [];
    const common = {
      graph,
      code: { functions: pipeline.userFunctions },
      dynamoDb,
      tableName,
      onDeadLetters: (letters: readonly DeadLetter[]) => void deadLetters.push(...letters),
      onError: (error: unknown) => void errors.push(error),
    };
    const coldStart = (): [StageHandler, StageHandler] => [
      new StageHandler({ ...common, stageId: stage0.id, kinesis, outputStreams: new Map([[stage1.id, exchangeStream]]) }),
      new StageHandler({ ...common, stageId: stage1.id, kinesis, sink: (rows) => rows.forEach((r) => view.apply(r)) }),
    ];
    const handlers = [coldStart()];
    const current = (): [StageHandler, StageHandler] => handlers[handlers.length - 1]!;
    const esm0 = mapping(sourceStream, (event) => current()[0].handle(event));
    const esm1 = mapping(exchangeStream, (event) => current()[1].handle(event));
    const drain = async (): Promise<void> => {
      await esm0.drain({ timeoutMs: 20_000 });
      // Everything stage-0 wrote is in the exchange stream once its mapping drained.
      await esm1.drain({ timeoutMs: 20_000 });
    };
    const half = Math.floor(lines.length / 2);
    try {
      await Promise.all([esm0.start(), esm1.start()]);
      await putLines(sourceStream, lines.slice(0, half), 0);
      await drain();
      // New containers for both stages: the second half must build on the state in DynamoDB.
      handlers.push(coldStart());
      await putLines(sourceStream, lines.slice(half), half);
      await drain();
    } finally {
      await Promise.all([esm0.stop(), esm1.stop()]);
    }

    expect(errors).toEqual([]);
    expect(deadLetters).toEqual([]);
    const stats = handlers.map(([h0, h1]) => [h0.stats(), h1.stats()] as const);
    expect(stats.map(([s0]) => s0.records)).toEqual([half, lines.length - half]);
    expect(stats.map(([s0]) => s0.outputRows)).toEqual([half, lines.length - half]);
    expect(stats.flatMap(([s0, s1]) => [s0.failedBatches, s1.failedBatches])).toEqual([0, 0, 0, 0]);
    expect(stats.every(([, s1]) => s1.outputRows > 0)).toBe(true);
    const items = await scanTable(dynamoDb, tableName);
    // The aggregate's state is in the stage's changelog (state/shard-state.ts), not one item per key.
    expect(items.some((item) => item.pk?.S?.startsWith(`#clog#${stage1.id}#`))).toBe(true);
    expect(items.some((item) => item.pk?.S?.startsWith(`${stage1.operators[0]!.id}#`))).toBe(false);
    expect(esm1.stats().shards).toSatisfy((shards: object) => Object.keys(shards).length === parallelism);
    const encode = createRowEncoder(sinkSpec.schema);
    expect(canonical(view.rows().map(encode))).toEqual(canonical(expected));
  });
});
