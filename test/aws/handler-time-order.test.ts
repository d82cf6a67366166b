/**
 * The time-ordered operators' state and timers across a cold start of the Lambda stage handler,
 * on kinesalite and dynalite: a temporal sort, the SESSION table function on its own and an OVER
 * aggregation each hold rows waiting for the watermark when both stages get new handler
 * instances (empty caches, fresh readers). The waiting rows must still come out, in order, when
 * the watermark passes them after the cold start — which needs their timers, persisted per key
 * group with the state (TIMER_OPERATOR_TYPES), not just their rows. The time-bounded joins too:
 * a window join fires a window that was open, an interval join pads the left rows that found no
 * match once the watermark passes their bound.
 */
import { Buffer } from 'node:buffer';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { Pipeline, count, session, tumble } from '../../shared/api/index.ts';
import { col, ge, lit } from '../../shared/plan/expr-build.ts';
import { LocalEventSourceMapping } from '../../shared/aws/esm/local-event-source-mapping.ts';
import { StageHandler } from '../../shared/aws/handler/stage-handler.ts';
import { writeHeartbeats } from '../../shared/aws/heartbeat/heartbeat-writer.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import type { Stream } from '../../shared/api/stream.ts';
import type { JobGraph } from '../../shared/plan/job-graph.ts';
import { createStream } from './kinesis-emulator.ts';
import { useEmulators } from './use-emulators.ts';

let kinesis: KinesisClient;
let dynamoDb: DynamoDBClient;
useEmulators((clients) => ({ kinesis, dynamoDb } = clients));

const SCHEMA = { k: 'STRING NOT NULL', v: 'BIGINT NOT NULL', ts: 'TIMESTAMP(3) NOT NULL' } as const;
type Ev = { k: string; v: number; ts: number };
const ev = (k: string, v: number, ts: number): Ev => ({ k, v, ts });

/** Watermark = max time − 10 ms: the first half's rows all wait; the second half releases them. */
const FIRST: Ev[] = [ev('a', 1, 5), ev('a', 2, 3), ev('b', 3, 8)];
const SECOND: Ev[] = [ev('a', 4, 20), ev('b', 5, 15), ev('a', 6, 30), ev('a', 7, 1)];

let run = 0;

/** Runs `build`'s job (one or two stages): first half, cold start of every stage, second half, end of input. */
async function withColdStart(build: (s: Stream<Ev>) => void): Promise<{ out: ChangeRow[]; late: ChangeRow[]; graph: JobGraph }> {
  const p = new Pipeline(`cold-${++run}`);
  build(p.source('ev', { schema: SCHEMA, watermark: { column: 'ts', outOfOrdernessMs: 10 }, parallelism: 1 }) as unknown as Stream<Ev>);
  const graph = p.jobGraph({ parallelism: 2 });
  const stages = graph.stages;
  // A stage reading the source reads the source stream (a self-join has two such stages); any
  // other reads the stream of its own exchanges.
  const source = `time-order-${run}-source`;
  const streamOf = (stageId: string): string => {
    const stage = stages.find((s) => s.id === stageId)!;
    return stage.input.type === 'source' ? source : `time-order-${run}-${stageId}`;
  };
  const exchangeStages = stages.filter((stage) => stage.input.type !== 'source');
  const tableName = `time-order-state-${run}`;
  await Promise.all([createStream(kinesis, source, 1), ...exchangeStages.map((stage) => createStream(kinesis, streamOf(stage.id), stage.parallelism)), createStateTable(dynamoDb, tableName)]);
  const out: ChangeRow[] = [];
  const late: ChangeRow[] = [];
  const errors: unknown[] = [];
  const common = { graph, code: { functions: p.userFunctions }, dynamoDb, tableName, onError: (e: unknown) => void errors.push(e) };
  const coldStart = (): StageHandler[] =>
    stages.map((stage) =>
      stage.output.type === 'exchange'
        ? new StageHandler({ ...common, stageId: stage.id, kinesis, outputStreams: new Map([[stage.output.toStage, streamOf(stage.output.toStage)]]) })
        : new StageHandler({ ...common, stageId: stage.id, kinesis, sink: (rows) => void out.push(...rows), sideSink: (rows) => void late.push(...rows) }),
    );
  const handlers = [coldStart()];
  const current = (): StageHandler[] => handlers[handlers.length - 1]!;
  const mappings = stages.map(
    (stage, i) =>
      new LocalEventSourceMapping({ client: kinesis, streamName: streamOf(stage.id), startingPosition: 'TRIM_HORIZON', batchSize: 2, pollIntervalMs: 10, shardDiscoveryIntervalMs: 50, retryDelayMs: 1, handler: (event) => current()[i]!.handle(event) }),
  );
  const drain = async (): Promise<void> => {
    // Upstream first: once a stage drained, all it wrote is in the next stream.
    for (const m of mappings) await m.drain({ timeoutMs: 20_000 });
  };
  let line = 0;
  const put = async (events: readonly Ev[]): Promise<void> => {
    const records = events.map((e) => ({ PartitionKey: String(++line), Data: Buffer.from(JSON.stringify({ k: e.k, v: e.v, ts: new Date(e.ts).toISOString().replace('T', ' ').replace('Z', '') }), 'utf8') }));
    expect((await kinesis.send(new PutRecordsCommand({ StreamName: source, Records: records }))).FailedRecordCount ?? 0).toBe(0);
  };
  try {
    await Promise.all(mappings.map((m) => m.start()));
    await put(FIRST);
    await drain();
    expect(out).toEqual([]);
    handlers.push(coldStart());
    await put(SECOND);
    await writeHeartbeats(kinesis, [source], Date.now(), {}, Infinity);
    await drain();
  } finally {
    await Promise.all(mappings.map((m) => m.stop()));
  }
  expect(errors).toEqual([]);
  return { out, late, graph };
}

