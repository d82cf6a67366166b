/**
 * A seeded fault schedule for stage handlers run by {@link runJobOnEmulators}: an
 * {@link InvokerFactory} that runs every batch in a simulated Lambda *container* (one
 * {@link StageHandler} with wrapped DynamoDB and Kinesis clients and a wrapped sink) and, per
 * invocation, draws at most one fault from a PRNG seeded by `seed/stage/shard`:
 *
 * | kind | what happens |
 * |---|---|
 * | `crash-before-emit` | the container dies at its first emit call (PutRecords or sink), which does not land |
 * | `crash-mid-emit` | dies at emit call k (1..2), after the call landed (or, for k = 2, before) |
 * | `crash-after-emit` | dies at the first DynamoDB write after an emit, which does not land |
 * | `crash-mid-commit` | dies at DynamoDB write k (1..3) after an emit; the write lands first or not |
 * | `crash-after-commit` | dies when the handler has finished, before it returns |
 * | `redeliver` | after a successful invocation, the same event is invoked again (same or new container) |
 * | `redeliver-overlap` | a prefix of the event is invoked first; after its success the whole event |
 * | `duplicate-entry` | a PutRecords call lands, but reports some entries throttled: the writer re-sends them |
 * | `duplicate-call` | a PutRecords or sink call lands, then fails (timeout / 500): it is sent again |
 * | `ddb-throttle` | DynamoDB call k (1..4) throws ProvisionedThroughputExceededException or ThrottlingException |
 * | `ddb-unprocessed` | the first BatchWriteItem writes only part of its items and returns the rest as UnprocessedItems |
 * | `kinesis-entry-throttle` | PutRecords call k: some entries fail with ProvisionedThroughputExceededException (not written) |
 * | `kinesis-call-throttle` | PutRecords call k throws ProvisionedThroughputExceededException (nothing written) |
 * | `concurrent` | a second, new container runs the same event at once (started after the first made r calls); one result is returned |
 * | `cold-start` | the invocation runs in a new container (empty caches) |
 * | `skip-range` | the mapping gives up on a batch: the container dies at its first emit call (after the handler announced the batch's range, or under a commit interval the whole interval's), which does not land; the retry of the batch is discarded (it returns success without reaching a container, as a mapping past `MaximumRetryAttempts` moves on), and the mapping delivers the next records, whose event must settle the skipped range (a `skipped-range` dead letter). Only on a source stage, in a batch's first attempt after a successful invocation of the shard, and only when the shard holds a record after the retry (else the retry runs) |
 * | `timeout` | Lambda's timeout with a request in flight: write or emit call k (1..6) is held, the invocation times out at its deadline (the mapping sees the failure, the container is gone), and the held call lands within the grace period after the deadline, before the next owner may take the shard |
 *
 * A crash is a process death: the container's clients reject that call (unless it "lands then
 * crashes") and every later one, the invocation fails towards the mapping whatever the handler
 * returns, the container's sleeps never return, and the next invocation of the shard gets a new
 * container (a cold start).
 *
 * Time. Each stage shard has a {@link VirtualClock} that drives the handlers' lease clock
 * (`checkpoint: { now, sleep }`): every client call takes {@link FaultInjectorOptions.callLatencyMs}
 * of virtual time, and a sleeping invocation alone on its shard (the lease holder crashed) jumps
 * ahead at once; next to a live concurrent invocation it waits until that one ends. An
 * invocation's deadline is its virtual start + `timeoutMs`, which is also its lease
 * (`getRemainingTimeInMillis` counts virtual time, `leaseMs` = `timeoutMs`): a call issued at or
 * after it kills the container as Lambda's timeout would — a zombie never delivers a write after
 * its deadline. Such kills are counted as `timeouts` (not injected faults).
 *
 * A batch that already failed `maxFaultyAttempts` times gets no more faults, so every batch
 * eventually goes through.
 */
import {
  InternalFailureException,
  ProvisionedThroughputExceededException as KinesisThroughputExceeded,
  GetRecordsCommand,
  GetShardIteratorCommand,
  PutRecordsCommand,
} from '@aws-sdk/client-kinesis';
import type { KinesisClient, PutRecordsCommandOutput, PutRecordsResultEntry } from '@aws-sdk/client-kinesis';
import {
  BatchWriteItemCommand,
  ProvisionedThroughputExceededException as DynamoThroughputExceeded,
  ThrottlingException as DynamoThrottling,
} from '@aws-sdk/client-dynamodb';
import type { BatchWriteItemCommandOutput } from '@aws-sdk/client-dynamodb';
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import type { KinesisEventHandler } from '../../../shared/aws/esm/types.ts';
import type { SinkCallback, StageHandler } from '../../../shared/aws/handler/stage-handler.ts';
import { shardIdOf, streamNameOf } from '../../../shared/aws/stage-input/kinesis-records.ts';
import type { DynamoDbSender } from '../../../shared/aws/state/table-io.ts';
import type { InvokerFactory, StageRuntime } from './pipeline-driver.ts';
import { invokeHandler } from './pipeline-driver.ts';
import { Prng } from './prng.ts';
import { VirtualClocks } from './virtual-clock.ts';
import type { VirtualClock } from './virtual-clock.ts';

