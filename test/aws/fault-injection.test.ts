/**
 * Effectively-once under faults (docs/effectively-once.md): Nexmark q15 and q19 on the generated test data,
 * and a join (auctions LEFT JOIN bids, a two-input stage fed by two source streams, with padded
 * rows retracted as bids arrive), source streams of 2 shards, exchanges of 4, run through kinesalite and dynalite with StageHandlers
 * fed by LocalEventSourceMappings, under many random fault schedules (test/aws/faults/
 * fault-injector.ts: crashes before, during and after emit and commit, redelivered batches,
 * duplicated exchange records and sink calls, DynamoDB and Kinesis throttling, two concurrent
 * invocations of one shard, cold starts, batches the event source mapping gives up on). Every
 * schedule's materialized sink result must equal the fault-free result (the plain-TypeScript
 * reference's, which test/aws/nexmark-emulators.test.ts checks fault-free) over the input minus
 * the records of skipped ranges: no loss, no double counting; a sink batch re-sent under the same
 * id must carry identical rows; the only dead letters are `skipped-range` letters, exactly one
 * per batch the mapping discarded, naming a range that holds the discarded records (under a
 * commit interval, the whole interval) — those records, and no others, are missing.
 *
 * Each schedule draws its batch sizes (7..20 per stage), whether the input arrives in one or
 * two puts, and its state settings (half the schedules: pages materialized every few commits,
 * a state cache of a few keys and small page caches — state larger than the cache) from its seed; the injector draws each invocation's fault from `seed/stage/shard`. On
 * a mismatch the seed and the injected faults are printed. Timing across shards is not
 * deterministic, so a seed reproduces the same draws, not always the same interleaving.
 *
 * Environment: FAULT_SCHEDULES (per pipeline, default 200), FAULT_SEED (first seed, default
 * 1000), FAULT_MIN_PER_KIND (default 10), FAULT_CONCURRENCY (schedules run at once, default 3),
 * FAULT_KINDS (comma-separated kinds to draw from, default all), FAULT_VERBOSE (print every schedule),
 * FAULT_POLL_MS (idle poll interval of the mappings, default 5000: drains wake them).
 * The emulators run in a worker thread (one pair for the file) so they use the second core.
 */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorClient as dynamoDbClient } from './dynamodb-emulator.ts';
import { startEmulatorsInWorker } from './faults/emulator-worker.ts';
import type { WorkerEmulators } from './faults/emulator-worker.ts';
import { FAULT_KINDS, FaultInjector, addStats, emptyStats } from './faults/fault-injector.ts';
import type { FaultKind, FaultStats } from './faults/fault-injector.ts';
import { asRecords, auctionLines, bidLines, nexmarkJob } from './faults/nexmark-jobs.ts';
import type { NexmarkQuery } from './faults/nexmark-jobs.ts';
import { IdempotentSink, canonical, runJobOnEmulators } from './faults/pipeline-driver.ts';
import type { JobPhase } from './faults/pipeline-driver.ts';
import { Prng } from './faults/prng.ts';
import { VirtualClock } from './faults/virtual-clock.ts';
import { createRowDecoder } from '../../shared/core/codec.ts';
import { emulatorClient as kinesisClient } from './kinesis-emulator.ts';

const SCHEDULES = Number(process.env.FAULT_SCHEDULES ?? 200);
const FIRST_SEED = Number(process.env.FAULT_SEED ?? 1000);
const MIN_PER_KIND = Number(process.env.FAULT_MIN_PER_KIND ?? 10);
const CONCURRENCY = Number(process.env.FAULT_CONCURRENCY ?? 3);
/** Only these kinds (comma-separated), to narrow a failure down. */
const KINDS = process.env.FAULT_KINDS ? (process.env.FAULT_KINDS.split(',') as FaultKind[]) : FAULT_KINDS;

/** A failed schedule. */
interface Failure {
  readonly seed: number;
  /** One line: seed, settings, first problem. */
  readonly summary: string;
  readonly details: string;
  readonly kinds: ReadonlySet<FaultKind>;
}

let emulators: WorkerEmulators;
let kinesis: KinesisClient;
let dynamoDb: DynamoDBClient;
const fileStarted = Date.now();

beforeAll(async () => {
  emulators = await startEmulatorsInWorker();
  kinesis = kinesisClient(emulators.kinesisEndpoint);
  dynamoDb = dynamoDbClient(emulators.dynamoDbEndpoint);
});