const values = (rows: readonly ChangeRow[]): number[] => rows.map((r) => r.row.v as number);

describe('StageHandler: time-ordered operators across a cold start', () => {
  it('a temporal sort emits the rows that waited, in time order; the late one goes to its late sink', async () => {
    const { out, late, graph } = await withColdStart((s) => s.sortByTime({ orderBy: ['ts'], lateSink: 'late' }).sinkTo('out'));
    // The one-shard source needs no exchange: the sort runs in the source's stage.
    expect(graph.stages.map((stage) => stage.operators.map((o) => o.type))).toEqual([['TemporalSort']]);
    // By time: 3 (v2), 5 (v1), 8 (v3), 15 (v5), 20 (v4), 30 (v6); ts 1 (v7) arrives after 20 was emitted.
    expect(values(out)).toEqual([2, 1, 3, 5, 4, 6]);
    expect(values(late)).toEqual([7]);
  }, 60_000);

  it('the SESSION table function on its own closes the sessions that were open', async () => {
    const { out, late } = await withColdStart((s) => s.window(session('ts', '5 ms', { partitionBy: ['k'] })).withWindowColumns({ lateSink: 'late' }).sinkTo('out'));
    const windows = out.map((r) => [r.row.k, r.row.v, r.row.window_start, r.row.window_end]).sort((x, y) => Number(x[1]) - Number(y[1]));
    // a: 5, 3 → [3, 10); 20 → [20, 25); 30 → [30, 35); 1 → late. b: 8 → [8, 13); 15 → [15, 20).
    expect(windows).toEqual([
      ['a', 1, 3, 10],
      ['a', 2, 3, 10],
      ['b', 3, 8, 13],
      ['a', 4, 20, 25],
      ['b', 5, 15, 20],
      ['a', 6, 30, 35],
    ]);
    expect(values(late)).toEqual([7]);
  }, 60_000);

  it('an OVER aggregation processes the rows that waited', async () => {
    const { out } = await withColdStart((s) => s.over({ partitionBy: ['k'], orderBy: 'ts', frame: { rows: 'unbounded' }, aggregates: { n: count() } }).sinkTo('out'));
    // Per key in time order: a: 3 (v2), 5 (v1), 20 (v4), 30 (v6); b: 8 (v3), 15 (v5). ts 1 is late (dropped, counted).
    expect(out.map((r) => [r.row.v, r.row.n]).sort((x, y) => Number(x[0]) - Number(y[0]))).toEqual([
      [1, 2],
      [2, 1],
      [3, 1],
      [4, 3],
      [5, 2],
      [6, 4],
    ]);
  }, 60_000);

  it('a window join fires the windows that were open', async () => {
    const { out } = await withColdStart((s) => {
      const right = s.calc([{ name: 'k2', expr: col('k') }, { name: 'v2', expr: col('v') }, { name: 'ts2', expr: col('ts') }], ge(col('v'), lit(3)));
      s.window(tumble('ts', '10 ms')).join(right.window(tumble('ts2', '10 ms')), { on: { k: 'k2' } }).sinkTo('out');
    });
    // Windows of 10 ms; the right side keeps v >= 3. [0, 10): b3 ⋈ b3 (open across the cold
    // start); [10, 20): b5 ⋈ b5; [20, 30): a4 ⋈ a4; [30, 40): a6 ⋈ a6. ts 1 (v7) is late.
    expect(out.map((r) => [r.row.k, r.row.v, r.row.v2, r.row.window_start]).sort((x, y) => Number(x[1]) - Number(y[1]))).toEqual([
      ['b', 3, 3, 0],
      ['a', 4, 4, 20],
      ['b', 5, 5, 10],
      ['a', 6, 6, 30],
    ]);
  }, 60_000);

  it('a LEFT interval join pads the left rows whose bound passed after the cold start', async () => {
    const { out } = await withColdStart((s) => {
      const right = s.calc([{ name: 'k2', expr: col('k') }, { name: 'v2', expr: col('v') }, { name: 'ts2', expr: col('ts') }], ge(col('v'), lit(100)));
      s.intervalJoin(right, { on: { k: 'k2' }, between: ['-2 ms', '2 ms'], type: 'left' }).sinkTo('out');
    });
    // The right side is empty: every left row comes out padded once the watermark passes its
    // time + 2 ms — the first half's rows only after the cold start (the late ts 1 at once).
    expect(out.map((r) => [r.kind, r.row.v, r.row.v2]).sort((x, y) => Number(x[1]) - Number(y[1]))).toEqual([1, 2, 3, 4, 5, 6, 7].map((v) => ['+I', v, null]));
  }, 60_000);
});