/** The faults a schedule can inject; see the module documentation. */
export const FAULT_KINDS = [
  'crash-before-emit',
  'crash-mid-emit',
  'crash-after-emit',
  'crash-mid-commit',
  'crash-after-commit',
  'redeliver',
  'redeliver-overlap',
  'duplicate-entry',
  'duplicate-call',
  'ddb-throttle',
  'ddb-unprocessed',
  'kinesis-entry-throttle',
  'kinesis-call-throttle',
  'concurrent',
  'cold-start',
  'timeout',
  'skip-range',
] as const;

/** One kind of fault. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Kinds that need a Kinesis exchange output (PutRecords). */
const EXCHANGE_ONLY: ReadonlySet<FaultKind> = new Set(['duplicate-entry', 'kinesis-entry-throttle', 'kinesis-call-throttle']);

/**
 * Relative draw weights (default 1): kinds that can only fire in some invocations (exchange
 * output, a state flush) are drawn more often, so every kind is well represented.
 */
const WEIGHTS: Partial<Record<FaultKind, number>> = { 'duplicate-entry': 2, 'kinesis-entry-throttle': 2, 'kinesis-call-throttle': 2, 'ddb-unprocessed': 2, 'skip-range': 2 };

/** DynamoDB commands that write. */
const DYNAMO_WRITES: ReadonlySet<string> = new Set(['BatchWriteItemCommand', 'UpdateItemCommand', 'PutItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand']);

/** Options of {@link FaultInjector}. */
export interface FaultInjectorOptions {
  /** The schedule's seed: the same seed draws the same faults for the same invocations. */
  readonly seed: number;
  /** Probability that an invocation gets a fault, 0..1. @default 0.4 */
  readonly rate?: number;
  /** Kinds to draw from. @default FAULT_KINDS */
  readonly kinds?: readonly FaultKind[];
  /** Failed attempts of one batch after which it gets no more faults. @default 2 */
  readonly maxFaultyAttempts?: number;
  /** Virtual Lambda timeout per invocation = its lease, ms. @default 60000 */
  readonly timeoutMs?: number;
  /** Virtual time each client call takes, ms. @default 1000 */
  readonly callLatencyMs?: number;
  /** The handlers' `checkpoint.graceMs`. @default 1000 */
  readonly graceMs?: number;
  /** The handlers' `checkpoint.safetyMs`. @default 500 */
  readonly safetyMs?: number;
}

/** One injected fault, for the schedule's log. */
export interface InjectedFault {
  readonly kind: FaultKind;
  /** `stage/shard`. */
  readonly at: string;
  /** The invocation's number on its shard (1-based) and its record range. */
  readonly invocation: number;
  readonly range: string;
  readonly detail: string;
  /** How it ended, when known afterwards (e.g. each container's outcome of a `concurrent` fault). */
  outcome?: string;
}

/** Thrown by a dead container's clients; also what the mapping sees from a crashed invocation. */
export class InjectedCrash extends Error {
  override readonly name = 'InjectedCrash';
}

/** The fault an invocation runs with. */
interface Plan {
  readonly kind: FaultKind | undefined;
  /** Which call (1-based) the fault hits. */
  readonly k: number;
  /** A crash at a call lands the call first. */
  readonly land: boolean;
  /** For log lines. */
  readonly label: { readonly at: string; readonly invocation: number; readonly range: string };
  /** A `skip-range` plan: the batch's retry key (`key|first sequence number`). */
  readonly attemptKey?: string;
}

/** A batch whose retry the mapping discards (`skip-range`), armed when its container died. */
interface ArmedSkip {
  readonly log: InjectedFault;
}

/** Records the mapping discarded for a `skip-range` fault: the retry event it never delivered to a container. */
export interface DiscardedEvent {
  readonly stage: string;
  readonly shardId: string;
  /** The source the stage reads. */
  readonly source: string;
  /** The discarded records' partition keys (the suite's 1-based line numbers). */
  readonly partitionKeys: readonly string[];
}

const NO_FAULT = (label: Plan['label']): Plan => ({ kind: undefined, k: 0, land: false, label });

/** An invocation running in a container. */
class Invocation {
  emits = 0;
  writesAfterEmit = 0;
  writesAndEmits = 0;
  dynamoCalls = 0;
  putCalls = 0;
  calls = 0;
  unprocessedDone = false;
  crash: (error: InjectedCrash) => void = () => {};
  readonly crashed: Promise<never>;
  /** Called after each call; the concurrent fault waits on it. */
  onCall: (() => void) | undefined;

