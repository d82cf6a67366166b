/**
 * The effectively-once protocol at its three critical crash points, each on Nexmark q15 through
 * kinesalite and dynalite: a container dies (every later call of it fails, its lease is never
 * released, the next invocation runs on a new container)
 *
 * - after sending its exchange output, before the checkpoint commit → the retry replays the
 *   announced range exactly and the receiver drops the re-sent bundles;
 * - in the middle of sending its exchange output (one PutRecords landed) → same;
 * - after the checkpoint commit, before the lease is released → the next invocation rebuilds the
 *   state from the changelog segments the commits wrote (state/shard-state.ts).
 *
 * The sink applies each batch id once and checks that a re-sent id carries the same rows, as an
 * idempotent sink would. The final result must equal the reference's, and the counters must show
 * that the recovery path in question actually ran.
 */
import { Buffer } from 'node:buffer';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Pipeline } from '../../shared/api/pipeline.ts';
import { LocalEventSourceMapping } from '../../shared/aws/esm/local-event-source-mapping.ts';
import { StageHandler } from '../../shared/aws/handler/stage-handler.ts';
import type { StageHandlerStats } from '../../shared/aws/handler/stage-handler.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import { createRowEncoder, type JsonValue } from '../../shared/core/codec.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import type { JobGraph } from '../../shared/plan/job-graph.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import { nexmarkTestData } from '../nexmark/test-data.ts';
import { createStream } from './kinesis-emulator.ts';
import { useEmulators } from './use-emulators.ts';

let kinesis: KinesisClient;
let dynamoDb: DynamoDBClient;
useEmulators((clients) => ({ kinesis, dynamoDb } = clients));

const data = nexmarkTestData();
const expected = data.expected('q15');
const lines = data.bidLines;

function canonical(rows: readonly Record<string, JsonValue>[]): string[] {
  return rows.map((r) => JSON.stringify(Object.keys(r).sort().map((k) => [k, r[k]]))).sort();
}

/** A command as a wrapper sees it. */
interface Command {
  readonly input: Record<string, unknown>;
  readonly constructor: { readonly name: string };
}

/** Decides, per call of one container, whether it dies before the call, after it, or not at all. */
type CrashRule = (command: Command, calls: Map<string, number>) => 'before' | 'after' | undefined;

class Crashed extends Error {}

/** A container's view of a client: once `dead`, every call fails, as in a process that is gone. */
function mortalClient<C extends { send: unknown }>(client: C, container: { dead: boolean }, rule: CrashRule | undefined): C {
  const send = (client.send as (command: Command) => Promise<unknown>).bind(client);
  const calls = new Map<string, number>();
  const wrapped = Object.create(client) as C;
  (wrapped as unknown as { send: (command: Command) => Promise<unknown> }).send = async (command) => {
    if (container.dead) throw new Crashed('container is dead');
    const name = command.constructor.name;
    calls.set(name, (calls.get(name) ?? 0) + 1);
    const when = rule?.(command, calls);
    if (when === 'before') {
      container.dead = true;
      throw new Crashed(`crash before ${name}`);
    }
    const result = await send(command);
    if (when === 'after') {
      container.dead = true;
      throw new Crashed(`crash after ${name}`);
    }
    return result;
  };
  return wrapped;
}

function isCommit(command: Command): boolean {
  return command.constructor.name === 'UpdateItemCommand' && String(command.input.UpdateExpression).includes('#version = :version');
}

interface Scenario {
  readonly name: string;
  /** Which stage's first container crashes. */
  readonly stage: 0 | 1;
  readonly dynamoDb?: CrashRule;
  readonly kinesis?: CrashRule;
  readonly expectStats: (stats: StageHandlerStats) => void;
}

const scenarios: Scenario[] = [
  {
    name: 'after emit, before commit',
    stage: 0,
    dynamoDb: (command, calls) => (isCommit(command) && (calls.get('UpdateItemCommand') ?? 0) > 6 ? 'before' : undefined),
    expectStats: (stats) => expect(stats.replays).toBe(1),
  },
  {
    name: 'in the middle of emit',
    stage: 0,
    kinesis: (command, calls) => (command.constructor.name === 'PutRecordsCommand' && calls.get('PutRecordsCommand') === 3 ? 'after' : undefined),
    expectStats: (stats) => expect(stats.replays).toBe(1),
  },
  {
    name: 'after commit, before the lease is released',
    stage: 1,
    dynamoDb: (() => {
      let committed = 0;
      return (command: Command) => {
        if (isCommit(command)) return void committed++;
        return command.constructor.name === 'UpdateItemCommand' && committed >= 3 ? 'before' : undefined;
      };
    })(),
    // The successor rebuilds the state from the changelog segments the commits wrote.
    expectStats: (stats) => expect(stats.coldStartSegments).toBeGreaterThanOrEqual(3),
  },
];