afterAll(async () => {
  kinesis?.destroy();
  dynamoDb?.destroy();
  await emulators?.close();
  console.log(`fault injection: whole file ${((Date.now() - fileStarted) / 1000).toFixed(1)} s`);
});

const lines = bidLines();
const auctions = auctionLines();

/** State-store retries (throttling, UnprocessedItems) without real waiting. */
const noWait = (): Promise<void> => Promise.resolve();

describe('fault-injection helpers', () => {
  it('the idempotent sink applies each batch id once and reports an id re-sent with other rows', async () => {
    const job = await nexmarkJob('q15', 1, 1);
    const spec = job.graph.sinks[0]!;
    const decode = createRowDecoder(spec.schema);
    const row = decode(job.expected[0]);
    const other = decode({ ...job.expected[0], total_bids: 49 });
    const sink = new IdempotentSink(spec);
    const info = { sink: spec.name, stage: 'stage-1', shardId: 'shardId-000000000000', first: '1', last: '2', id: 'b1' };
    sink.write([{ kind: '+I', row }], info);
    sink.write([{ kind: '+I', row }], info);
    expect([sink.applied, sink.repeats, sink.violations]).toEqual([1, 1, []]);
    sink.write([{ kind: '+I', row: other }], info);
    expect(sink.violations).toHaveLength(1);
    expect(canonical(sink.rows())).toEqual(canonical(job.expected));
  });

  it('the join job joins auctions with high bids and pads the others on both sides, across two source streams', async () => {
    const job = await nexmarkJob('join', 4, 2);
    expect(job.graph.stages.map((s) => s.input.type)).toEqual(['source', 'source', 'twoInput']);
    const padded = (column: string): number => job.expected.filter((r) => r[column] === null).length;
    expect([padded('bidder') > 0, padded('id') > 0, job.expected.length - padded('bidder') - padded('id') > 0]).toEqual([true, true, true]);
  });

  it('the virtual clock jumps for a lone sleeper and makes a sleeper next to a live invocation wait for it', async () => {
    const clock = new VirtualClock(0);
    const a = {};
    const b = {};
    clock.begin(a);
    await clock.sleep(a, 5_000);
    expect(clock.now()).toBe(5_000);
    clock.begin(b);
    let woke = false;
    const sleeping = clock.sleep(a, 60_000).then(() => (woke = true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    clock.advance(1_000);
    await Promise.resolve();
    expect(woke).toBe(false);
    // b ends: a wakes to look again, without time jumping.
    clock.end(b);
    await sleeping;
    expect(clock.now()).toBe(6_000);
    clock.kill(a);
    let deadWoke = false;
    void clock.sleep(a, 1).then(() => (deadWoke = true));
    clock.advance(10);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(deadWoke).toBe(false);
  });
});

describe.each<NexmarkQuery>(['q15', 'q19', 'join'])('Nexmark %s under random fault schedules', (query) => {
  it(`gives the fault-free result under ${SCHEDULES} schedules`, async () => {
    const job = await nexmarkJob(query, 4, 2);
    const expected = JSON.stringify(canonical(job.expected));
    const totals: FaultStats = emptyStats();
    const failures: Failure[] = [];
    let handlerErrors = 0;
    let sinkRepeats = 0;
    let rangeOverlaps = 0;
    let materializations = 0;
    let deferredBatches = 0;
    let catchUpRecords = 0;
    let skippedLetters = 0;
    let repeatedSkipLetters = 0;
    let skippedInIntervals = 0;
    let skippedRecords = 0;
    let schedulesWithSkips = 0;
    let next = 0;
    const started = Date.now();

    const runSchedule = async (index: number): Promise<void> => {
      const seed = FIRST_SEED + index;
      const prng = new Prng(seed);
      const batchSizes = job.graph.stages.map(() => prng.int(7, 20));
      // State settings: half the schedules materialize pages every few commits (a tiny changelog
      // bound) and keep less state in memory than the job has (a few cached keys, small pages),
      // so materialization, page reloads and evictions all run under the faults.
      const small = prng.chance(0.5);
      const stateSettings = small
        ? { materializeAfterBytes: prng.int(200, 3_000), pageCacheBytes: prng.int(1_000, 20_000), stateStore: { sleep: noWait, maxCachedKeys: prng.int(2, 12) } }
        : { stateStore: { sleep: noWait } };
      // Half the schedules hold batches in commit intervals (2..6 batches, or a virtual 1..120 s),
      // so crashes, cold starts and concurrent containers hit a shard mid-interval and the next
      // owner re-reads the uncommitted records from the stream.
      const commit = prng.chance(0.5) ? { everyBatches: prng.int(2, 6), intervalMs: prng.int(1_000, 120_000) } : undefined;
      const handlerOptions = commit === undefined ? stateSettings : { ...stateSettings, commit };
      const cut = prng.chance(0.5) ? prng.int(1, lines.length - 1) : lines.length;
      // The join reads auctions too: some in the first put, the rest with the second.
      const auctionCut = query === 'join' ? (cut < lines.length ? prng.int(0, auctions.length) : auctions.length) : 0;
      const first = new Map([['bid', asRecords(lines.slice(0, cut))]]);
      if (query === 'join') first.set('auction', asRecords(auctions.slice(0, auctionCut)));
      const phases: JobPhase[] = [{ put: first }];
      if (cut < lines.length) {
        const second = new Map([['bid', asRecords(lines.slice(cut), cut)]]);
        if (query === 'join') second.set('auction', asRecords(auctions.slice(auctionCut), auctionCut));
        phases.push({ put: second });
      }
      const injector = new FaultInjector({ seed, kinds: KINDS });
      const problems: string[] = [];
      try {
        const result = await runJobOnEmulators({
          clients: { kinesis, dynamoDb },
          graph: job.graph,
          code: job.code,
          name: `fi-${query}-${seed}`,
          batchSize: (stage) => batchSizes[job.graph.stages.indexOf(stage)] ?? 7,
          invoker: injector.invoker,
          handlerOptions,
          drainTimeoutMs: 30_000,
          pollIntervalMs: Number(process.env.FAULT_POLL_MS ?? 5_000),
          phases,
        });
        handlerErrors += result.errors.length;
        materializations += result.materializations;
        deferredBatches += result.deferredBatches;
        catchUpRecords += result.catchUpRecords;
        // Skipped ranges: the handler settles each discarded batch with one `skipped-range` letter;
        // its records (and only they) are missing from the result.
        // Dead letters are sent before the commit, so a crash after them repeats them (at least
        // once, docs/effectively-once.md "Limits"): one distinct range per discarded batch.
        const allSkipLetters = result.deadLetters.filter((l) => l.kind === 'skipped-range');
        const skipLetters = [...new Map(allSkipLetters.map((l) => [`${l.stage}/${l.shardId}/${l.sequenceNumber}..${l.lastSequenceNumber}`, l])).values()];
        repeatedSkipLetters += allSkipLetters.length - skipLetters.length;
        const others = result.deadLetters.filter((l) => l.kind !== 'skipped-range');
        if (others.length > 0) {
          const first = others[0]!;
          problems.push(`${others.length} dead letters, first: ${first.kind} on ${first.stage} ${first.shardId}: ${first.reason}`);
        }
        const discarded = injector.discarded;
        if (skipLetters.length !== discarded.length) problems.push(`${discarded.length} batches discarded by the mapping, but ${skipLetters.length} distinct skipped ranges in letters: ${skipLetters.map((l) => `${l.stage} ${l.shardId} ${l.sequenceNumber}..${l.lastSequenceNumber}`).join('; ')}`);
        const skipped = { bid: new Set<number>(), auction: new Set<number>() };
        const sourceOf = new Map(job.graph.stages.flatMap((s) => (s.input.type === 'source' ? [[s.id, s.input.source] as const] : [])));
        for (const letter of skipLetters) {
          const source = sourceOf.get(letter.stage);
          const keys = injector.recordsIn(letter.stage, letter.shardId, letter.sequenceNumber, letter.lastSequenceNumber ?? letter.sequenceNumber);
          if (source === undefined || keys.length === 0) problems.push(`skipped-range letter of ${letter.stage} ${letter.shardId} names no delivered source records`);
          if (!letter.reason.includes('gave up on it')) problems.push(`skipped-range letter reason: ${letter.reason}`);
          for (const k of keys) (source === 'auction' ? skipped.auction : skipped.bid).add(Number(k) - 1);
        }
        for (const d of discarded) {
          const set = d.source === 'auction' ? skipped.auction : skipped.bid;
          const missing = d.partitionKeys.filter((k) => !set.has(Number(k) - 1));
          if (missing.length > 0) problems.push(`records ${missing.join(',')} of a discarded batch of ${d.stage} ${d.shardId} are in no skipped-range letter`);
        }
        skippedLetters += skipLetters.length;
        skippedRecords += skipped.bid.size + skipped.auction.size;
        if (skipLetters.length > 0) schedulesWithSkips++;
        if (commit !== undefined) skippedInIntervals += skipLetters.length;
        for (const [stage, stats] of result.mappings) if (stats.discardedRecords > 0) problems.push(`stage ${stage} discarded ${stats.discardedRecords} records`);
        const sink = [...result.sinks.values()][0]!;
        sinkRepeats += sink.repeats;
        rangeOverlaps += sink.rangeOverlaps;
        problems.push(...sink.violations);
        if (sink.view.malformed > 0) problems.push(`${sink.view.malformed} retractions of rows not in the result`);
        const actual = JSON.stringify(canonical(sink.rows()));
        const want = skipLetters.length === 0 ? expected : JSON.stringify(canonical(job.expectedWithout(skipped)));
        if (actual !== want) {
          problems.push(`result differs from the fault-free run${skipLetters.length > 0 ? ` without the ${skipped.bid.size + skipped.auction.size} skipped records` : ''}:\n  expected ${want}\n  actual   ${actual}`);
          if (sink.rangeOverlaps > 0) problems.push(`sink batches with overlapping input ranges: ${sink.overlapDetails.join('; ')}`);
        }
      } catch (error) {
        problems.push(`run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
      addStats(totals, injector.stats);
      if (process.env.FAULT_VERBOSE) console.log(`${query} seed ${seed}:\n${injector.describe()}`);
      if (problems.length > 0) {
        const settings = `${query} seed ${seed} (batch sizes ${batchSizes.join('/')}, input cut at ${cut}, state ${JSON.stringify({ ...stateSettings, stateStore: undefined, maxCachedKeys: stateSettings.stateStore.maxCachedKeys })}, commit ${JSON.stringify(commit ?? 'every batch')})`;
        failures.push({
          seed,
          summary: `${settings}: ${(problems[0] ?? '').split('\n')[0]!.slice(0, 160)}`,
          details: `${settings}:\n${problems.join('\n')}\ninjected faults:\n${injector.describe() || '(none)'}`,
          kinds: new Set(injector.log.map((f) => f.kind)),
        });
      }
    };

    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < SCHEDULES) await runSchedule(next++);
      }),
    );

    const elapsed = (Date.now() - started) / 1000;
    const injected = FAULT_KINDS.map((kind) => `${kind}=${totals.injected[kind]}`).join(' ');
    const total = FAULT_KINDS.reduce((sum, kind) => sum + totals.injected[kind], 0);
    console.log(
      `fault injection ${query}: ${SCHEDULES} schedules (seeds ${FIRST_SEED}..${FIRST_SEED + SCHEDULES - 1}) in ${elapsed.toFixed(1)} s; ` +
        `${totals.invocations} invocations, ${total} faults injected: ${injected}; ` +
        `${totals.timeouts} containers timed out, ${totals.containers} containers, ${handlerErrors} handler errors reported, ` +
        `${sinkRepeats} sink batches re-sent and dropped, ${rangeOverlaps} applied sink batches overlapping an earlier one's input range, ` +
        `${materializations} state materializations, ${deferredBatches} batches held in commit intervals, ${catchUpRecords} uncommitted records re-read after a container switch, ` +
        `${skippedLetters} skipped ranges settled (${skippedInIntervals} under commit intervals, ${repeatedSkipLetters} letters repeated, ${skippedRecords} source records skipped, in ${schedulesWithSkips} schedules); ` +
        `${failures.length} schedules failed`,
    );
    if (failures.length > 0) {
      failures.sort((a, b) => a.seed - b.seed);
      const inFailed = FAULT_KINDS.map((kind) => `${kind}=${failures.filter((f) => f.kinds.has(kind)).length}`).join(' ');
      console.log(
        `${query}: ${failures.length} failed schedules; seeds ${failures.map((f) => f.seed).join(' ')}\n` +
          `schedules among them that injected each kind: ${inFailed}\n` +
          `first 3:\n${failures.slice(0, 3).map((f) => f.details).join('\n\n')}`,
      );
    }
    for (const kind of KINDS) expect.soft(totals.injected[kind], `faults of kind ${kind}`).toBeGreaterThanOrEqual(MIN_PER_KIND);
    expect(materializations, 'state materializations').toBeGreaterThan(0);
    expect(deferredBatches, 'batches held in commit intervals').toBeGreaterThan(0);
    expect(catchUpRecords, 'uncommitted records re-read after a container switch').toBeGreaterThan(0);
    expect(failures.map((f) => f.summary)).toEqual([]);
  }, 600_000);
});