  constructor(
    readonly plan: Plan,
    readonly deadline: number,
  ) {
    this.crashed = new Promise<never>((_, reject) => (this.crash = reject));
    this.crashed.catch(() => {});
  }
}

/** A simulated Lambda container: one handler, wrapped clients, alive until it crashes. */
class Container {
  private static next = 1;
  readonly id = Container.next++;
  dead = false;
  invocation: Invocation | undefined;
  handler!: StageHandler;

  constructor(
    readonly key: string,
    readonly clock: VirtualClock,
  ) {}
}

/** Counters of a schedule. */
export interface FaultStats {
  /** Faults injected (that actually fired), by kind. */
  readonly injected: Record<FaultKind, number>;
  /** Invocations the mappings made. */
  invocations: number;
  /** Containers killed because they issued a call at or after their deadline. */
  timeouts: number;
  /** Containers created (cold starts). */
  containers: number;
}

/** Sums {@link FaultStats}. */
export function addStats(into: FaultStats, from: FaultStats): void {
  for (const kind of FAULT_KINDS) into.injected[kind] += from.injected[kind];
  into.invocations += from.invocations;
  into.timeouts += from.timeouts;
  into.containers += from.containers;
}

/** Zeroed {@link FaultStats}. */
export function emptyStats(): FaultStats {
  return { injected: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>, invocations: 0, timeouts: 0, containers: 0 };
}

/** A seeded fault schedule; pass {@link FaultInjector.invoker} to {@link runJobOnEmulators}. */
export class FaultInjector {
  readonly stats: FaultStats = emptyStats();
  /** Every injected fault, in order. */
  readonly log: InjectedFault[] = [];
  private readonly options: Required<FaultInjectorOptions>;
  private readonly clocks = new VirtualClocks();
  private readonly containers = new Map<string, Container>();
  private readonly prngs = new Map<string, Prng>();
  private readonly invocationsByKey = new Map<string, number>();
  /** Failed attempts per `key|first sequence number`. */
  private readonly failures = new Map<string, number>();
  /** Keys whose last invocation failed: a `skip-range` waits for a success (no replay of another fault's range in flight). */
  private readonly lastFailed = new Set<string>();
  /** Armed `skip-range` faults by `key|first sequence number`. */
  private readonly armed = new Map<string, ArmedSkip>();
  /** Source stages: every record delivered, by key, sequence number → partition key (to name the records of a skipped range). */
  private readonly delivered = new Map<string, Map<string, string>>();
  /** Retry events the mapping discarded (`skip-range`), in order. */
  readonly discarded: DiscardedEvent[] = [];

  constructor(options: FaultInjectorOptions) {
    this.options = {
      seed: options.seed,
      rate: options.rate ?? 0.4,
      kinds: options.kinds ?? FAULT_KINDS,
      maxFaultyAttempts: options.maxFaultyAttempts ?? 2,
      timeoutMs: options.timeoutMs ?? 60_000,
      callLatencyMs: options.callLatencyMs ?? 1_000,
      graceMs: options.graceMs ?? 1_000,
      safetyMs: options.safetyMs ?? 500,
    };
  }

  /** The schedule as text (one line per injected fault), to reproduce a failure. */
  describe(): string {
    return this.log.map((f) => `${f.at} #${f.invocation} [${f.range}] ${f.kind} ${f.detail}${f.outcome ? ` → ${f.outcome}` : ''}`).join('\n');
  }

  /** The invoker factory for {@link runJobOnEmulators}. */
  readonly invoker: InvokerFactory = (runtime) => {
    const handler: KinesisEventHandler = (event, context) => this.invoke(runtime, event, context);
    return handler;
  };

  // ── invocations ─────────────────────────────────────────────────────────────────────────