describe('StageHandler: effectively-once at the critical crash points (q15, kinesalite + dynalite)', () => {
  it.each(scenarios.map((s, i) => [s.name, i] as const))('%s', async (_name, index) => {
    const scenario = scenarios[index]!;
    const pipeline = ((await import('../../examples/nexmark/q15.ts')) as { default: Pipeline }).default;
    const planned = pipeline.jobGraph({ parallelism: 2 });
    const graph: JobGraph = { ...planned, sources: planned.sources.map((s) => ({ ...s, parallelism: 1 })), stages: planned.stages.map((s) => (s.input.type === 'source' ? { ...s, parallelism: 1 } : s)) };
    const [stage0, stage1] = graph.stages as [JobGraph['stages'][number], JobGraph['stages'][number]];
    const sinkSpec = graph.sinks[0]!;
    const sourceStream = `eo-src-${index}`;
    const exchangeStream = `eo-x-${index}`;
    const tableName = `eo-state-${index}`;
    await Promise.all([createStream(kinesis, sourceStream, 1), createStream(kinesis, exchangeStream, 2), createStateTable(dynamoDb, tableName)]);

    const view = new MaterializedView({ key: sinkSpec.upsertKey!, columns: sinkSpec.schema.fields.map((f) => f.name), strict: true });
    const seen = new Map<string, string>();
    let resent = 0;
    const sink = (rows: readonly ChangeRow[], info: { id: string }): void => {
      const text = JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
      const before = seen.get(info.id);
      if (before !== undefined) {
        expect(text).toBe(before);
        resent++;
        return;
      }
      seen.set(info.id, text);
      for (const row of rows) view.apply(row);
    };

    const stats: StageHandlerStats[][] = [[], []];
    const containers: { handler: StageHandler; state: { dead: boolean } }[] = [];
    const make = (stageIndex: 0 | 1, first: boolean): { handler: StageHandler; state: { dead: boolean } } => {
      const state = { dead: false };
      const crashes = first && scenario.stage === stageIndex;
      const handler = new StageHandler({
        graph,
        code: { functions: pipeline.userFunctions },
        stageId: stageIndex === 0 ? stage0.id : stage1.id,
        dynamoDb: mortalClient(dynamoDb, state, crashes ? scenario.dynamoDb : undefined),
        tableName,
        ...(stageIndex === 0
          ? { kinesis: mortalClient(kinesis, state, crashes ? scenario.kinesis : undefined), outputStreams: new Map([[stage1.id, exchangeStream]]) }
          : { kinesis, sink }),
        onError: () => undefined,
        // The crashing container's lease is short, so its successor does not wait long for it;
        // the successor's own lease must outlast that wait plus its work.
        checkpoint: { leaseMs: first ? 1_000 : 20_000, graceMs: 0, safetyMs: 100, pollMs: 20 },
      });
      return { handler, state };
    };
    containers.push(make(0, true), make(1, true));
    const invoke = (stageIndex: 0 | 1) => async (event: Parameters<StageHandler['handle']>[0]) => {
      const container = containers[stageIndex]!;
      const response = await container.handler.handle(event);
      if (container.state.dead) {
        // Invocations of the stage's other shards may have been in this container too: replace it once.
        if (containers[stageIndex] === container) {
          stats[stageIndex]!.push(container.handler.stats());
          containers[stageIndex] = make(stageIndex, false);
        }
        throw new Error('the container crashed');
      }
      return response;
    };
    const mapping = (streamName: string, stageIndex: 0 | 1): LocalEventSourceMapping =>
      new LocalEventSourceMapping({ client: kinesis, streamName, startingPosition: 'TRIM_HORIZON', batchSize: 5, pollIntervalMs: 10, shardDiscoveryIntervalMs: 50, retryDelayMs: 1, handler: invoke(stageIndex) });
    const esm0 = mapping(sourceStream, 0);
    const esm1 = mapping(exchangeStream, 1);
    try {
      await Promise.all([esm0.start(), esm1.start()]);
      await kinesis.send(new PutRecordsCommand({ StreamName: sourceStream, Records: lines.map((line, i) => ({ PartitionKey: String(i), Data: Buffer.from(line, 'utf8') })) }));
      await esm0.drain({ timeoutMs: 30_000 });
      await esm1.drain({ timeoutMs: 30_000 });
    } finally {
      await Promise.all([esm0.stop(), esm1.stop()]);
    }
    for (const i of [0, 1] as const) stats[i]!.push(containers[i]!.handler.stats());

    const crashed = stats[scenario.stage]!;
    expect(crashed.length).toBe(2);
    scenario.expectStats(crashed[1]!);
    if (scenario.stage === 0) expect(resent).toBe(0);
    expect(canonical(view.rows().map(createRowEncoder(sinkSpec.schema)))).toEqual(canonical(expected));
  });
});