  private async invoke(runtime: StageRuntime, event: KinesisStreamEvent, context: Context): Promise<KinesisStreamBatchResponse> {
    const records = event.Records;
    const first = records[0];
    if (first === undefined) return this.runIn(this.container(runtime, `${runtime.stage.id}/-`), event, context, NO_FAULT({ at: '-', invocation: 0, range: '' }));
    const key = `${runtime.stage.id}/${shardIdOf(first)}`;
    this.stats.invocations++;
    const n = (this.invocationsByKey.get(key) ?? 0) + 1;
    this.invocationsByKey.set(key, n);
    const firstSeq = first.kinesis.sequenceNumber;
    const lastSeq = (records[records.length - 1] as KinesisStreamRecord).kinesis.sequenceNumber;
    const label = { at: key, invocation: n, range: `${short(firstSeq)}..${short(lastSeq)} (${records.length})` };
    const attemptKey = `${key}|${firstSeq}`;
    const source = runtime.stage.input.type === 'source' ? runtime.stage.input.source : undefined;
    if (source !== undefined) {
      const seen = this.delivered.get(key) ?? new Map<string, string>();
      for (const r of records) seen.set(r.kinesis.sequenceNumber, r.kinesis.partitionKey);
      this.delivered.set(key, seen);
    }
    const armed = this.armed.get(attemptKey);
    if (armed !== undefined && source !== undefined) {
      this.armed.delete(attemptKey);
      if (await this.hasRecordAfter(runtime, first, lastSeq)) {
        // The mapping gives up on the batch: its retry reaches no container, the mapping moves on.
        this.stats.injected['skip-range']++;
        armed.log.outcome = `the mapping discarded the retry ${label.range} and delivers the next records`;
        this.discarded.push({ stage: runtime.stage.id, shardId: shardIdOf(first), source, partitionKeys: records.map((r) => r.kinesis.partitionKey) });
        this.lastFailed.delete(key);
        return { batchItemFailures: [] };
      }
      armed.log.outcome = 'the shard holds nothing after the batch: the mapping retried it';
    }
    const faulty = (this.failures.get(attemptKey) ?? 0) < this.options.maxFaultyAttempts;
    const plan = this.draw(runtime, key, label, faulty, records.length, source !== undefined && faulty && !this.failures.has(attemptKey) && !this.lastFailed.has(key) ? attemptKey : undefined);
    try {
      const response = await this.execute(runtime, key, event, context, plan);
      if (response.batchItemFailures.length > 0) this.failures.set(attemptKey, (this.failures.get(attemptKey) ?? 0) + 1);
      if (response.batchItemFailures.length > 0) this.lastFailed.add(key);
      else this.lastFailed.delete(key);
      return response;
    } catch (error) {
      this.failures.set(attemptKey, (this.failures.get(attemptKey) ?? 0) + 1);
      this.lastFailed.add(key);
      throw error;
    }
  }

  /**
   * The partition keys of the records a source stage shard delivered in `first..last` (sequence
   * numbers, inclusive): what a `skipped-range` dead letter of that shard names.
   */
  recordsIn(stage: string, shardId: string, first: string, last: string): string[] {
    const seen = this.delivered.get(`${stage}/${shardId}`);
    if (seen === undefined) return [];
    const [lo, hi] = [BigInt(first), BigInt(last)];
    return [...seen].filter(([seq]) => BigInt(seq) >= lo && BigInt(seq) <= hi).map(([, partitionKey]) => partitionKey);
  }

  /** Whether the record's shard holds a record after `last`: the mapping would deliver it after discarding a batch. */
  private async hasRecordAfter(runtime: StageRuntime, record: KinesisStreamRecord, last: string): Promise<boolean> {
    const kinesis = runtime.clients.kinesis;
    const iterator = await kinesis.send(
      new GetShardIteratorCommand({ StreamName: streamNameOf(record), ShardId: shardIdOf(record), ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', StartingSequenceNumber: last }),
    );
    const out = await kinesis.send(new GetRecordsCommand({ ShardIterator: iterator.ShardIterator, Limit: 1 }));
    return (out.Records ?? []).length > 0;
  }

  /** `skipKey`: the batch may get a `skip-range` fault (its retry key), see the module documentation. */
  private draw(runtime: StageRuntime, key: string, label: Plan['label'], faulty: boolean, size: number, skipKey: string | undefined): Plan {
    const prng = this.prng(key);
    // Always the same number of draws, so one invocation's choice does not shift the next ones.
    const roll = prng.next();
    const pick = prng.next();
    const k = prng.int(1, 4);
    const k6 = prng.int(1, 6);
    const land = prng.chance(0.5);
    if (!faulty || roll >= this.options.rate) return NO_FAULT(label);
    const exchange = runtime.stage.output.type === 'exchange';
    const kinds = this.options.kinds.filter(
      (kind) => (exchange || !EXCHANGE_ONLY.has(kind)) && (kind !== 'redeliver-overlap' || size >= 2) && (kind !== 'skip-range' || skipKey !== undefined),
    );
    if (kinds.length === 0) return NO_FAULT(label);
    const total = kinds.reduce((sum, kind) => sum + (WEIGHTS[kind] ?? 1), 0);
    let at = pick * total;
    const kind = kinds.find((candidate) => (at -= WEIGHTS[candidate] ?? 1) < 0) ?? (kinds[kinds.length - 1] as FaultKind);
    // Most invocations make one emit call: aim at the first one three times in four.
    const emitCall = k <= 3 ? 1 : 2;
    switch (kind) {
      case 'crash-mid-emit':
        // Emit call 1 without landing is crash-before-emit.
        return { kind, k: emitCall, land: land || emitCall === 1, label };
      case 'crash-mid-commit':
        // Write 1 after the emit without landing is crash-after-emit.
        return { kind, k: Math.min(k, 3), land: land || k === 1, label };
      case 'kinesis-entry-throttle':
      case 'kinesis-call-throttle':
      case 'duplicate-entry':
      case 'duplicate-call':
        return { kind, k: emitCall, land, label };
      case 'timeout':
        return { kind, k: k6, land, label };
      case 'skip-range':
        return { kind, k: 1, land: false, label, attemptKey: skipKey };
      default:
        return { kind, k, land, label };
    }
  }

  private fire(plan: Plan, detail: string): InjectedFault | undefined {
    const kind = plan.kind;
    if (kind === undefined) return undefined;
    this.stats.injected[kind]++;
    const fault: InjectedFault = { kind, at: plan.label.at, invocation: plan.label.invocation, range: plan.label.range, detail };
    this.log.push(fault);
    return fault;
  }

  /** Runs the invocation's plan: which containers run what, and which result goes back. */
  private async execute(runtime: StageRuntime, key: string, event: KinesisStreamEvent, context: Context, plan: Plan): Promise<KinesisStreamBatchResponse> {
    const none = NO_FAULT(plan.label);
    switch (plan.kind) {
      case 'cold-start': {
        this.fire(plan, '');
        this.containers.delete(key);
        return this.runIn(this.container(runtime, key), event, context, none);
      }
      case 'redeliver': {
        const first = await this.runIn(this.container(runtime, key), event, context, none);
        if (first.batchItemFailures.length > 0) return first;
        const fresh = this.prng(key).chance(0.5);
        this.fire(plan, fresh ? 'again in a new container' : 'again in the same container');
        if (fresh) this.containers.delete(key);
        return this.runIn(this.container(runtime, key), event, context, none);
      }
      case 'redeliver-overlap': {
        const cut = this.prng(key).int(1, event.Records.length - 1);
        const prefix = await this.runIn(this.container(runtime, key), { Records: event.Records.slice(0, cut) }, context, none);
        if (prefix.batchItemFailures.length > 0) return prefix;
        this.fire(plan, `first ${cut} of ${event.Records.length} records, then all`);
        return this.runIn(this.container(runtime, key), event, context, none);
      }
      case 'concurrent':
        return this.concurrent(runtime, key, event, context, plan);
      default:
        return this.runIn(this.container(runtime, key), event, context, plan);
    }
  }

  /** Two containers on one event at once; one's result is returned, one stays warm. */
  private async concurrent(runtime: StageRuntime, key: string, event: KinesisStreamEvent, context: Context, plan: Plan): Promise<KinesisStreamBatchResponse> {
    const prng = this.prng(key);
    const a = this.container(runtime, key);
    const b = this.newContainer(runtime, key);
    const after = prng.int(0, 5);
    const returnB = prng.chance(0.5);
    const keepB = prng.chance(0.5);
    const fault = this.fire(plan, `second container starts after ${after} calls of the first; returns ${returnB ? 'second' : 'first'}'s result`);
    let startB: () => void = () => {};
    const bMayStart = new Promise<void>((resolve) => (startB = resolve));
    let callsOfA = 0;
    const runA = this.runIn(a, event, context, NO_FAULT(plan.label), () => {
      if (++callsOfA >= after) startB();
    });
    if (after === 0) startB();
    void runA.then(startB, startB);
    const runB = bMayStart.then(() => this.runIn(b, event, context, NO_FAULT(plan.label)));
    const [ra, rb] = await Promise.allSettled([runA, runB]);
    if (fault !== undefined) fault.outcome = `first ${describeOutcome(ra)}, second ${describeOutcome(rb)}`;
    const alive = [a, b].filter((c) => !c.dead);
    const keep = keepB ? (alive.includes(b) ? b : a) : alive.includes(a) ? a : b;
    if (!keep.dead) this.containers.set(key, keep);
    const chosen = returnB ? rb : ra;
    if (chosen.status === 'rejected') throw chosen.reason;
    return chosen.value;
  }

  /**
   * Runs one invocation in a container. A crash makes it reject at once with
   * {@link InjectedCrash} (the handler's own promise is abandoned; its calls all fail).
   */
  private async runIn(c: Container, event: KinesisStreamEvent, context: Context, plan: Plan, onCall?: () => void): Promise<KinesisStreamBatchResponse> {
    if (c.dead) throw new InjectedCrash(`container ${c.id} is dead`);
    const clock = c.clock;
    const invocation = new Invocation(plan, clock.now() + this.options.timeoutMs);
    invocation.onCall = onCall;
    c.invocation = invocation;
    clock.begin(c);
    const ctx: Context = { ...context, getRemainingTimeInMillis: () => Math.max(0, invocation.deadline - clock.now()) };
    const handled = invokeHandler(c.handler, event, ctx);
    handled.catch(() => {});
    try {
      const response = await Promise.race([handled, invocation.crashed]);
      if (plan.kind === 'crash-after-commit') {
        this.fire(plan, 'after the handler finished, before it returned');
        this.die(c);
        throw new InjectedCrash(`container ${c.id} crashed after its handler returned`);
      }
      return response;
    } finally {
      if (c.invocation === invocation) c.invocation = undefined;
      if (!c.dead) clock.end(c);
    }
  }

  private die(c: Container): void {
    if (c.dead) return;
    c.dead = true;
    c.clock.kill(c);
    if (this.containers.get(c.key) === c) this.containers.delete(c.key);
    c.invocation?.crash(new InjectedCrash(`container ${c.id} crashed`));
  }

  // ── containers and their clients ────────────────────────────────────────────────────────

  private prng(key: string): Prng {
    let prng = this.prngs.get(key);
    if (prng === undefined) {
      prng = new Prng(`${this.options.seed}/${key}`);
      this.prngs.set(key, prng);
    }
    return prng;
  }

  /** The shard's warm container, or a new one. */
  private container(runtime: StageRuntime, key: string): Container {
    const current = this.containers.get(key);
    if (current !== undefined && !current.dead) return current;
    const fresh = this.newContainer(runtime, key);
    this.containers.set(key, fresh);
    return fresh;
  }

  private newContainer(runtime: StageRuntime, key: string): Container {
    const c = new Container(key, this.clocks.get(key));
    this.stats.containers++;
    const { timeoutMs, graceMs, safetyMs } = this.options;
    const participant = c.clock.participant(c);
    c.handler = runtime.createHandler({
      dynamoDb: this.wrapDynamoDb(c, runtime),
      kinesis: this.wrapKinesis(c, runtime),
      wrapSink: (sink) => this.wrapSink(c, sink),
      // pollMs = the timeout: a lone waiter jumps straight to the lease's end; next to a live
      // invocation it is woken when that one ends (virtual-clock.ts).
      checkpoint: { leaseMs: timeoutMs, now: participant.now, sleep: participant.sleep, pollMs: timeoutMs, graceMs, safetyMs },
    });
    return c;
  }

  /**
   * Every call of a container goes through here: the deadline check, the crash plans, the call
   * itself (`perform`, which may inject throttles or duplicates), then the virtual latency.
   */
  private async call<T>(c: Container, kind: 'emit' | 'write' | 'read', perform: (invocation: Invocation | undefined) => Promise<T>): Promise<T> {
    if (c.dead) throw new InjectedCrash(`container ${c.id} is dead`);
    const invocation = c.invocation;
    if (invocation === undefined) return perform(undefined);
    if (c.clock.now() >= invocation.deadline) {
      // Lambda's timeout: the container is gone; this call never leaves it.
      this.stats.timeouts++;
      this.die(c);
      throw new InjectedCrash(`container ${c.id} timed out`);
    }
    const plan = invocation.plan;
    if (kind !== 'read' && ++invocation.writesAndEmits === plan.k && plan.kind === 'timeout') return this.timeOut(c, invocation, kind, perform);
    let crashAfter = false;
    const crashNow = (detail: string): never => {
      this.fire(plan, detail);
      this.die(c);
      throw new InjectedCrash(`container ${c.id} crashed (${plan.kind})`);
    };
    if (kind === 'emit') {
      invocation.emits++;
      if (plan.kind === 'crash-before-emit' && invocation.emits === 1) crashNow('at the first emit call, not landed');
      if (plan.kind === 'skip-range' && invocation.emits === 1 && plan.attemptKey !== undefined) {
        // Logged now, counted when the mapping discards the retry (invoke).
        const log: InjectedFault = { kind: plan.kind, at: plan.label.at, invocation: plan.label.invocation, range: plan.label.range, detail: 'died at the first emit call, not landed' };
        this.log.push(log);
        this.armed.set(plan.attemptKey, { log });
        this.die(c);
        throw new InjectedCrash(`container ${c.id} crashed (${plan.kind})`);
      }
      if (plan.kind === 'crash-mid-emit' && invocation.emits === plan.k) {
        if (!plan.land) crashNow(`at emit call ${plan.k}, not landed`);
        crashAfter = true;
      }
    } else if (kind === 'write' && invocation.emits > 0) {
      invocation.writesAfterEmit++;
      if (plan.kind === 'crash-after-emit' && invocation.writesAfterEmit === 1) crashNow('at the first write after the emit, not landed');
      if (plan.kind === 'crash-mid-commit' && invocation.writesAfterEmit === plan.k) {
        if (!plan.land) crashNow(`at write ${plan.k} after the emit, not landed`);
        crashAfter = true;
      }
    }
    let result: T;
    try {
      result = await perform(invocation);
    } finally {
      c.clock.advance(this.options.callLatencyMs);
      invocation.calls++;
      invocation.onCall?.();
    }
    if (crashAfter) crashNow(kind === 'emit' ? `at emit call ${plan.k}, after it landed` : `at write ${plan.k} after the emit, after it landed`);
    // Another call of the container crashed it while this one was in flight: the answer is lost.
    if (c.dead) throw new InjectedCrash(`container ${c.id} crashed`);
    return result;
  }

  /**
   * The `timeout` fault: the call is held; Lambda times the invocation out at its deadline (the
   * shard's clock moves there, the container is gone, the mapping sees the failure); the held
   * call lands a random time within the grace period after the deadline. The landing takes part
   * in the shard's clock like an invocation, so a next owner waiting for the lease (deadline +
   * grace) cannot fence before it has landed.
   */
  private timeOut<T>(c: Container, invocation: Invocation, kind: 'emit' | 'write', perform: (invocation: Invocation | undefined) => Promise<T>): Promise<T> {
    const clock = c.clock;
    const landAt = invocation.deadline + this.prng(c.key).int(0, this.options.graceMs - 1);
    const fault = this.fire(invocation.plan, `${kind} call ${invocation.plan.k} held in flight; the invocation timed out; the call lands ${landAt - invocation.deadline} ms after the deadline`);
    const delivery = {};
    clock.begin(delivery);
    void (async () => {
      try {
        await clock.sleep(delivery, landAt - clock.now());
        await perform(invocation);
        if (fault !== undefined) fault.outcome = 'the held call landed';
      } catch (error) {
        if (fault !== undefined) fault.outcome = `the held call failed: ${error instanceof Error ? error.message.slice(0, 120) : String(error)}`;
      } finally {
        clock.end(delivery);
      }
    })();
    clock.advanceTo(invocation.deadline);
    this.die(c);
    return Promise.reject(new InjectedCrash(`container ${c.id} timed out with a call in flight`));
  }

  private wrapDynamoDb(c: Container, runtime: StageRuntime): DynamoDbSender {
    const real = runtime.clients.dynamoDb;
    const send = (command: { constructor: { name: string }; input: unknown }): Promise<unknown> => {
      const name = command.constructor.name;
      return this.call(c, DYNAMO_WRITES.has(name) ? 'write' : 'read', async (invocation) => {
        const plan = invocation?.plan;
        const n = invocation === undefined ? 0 : ++invocation.dynamoCalls;
        if (plan?.kind === 'ddb-throttle' && n === plan.k) {
          const throttling = plan.land;
          this.fire(plan, `${name} (call ${n}) threw ${throttling ? 'ThrottlingException' : 'ProvisionedThroughputExceededException'}`);
          const init = { message: 'Injected: the request rate is too high', $metadata: { httpStatusCode: 400, attempts: 3, totalRetryDelay: 0 } };
          throw throttling ? new DynamoThrottling(init) : new DynamoThroughputExceeded(init);
        }
        if (plan?.kind === 'ddb-unprocessed' && invocation !== undefined && !invocation.unprocessedDone && command instanceof BatchWriteItemCommand) {
          invocation.unprocessedDone = true;
          return this.partialBatchWrite(c, real, command, plan);
        }
        return (real.send as (command: unknown) => Promise<unknown>)(command);
      });
    };
    return { send } as unknown as DynamoDbSender;
  }

  /** BatchWriteItem that writes some items and returns the others as UnprocessedItems. */
  private async partialBatchWrite(c: Container, real: DynamoDbSender, command: BatchWriteItemCommand, plan: Plan): Promise<BatchWriteItemCommandOutput> {
    const prng = this.prng(c.key);
    const requestItems = command.input.RequestItems ?? {};
    const written: typeof requestItems = {};
    const unprocessed: typeof requestItems = {};
    let total = 0;
    let left = 0;
    for (const [table, requests] of Object.entries(requestItems)) {
      const keep = requests.length <= 1 ? [] : prng.subset(requests.length).slice(0, requests.length - 1);
      const kept = new Set(keep);
      written[table] = requests.filter((_, i) => kept.has(i));
      unprocessed[table] = requests.filter((_, i) => !kept.has(i));
      total += requests.length;
      left += unprocessed[table].length;
      if (written[table].length === 0) delete written[table];
    }
    this.fire(plan, `BatchWriteItem left ${left} of ${total} items unprocessed`);
    if (Object.keys(written).length > 0) await real.send(new BatchWriteItemCommand({ ...command.input, RequestItems: written }));
    return { UnprocessedItems: unprocessed, $metadata: { httpStatusCode: 200 } };
  }

  private wrapKinesis(c: Container, runtime: StageRuntime): KinesisClient {
    const real = runtime.clients.kinesis;
    const wrapped = Object.create(real) as KinesisClient;
    const send = (command: { constructor: { name: string }; input: unknown }): Promise<unknown> => {
      if (!(command instanceof PutRecordsCommand)) return this.call(c, 'read', () => (real.send as (command: unknown) => Promise<unknown>)(command));
      return this.call(c, 'emit', (invocation) => this.putRecords(c, real, command, invocation));
    };
    (wrapped as unknown as { send: typeof send }).send = send;
    return wrapped;
  }

  private async putRecords(c: Container, real: KinesisClient, command: PutRecordsCommand, invocation: Invocation | undefined): Promise<PutRecordsCommandOutput> {
    const plan = invocation?.plan;
    const n = invocation === undefined ? 0 : ++invocation.putCalls;
    const hit = plan !== undefined && n === plan.k;
    const entries = command.input.Records ?? [];
    const throttled = (i: number): PutRecordsResultEntry => ({
      ErrorCode: 'ProvisionedThroughputExceededException',
      ErrorMessage: `Rate exceeded for shard in stream ${command.input.StreamName} (injected, entry ${i})`,
    });
    if (hit && plan.kind === 'kinesis-call-throttle') {
      this.fire(plan, `PutRecords call ${n} of ${entries.length} entries threw ProvisionedThroughputExceededException`);
      throw new KinesisThroughputExceeded({ message: 'Rate exceeded (injected)', $metadata: { httpStatusCode: 400, attempts: 3, totalRetryDelay: 0 } });
    }
    if (hit && plan.kind === 'kinesis-entry-throttle') {
      const failed = new Set(this.prng(c.key).subset(entries.length));
      this.fire(plan, `PutRecords call ${n}: ${failed.size} of ${entries.length} entries throttled`);
      const sent = entries.filter((_, i) => !failed.has(i));
      const out = sent.length > 0 ? await real.send(new PutRecordsCommand({ ...command.input, Records: sent })) : undefined;
      const results = out?.Records ?? [];
      let j = 0;
      return {
        ...(out ?? { $metadata: { httpStatusCode: 200 } }),
        FailedRecordCount: failed.size + (out?.FailedRecordCount ?? 0),
        Records: entries.map((_, i) => (failed.has(i) ? throttled(i) : (results[j++] as PutRecordsResultEntry))),
      };
    }
    const out = await real.send(command);
    if (hit && plan.kind === 'duplicate-entry' && (out.FailedRecordCount ?? 0) === 0) {
      const failed = new Set(this.prng(c.key).subset(entries.length));
      this.fire(plan, `PutRecords call ${n} landed; ${failed.size} of ${entries.length} entries reported throttled (re-sent)`);
      return { ...out, FailedRecordCount: failed.size, Records: (out.Records ?? []).map((r, i) => (failed.has(i) ? throttled(i) : r)) };
    }
    if (hit && plan.kind === 'duplicate-call') {
      this.fire(plan, `PutRecords call ${n} of ${entries.length} entries landed, then ${plan.land ? 'timed out' : 'failed with a 500'}`);
      throw callFailure(plan.land);
    }
    return out;
  }

  private wrapSink(c: Container, sink: SinkCallback): SinkCallback {
    return (rows, info) =>
      this.call(c, 'emit', async (invocation) => {
        const plan = invocation?.plan;
        await sink(rows, info);
        if (plan?.kind === 'duplicate-call' && invocation !== undefined && invocation.emits === plan.k) {
          this.fire(plan, `sink call ${plan.k} (${rows.length} rows, id ${info.id}) landed, then ${plan.land ? 'timed out' : 'failed'}`);
          throw callFailure(plan.land);
        }
      });
  }
}

function describeOutcome(outcome: PromiseSettledResult<KinesisStreamBatchResponse>): string {
  if (outcome.status === 'rejected') return outcome.reason instanceof InjectedCrash ? `died (${outcome.reason.message})` : 'threw';
  return outcome.value.batchItemFailures.length === 0 ? 'succeeded' : 'failed';
}

/** What the SDK throws for a call whose outcome is unknown: a timeout, or a 500 after the work was done. */
function callFailure(timeout: boolean): Error {
  if (timeout) return Object.assign(new Error('Injected: the request timed out after it landed'), { name: 'TimeoutError', $metadata: {} });
  return new InternalFailureException({ message: 'Injected: internal failure after the call landed', $metadata: { httpStatusCode: 500 } });
}

/** The last 6 digits of a sequence number, for log lines. */
function short(sequenceNumber: string): string {
  return sequenceNumber.length > 8 ? `…${sequenceNumber.slice(-6)}` : sequenceNumber;
}
