/**
 * Watches a running job for the job page: samples the runtime's {@link JobProbe} on a timer
 * (counters, rates, state sizes, watermarks per channel), keeps short histories for the
 * charts, the latest rows of every edge (taps), and the dead letters; and answers the page's
 * JSON endpoints (docs/ui.md) from what it holds.
 *
 * Everything runs on the job's thread between the runtime's steps, so reads see a consistent
 * state of each runner. The monitor never changes what the job computes: taps only keep
 * references to rows already emitted.
 */
import { createRowEncoder, type JsonValue, type RowEncoder } from '../core/codec.ts';
import type { ChangeRow } from '../core/row.ts';
import type { JobGraph } from '../plan/job-graph.ts';
import type { JobProbe, RunnerTap, ShardProbe, StageBilling } from '../runtime/job-probe.ts';
import type { OperatorRunner } from '../runtime/operator-runner.ts';
import type { SinkObserver } from '../runtime/embedded/sinks.ts';
import { jobView, type JobView, type TapPoint, type ViewEdge } from './job-view.ts';
import { explainShard, explainStage, formatEventTime, type ChannelView, type ShardWatermarkView, type WatermarkWhy } from './watermark-why.ts';

/** A dead letter as the page lists it. */
export interface MonitoredDeadLetter {
  /** Sequence number of the letter in this job, from 1. */
  readonly seq: number;
  /** Processing time it was rejected at (epoch ms). */
  readonly at: number;
  /** The source whose record it was, when known. */
  readonly source?: string;
  /** The stage whose input it was, when known. */
  readonly stage?: string;
  /** Where the record was: `file:line`, or `shardId@sequenceNumber`. */
  readonly position: string;
  readonly reason: string;
  /** The record as read (possibly truncated). */
  readonly raw: string;
}

/** Where a job is in its life. */
export type JobStatus = 'starting' | 'running' | 'finished' | 'failed' | 'stopped';

/** Options of {@link JobMonitor}. */
export interface JobMonitorOptions {
  /** Processing-time clock. @default Date.now */
  readonly clock?: () => number;
  /** Sample the probe this often (ms). @default 500 */
  readonly sampleEveryMs?: number;
  /** History points kept for the charts. @default 1200 (10 min at 500 ms) */
  readonly historyPoints?: number;
  /** Rows kept per edge tap. @default 50 */
  readonly tapRows?: number;
  /** Dead letters kept for the page (all are counted). @default 1000 */
  readonly deadLetterLimit?: number;
  /** Measure state bytes every this many ms (it may walk the state). @default 2000 */
  readonly stateBytesEveryMs?: number;
}

/** Counters the page shows per operator shard (Flink's metric names, read from the runners). */
const METRICS = {
  recordsIn: 'numRecordsIn',
  recordsOut: 'numRecordsOut',
  lateRows: 'numLateRecordsDropped',
  lookupHits: 'lookupCacheHits',
  lookupMisses: 'lookupCacheMisses',
} as const;

type Counters = Record<keyof typeof METRICS, number>;

/** One operator shard at one sample. */
interface ShardSample {
  readonly label: string;
  readonly counters: Counters;
  readonly stateEntries: number;
  readonly stateBytes: number | undefined;
  readonly stateScope: 'all' | 'cached';
}

/** A batch of tapped rows. */
interface TappedBatch {
  readonly rows: readonly ChangeRow[];
  readonly shard: number;
  readonly at: number;
}

/** The latest rows of one edge, as batches (one object per batch, not per row). */
class TapBuffer {
  private batches: TappedBatch[] = [];
  private count = 0;
  total = 0;

  constructor(private readonly limit: number) {}

  add(rows: readonly ChangeRow[], shard: number, at: number): void {
    if (rows.length === 0) return;
    this.total += rows.length;
    this.batches.push({ rows, shard, at });
    this.count += rows.length;
    while (this.batches.length > 1 && this.count - (this.batches[0] as TappedBatch).rows.length >= this.limit) {
      this.count -= (this.batches.shift() as TappedBatch).rows.length;
    }
  }

  /** The latest `limit` rows, oldest first. */
  latest(limit: number): { row: ChangeRow; shard: number; at: number }[] {
    const out: { row: ChangeRow; shard: number; at: number }[] = [];
    for (let b = this.batches.length - 1; b >= 0 && out.length < limit; b--) {
      const batch = this.batches[b] as TappedBatch;
      for (let i = batch.rows.length - 1; i >= 0 && out.length < limit; i--) out.push({ row: batch.rows[i] as ChangeRow, shard: batch.shard, at: batch.at });
    }
    return out.reverse();
  }
}

/** A point of the charts' history. */
interface HistoryPoint {
  readonly at: number;
  /** Processing time minus watermark per stage (ms), where the watermark is finite. */
  readonly lagMs: Record<string, number>;
  /** Records per second read from each source. */
  readonly sourceRate: Record<string, number>;
  /** Rows per second written to each sink. */
  readonly sinkRate: Record<string, number>;
}

/** JSON with ±∞ as the strings `"Infinity"` / `"-Infinity"` (which `Number()` reads back). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : typeof v === 'bigint' ? v.toString() : v));
}

/** Watches one job; see the module header. */
export class JobMonitor {
  readonly graph: JobGraph;
  readonly view: JobView;
  readonly runtime: 'embedded' | 'local';
  status: JobStatus = 'starting';
  /** Why the job failed or stopped. */
  error: string | undefined;
  readonly startedAt: number;
  endedAt: number | undefined;

  private readonly clock: () => number;
  private readonly options: Required<Omit<JobMonitorOptions, 'clock'>>;
  private probe: JobProbe | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly taps = new Map<string, TapBuffer>();
  private readonly tapEncoders = new Map<string, RowEncoder>();
  /** Edge ids by tap point key (`output:Calc_2`, `input:Calc_2`, `sink:q5`). */
  private readonly edgesByTap = new Map<string, string[]>();
  private readonly runnerTap: RunnerTap;
  private readonly deadLetters: MonitoredDeadLetter[] = [];
  private deadLetterTotal = 0;
  private readonly deadLettersBySource = new Map<string, number>();
  private readonly sinkRows = new Map<string, number>();
  /** Samples per operator id, one entry per shard; the previous ones for rates. */
  private current = new Map<string, ShardSample[]>();
  private readonly rateBase: { at: number; ops: Map<string, ShardSample[]>; sinks: Map<string, number> }[] = [];
  /** When each watermark (shard output, or channel) last changed: key → value and time. */
  private readonly watermarkSince = new Map<string, { value: number; since: number }>();
  /** When each source shard last read a row: `stage/shard` → count and time. */
  private readonly lastData = new Map<string, { count: number; at: number }>();
  private readonly history: HistoryPoint[] = [];
  private lastBytesAt = -Infinity;
  /** Bytes per state entry at the last measurement, per `operator/shard`. */
  private readonly bytesPerEntry = new Map<string, number>();
  private lastSampleAt: number | undefined;
  private summary: Record<string, JsonValue> | undefined;

  constructor(graph: JobGraph, runtime: 'embedded' | 'local', options: JobMonitorOptions = {}) {
    this.graph = graph;
    this.view = jobView(graph);
    this.runtime = runtime;
    this.clock = options.clock ?? Date.now;
    this.options = {
      sampleEveryMs: options.sampleEveryMs ?? 500,
      historyPoints: options.historyPoints ?? 1200,
      tapRows: options.tapRows ?? 50,
      deadLetterLimit: options.deadLetterLimit ?? 1000,
      stateBytesEveryMs: options.stateBytesEveryMs ?? 2000,
    };
    this.startedAt = this.clock();
    for (const edge of this.view.edges) {
      const key = tapKey(edge.tap);
      this.edgesByTap.set(key, [...(this.edgesByTap.get(key) ?? []), edge.id]);
      this.taps.set(edge.id, new TapBuffer(this.options.tapRows));
    }
    for (const sink of graph.sinks) this.sinkRows.set(sink.name, 0);
    this.runnerTap = {
      input: (runner, rows) => this.tapped(`input:${runner.operatorId}`, rows, runner.shard),
      output: (runner, rows) => this.tapped(`output:${runner.operatorId}`, rows, runner.shard),
    };
  }

  /** Starts watching a job whose tasks are built; the page shows it as running. */
  attach(probe: JobProbe): void {
    this.probe = probe;
    this.status = 'running';
    this.installTaps();
    this.sample();
    this.timer ??= setInterval(() => this.sample(), this.options.sampleEveryMs);
    // The job page must not keep a finished process alive on its own.
    this.timer.unref();
  }

  /** An observer for a sink's rows (counts them and feeds the sink edges' taps). */
  sinkObserver(sink: string): SinkObserver {
    return { write: (rows) => this.sinkWrite(sink, rows, 0) };
  }

  /** Records rows a sink received from shard `shard` (for runtimes that hand sink batches over themselves). */
  sinkWrite(sink: string, rows: readonly ChangeRow[], shard: number): void {
    this.sinkRows.set(sink, (this.sinkRows.get(sink) ?? 0) + rows.length);
    this.tapped(`sink:${sink}`, rows, shard);
  }

  /** Records a dead letter. */
  deadLetter(letter: Omit<MonitoredDeadLetter, 'seq' | 'at'>): void {
    this.deadLetterTotal++;
    const key = letter.source ?? letter.stage ?? '?';
    this.deadLettersBySource.set(key, (this.deadLettersBySource.get(key) ?? 0) + 1);
    this.deadLetters.push({ seq: this.deadLetterTotal, at: this.clock(), ...letter });
    if (this.deadLetters.length > this.options.deadLetterLimit) this.deadLetters.shift();
  }

  /** The job ended; `summary` is shown as is (the CLI's summary line, counts). */
  finished(summary: Record<string, JsonValue>): void {
    this.summary = summary;
    this.end('finished');
  }

  /** The job failed (or was stopped, when `stopped`). */
  failed(error: unknown, stopped = false): void {
    this.error = error instanceof Error ? error.message : String(error);
    this.end(stopped ? 'stopped' : 'failed');
  }

  /** Stops sampling (the server closes). */
  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private end(status: JobStatus): void {
    // One last look, so the page shows the final counters and watermarks.
    if (this.probe !== undefined) this.sample();
    this.status = status;
    this.endedAt = this.clock();
    this.close();
  }

  private tapped(key: string, rows: readonly ChangeRow[], shard: number): void {
    const edges = this.edgesByTap.get(key);
    if (edges === undefined || rows.length === 0) return;
    const at = this.clock();
    for (const id of edges) this.taps.get(id)?.add(rows, shard, at);
  }

  /** Runners can be replaced (a rebuilt task on AWS): every sample re-installs the tap. */
  private installTaps(): void {
    for (const stage of this.probe?.stages ?? []) {
      for (const shard of stage.shards()) for (const runner of shard.runners) if (runner.tap !== this.runnerTap) runner.tap = this.runnerTap;
    }
  }

  /** Reads the probe: counters, state sizes, watermarks; appends a history point. */
  sample(): void {
    const probe = this.probe;
    if (probe === undefined) return;
    const now = this.clock();
    this.installTaps();
    const withBytes = now - this.lastBytesAt >= this.options.stateBytesEveryMs;
    if (withBytes) this.lastBytesAt = now;
    const next = new Map<string, ShardSample[]>();
    for (const stage of probe.stages) {
      for (const shard of stage.shards()) {
        const sizes = shard.state(withBytes);
        shard.runners.forEach((runner, i) => {
          const list = next.get(runner.operatorId) ?? [];
          const size = sizes[i];
          const entries = size?.entries ?? 0;
          const key = `${runner.operatorId}/${shard.shard}`;
          if (withBytes && size?.bytes !== undefined && entries > 0) this.bytesPerEntry.set(key, size.bytes / entries);
          const perEntry = this.bytesPerEntry.get(key);
          list[shard.shard] = {
            label: shard.label,
            counters: readCounters(runner),
            stateEntries: entries,
            // Between byte measurements, scale the last measurement's bytes per entry.
            stateBytes: withBytes && size?.bytes !== undefined ? size.bytes : entries === 0 ? 0 : perEntry === undefined ? undefined : Math.round(perEntry * entries),
            stateScope: size?.scope ?? 'all',
          };
          next.set(runner.operatorId, list);
        });
        this.track(stage.stageId, shard, now);
      }
    }
    this.current = next;
    this.rateBase.push({ at: now, ops: next, sinks: new Map(this.sinkRows) });
    // Rates over about two seconds: steadier than one sample interval.
    while (this.rateBase.length > 2 && now - (this.rateBase[1] as { at: number }).at >= 2000) this.rateBase.shift();
    this.lastSampleAt = now;
    this.pushHistory(now);
  }

  /** Tracks when watermarks last changed and when source shards last read a row. */
  private track(stageId: string, shard: ShardProbe, now: number): void {
    const remember = (key: string, value: number): void => {
      const seen = this.watermarkSince.get(key);
      if (seen === undefined || seen.value !== value) this.watermarkSince.set(key, { value, since: now });
    };
    remember(`${stageId}/${shard.shard}`, shard.outputWatermark());
    const input = shard.input();
    if (input.kind === 'exchange') for (const c of input.channels) remember(`${stageId}/${shard.shard}/${c.channel}`, c.watermark);
    else {
      const count = shard.runners[0]?.metrics.get(METRICS.recordsIn) ?? 0;
      const seen = this.lastData.get(`${stageId}/${shard.shard}`);
      if (count > 0 && (seen === undefined || seen.count !== count)) this.lastData.set(`${stageId}/${shard.shard}`, { count, at: input.lastDataAt ?? now });
    }
  }

  /**
   * The largest event time any source shard has read. Watermark lag is measured from it, not
   * from the wall clock, so a replay of old data shows how far each stage trails its input.
   */
  private newestEventTime(): number {
    let newest = -Infinity;
    for (const stage of this.probe?.stages ?? []) {
      for (const shard of stage.shards()) {
        const input = shard.input();
        if (input.kind === 'source' && Number.isFinite(input.maxEventTime) && input.maxEventTime > newest) newest = input.maxEventTime;
      }
    }
    return newest;
  }

  /** Newest event time read minus the watermark, when both are finite. */
  private lagOf(watermark: number, newest: number): number | undefined {
    return Number.isFinite(watermark) && Number.isFinite(newest) ? Math.max(0, newest - watermark) : undefined;
  }

  private pushHistory(now: number): void {
    const lagMs: Record<string, number> = {};
    const newest = this.newestEventTime();
    for (const stage of this.graph.stages) {
      const lag = this.lagOf(this.stageWatermark(stage.id), newest);
      if (lag !== undefined) lagMs[stage.id] = lag;
    }
    const sourceRate: Record<string, number> = {};
    for (const source of this.graph.sources) sourceRate[source.name] = this.sourceRate(source.name);
    const sinkRate: Record<string, number> = {};
    for (const sink of this.graph.sinks) sinkRate[sink.name] = this.sinkRate(sink.name);
    this.history.push({ at: now, lagMs, sourceRate, sinkRate });
    if (this.history.length > this.options.historyPoints) this.history.shift();
  }

  private stageWatermark(stageId: string): number {
    const stage = this.probe?.stages.find((s) => s.stageId === stageId);
    const shards = stage?.shards() ?? [];
    if (shards.length === 0) return -Infinity;
    return Math.min(...shards.map((s) => s.outputWatermark()));
  }

  /** Per-second rate of a counter between the oldest rate base and now. */
  private rate(now: number, before: number | undefined, at: number | undefined): number {
    // A rate says how fast the job goes now: nothing moves once it has ended.
    if (this.status !== 'running') return 0;
    if (before === undefined || at === undefined || this.lastSampleAt === undefined || this.lastSampleAt <= at) return 0;
    return ((now - before) * 1000) / (this.lastSampleAt - at);
  }

  private sourceRate(source: string): number {
    const stage = this.graph.stages.find((s) => s.input.type === 'source' && s.input.source === source);
    const first = stage?.operators[0]?.id;
    if (first === undefined) return 0;
    const base = this.rateBase[0];
    const sum = (samples: ShardSample[] | undefined): number | undefined => samples?.reduce((a, s) => a + (s?.counters.recordsIn ?? 0), 0);
    return this.rate(sum(this.current.get(first)) ?? 0, sum(base?.ops.get(first)), base?.at);
  }

  private sinkRate(sink: string): number {
    const base = this.rateBase[0];
    return this.rate(this.sinkRows.get(sink) ?? 0, base?.sinks.get(sink), base?.at);
  }

  // ── JSON endpoints ────────────────────────────────────────────────────────────

  /** `GET /api/job`: the job, its graph and the diagram's nodes and edges. */
  jobJson(): Record<string, unknown> {
    return {
      name: this.graph.name,
      runtime: this.runtime,
      status: this.status,
      startedAt: this.startedAt,
      ...(this.endedAt !== undefined ? { endedAt: this.endedAt } : {}),
      ...(this.error !== undefined ? { error: this.error } : {}),
      ...(this.summary !== undefined ? { summary: this.summary } : {}),
      view: { nodes: this.view.nodes, stages: this.view.stages, edges: this.view.edges.map(({ schema, ...e }) => ({ ...e, columns: schema.fields.map((f) => f.name) })) },
      graph: this.graph,
    };
  }

  /** `GET /api/metrics`: counters, rates, state, watermarks and their explanations now. */
  metricsJson(): Record<string, unknown> {
    const now = this.clock();
    const base = this.rateBase[0];
    const operators: Record<string, unknown> = {};
    let lateRows = 0;
    for (const stage of this.graph.stages) {
      for (const op of stage.operators) {
        const samples = this.current.get(op.id) ?? [];
        const before = base?.ops.get(op.id);
        const shards = Array.from(samples, (s, i) => {
          const b = before?.[i];
          return shardJson(i, s, this.rate(s.counters.recordsIn, b?.counters.recordsIn, base?.at), this.rate(s.counters.recordsOut, b?.counters.recordsOut, base?.at));
        });
        const total = totalJson(shards);
        lateRows += total.lateRows;
        operators[op.id] = { stage: stage.id, type: op.type, total, shards };
      }
    }
    const billing = this.probe?.billing?.();
    const recordsRead = this.graph.sources.reduce((a, s) => a + this.sourceRecords(s.name), 0);
    const stages: Record<string, unknown> = {};
    for (const stage of this.graph.stages) stages[stage.id] = this.stageJson(stage.id, now, billing?.get(stage.id), recordsRead);
    const sinks: Record<string, unknown> = {};
    for (const sink of this.graph.sinks) sinks[sink.name] = { rows: this.sinkRows.get(sink.name) ?? 0, rate: this.sinkRate(sink.name) };
    const sources: Record<string, unknown> = {};
    for (const source of this.graph.sources) {
      sources[source.name] = { records: this.sourceRecords(source.name), rate: this.sourceRate(source.name), deadLetters: this.deadLettersBySource.get(source.name) ?? 0 };
    }
    let billingTotal: Record<string, unknown> | null = null;
    if (billing !== undefined) {
      const usd = [...billing.values()].reduce((a, b) => a + b.usd, 0);
      billingTotal = { usd, usdPer1000Events: recordsRead > 0 ? (usd * 1000) / recordsRead : null, units: sumUnits([...billing.values()]) };
    }
    return {
      at: now,
      status: this.status,
      elapsedMs: (this.endedAt ?? now) - this.startedAt,
      totals: {
        recordsRead,
        rate: this.graph.sources.reduce((a, s) => a + this.sourceRate(s.name), 0),
        deadLetters: this.deadLetterTotal,
        lateRows,
        sinkRows: [...this.sinkRows.values()].reduce((a, b) => a + b, 0),
      },
      sources,
      operators,
      stages,
      sinks,
      billing: billingTotal,
    };
  }

  private sourceRecords(source: string): number {
    const stage = this.graph.stages.find((s) => s.input.type === 'source' && s.input.source === source);
    const first = stage?.operators[0]?.id;
    return first === undefined ? 0 : (this.current.get(first) ?? []).reduce((a, s) => a + (s?.counters.recordsIn ?? 0), 0);
  }

  private stageJson(stageId: string, now: number, billing: StageBilling | undefined, recordsRead: number): Record<string, unknown> {
    const spec = this.graph.stages.find((s) => s.id === stageId);
    const probe = this.probe?.stages.find((s) => s.stageId === stageId);
    const views: ShardWatermarkView[] = [];
    const shards = (probe?.shards() ?? []).map((shard) => {
      const view = this.shardView(stageId, shard);
      views.push(view);
      const why = explainShard(view, now);
      const input = view.input;
      return {
        shard: shard.shard,
        label: shard.label,
        watermark: view.watermark,
        watermarkText: formatEventTime(view.watermark),
        since: view.since ?? null,
        why: why.text,
        silentNotIdle: why.silentNotIdle,
        heldBy: why.heldBy ?? null,
        input:
          input.kind === 'source'
            ? { kind: 'source', source: input.source, maxEventTime: input.maxEventTime, lastDataAt: input.lastDataAt ?? null }
            : { kind: 'exchange', watermark: input.watermark, expected: input.expected, idleTimeoutMs: input.idleTimeoutMs ?? null, channels: input.channels },
      };
    });
    const stageWhy = explainStage(stageId, views, now);
    // Follow the holding channel upstream to the shard that really holds the watermark back.
    const cause = stageWhy.heldBy !== undefined ? this.upstreamCause(stageId, stageWhy.heldBy, now) : undefined;
    const why = cause === undefined ? stageWhy : { ...stageWhy, text: `${stageWhy.text}; upstream, ${cause.text}`, silentNotIdle: stageWhy.silentNotIdle || cause.silentNotIdle };
    return {
      parallelism: spec?.parallelism ?? 0,
      watermark: why.watermark,
      watermarkText: formatEventTime(why.watermark),
      lagMs: this.lagOf(why.watermark, this.newestEventTime()) ?? null,
      why: why.text,
      silentNotIdle: why.silentNotIdle,
      shards,
      billing: billing === undefined ? null : { ...billing, usdPer1000Events: recordsRead > 0 ? (billing.usd * 1000) / recordsRead : null },
    };
  }

  /**
   * The explanation of the upstream shard that a stage shard's holding channel comes from,
   * followed further upstream while that shard is itself held by a channel: the deepest held
   * shard's explanation names the channel that really holds the watermark back.
   */
  private upstreamCause(stageId: string, heldBy: string, now: number, depth = 0): WatermarkWhy | undefined {
    const spec = this.graph.stages.find((s) => s.id === stageId);
    if (spec?.input.type !== 'exchange' || depth > this.graph.stages.length) return undefined;
    const upstream = spec.input.fromStage;
    const probe = this.probe?.stages.find((s) => s.stageId === upstream)?.shards();
    // Embedded channels are numbered by upstream shard; on AWS they are Kinesis shard ids.
    const source = probe?.find((p) => String(p.shard) === heldBy || p.label === heldBy);
    if (source === undefined) return undefined;
    const why = explainShard(this.shardView(upstream, source), now);
    if (why.heldBy === undefined) return why;
    // The deepest shard that is held by a channel names the channel to look at.
    const further = this.upstreamCause(upstream, why.heldBy, now, depth + 1);
    if (further === undefined || further.heldBy === undefined) return why;
    return { ...further, silentNotIdle: why.silentNotIdle || further.silentNotIdle };
  }

  private shardView(stageId: string, shard: ShardProbe): ShardWatermarkView {
    const spec = this.graph.stages.find((s) => s.id === stageId);
    const input = shard.input();
    const watermark = shard.outputWatermark();
    const since = this.watermarkSince.get(`${stageId}/${shard.shard}`)?.since;
    if (input.kind === 'source' || spec?.input.type === 'source') {
      const sourceName = spec?.input.type === 'source' ? spec.input.source : '?';
      const source = this.graph.sources.find((s) => s.name === sourceName);
      const lastDataAt = input.kind === 'source' ? (input.lastDataAt ?? this.lastData.get(`${stageId}/${shard.shard}`)?.at) : undefined;
      return {
        stageId,
        shard: shard.shard,
        watermark,
        ...(since !== undefined ? { since } : {}),
        input: {
          kind: 'source',
          source: sourceName,
          ...(source?.watermark ? { delayMs: source.watermark.outOfOrdernessMs } : {}),
          maxEventTime: input.kind === 'source' ? input.maxEventTime : watermark,
          ...(lastDataAt !== undefined ? { lastDataAt } : {}),
        },
      };
    }
    const upstream = spec?.input.type === 'exchange' ? spec.input.fromStage : '?';
    const channels: ChannelView[] = input.channels.map((c) => {
      const seen = this.watermarkSince.get(`${stageId}/${shard.shard}/${c.channel}`);
      return {
        channel: c.channel,
        from: /^\d+$/.test(c.channel) ? `${upstream} shard ${c.channel}` : `${upstream} ${c.channel}`,
        watermark: c.watermark,
        idle: c.idle,
        ...(seen !== undefined && seen.value !== -Infinity ? { since: seen.since } : {}),
      };
    });
    return {
      stageId,
      shard: shard.shard,
      watermark,
      ...(since !== undefined ? { since } : {}),
      input: { kind: 'exchange', watermark: input.watermark, channels, expected: input.expectedChannels, ...(input.idleTimeoutMs !== undefined ? { idleTimeoutMs: input.idleTimeoutMs } : {}) },
    };
  }

  /** `GET /api/history`: the charts' points, oldest first. */
  historyJson(): Record<string, unknown> {
    return { stages: this.graph.stages.map((s) => s.id), sources: this.graph.sources.map((s) => s.name), sinks: this.graph.sinks.map((s) => s.name), points: this.history };
  }

  /** `GET /api/taps/<edge>`: the edge's latest rows, encoded as JSON with an `op` field; undefined for an unknown edge. */
  tapJson(edgeId: string, limit: number): Record<string, unknown> | undefined {
    const edge = this.view.edges.find((e) => e.id === edgeId);
    const buffer = this.taps.get(edgeId);
    if (edge === undefined || buffer === undefined) return undefined;
    const encode = this.encoderOf(edge);
    return {
      edge: edge.id,
      columns: edge.schema.fields.map((f) => f.name),
      total: buffer.total,
      rows: buffer.latest(limit).map(({ row, shard, at }) => ({ op: row.kind, shard, at, row: encode(row.row) })),
    };
  }

  private encoderOf(edge: ViewEdge): RowEncoder {
    let encoder = this.tapEncoders.get(edge.id);
    if (encoder === undefined) {
      encoder = createRowEncoder(edge.schema);
      this.tapEncoders.set(edge.id, encoder);
    }
    return encoder;
  }

  /** `GET /api/dead-letters?after=N`: letters after sequence number `after`. */
  deadLettersJson(after: number): Record<string, unknown> {
    return { total: this.deadLetterTotal, kept: this.deadLetters.length, letters: this.deadLetters.filter((l) => l.seq > after) };
  }
}

function tapKey(tap: TapPoint): string {
  return tap.kind === 'sink' ? `sink:${tap.sink}` : `${tap.kind}:${tap.operatorId}`;
}

function readCounters(runner: OperatorRunner): Counters {
  const m = runner.metrics;
  return {
    recordsIn: m.get(METRICS.recordsIn) ?? 0,
    recordsOut: m.get(METRICS.recordsOut) ?? 0,
    lateRows: m.get(METRICS.lateRows) ?? 0,
    lookupHits: m.get(METRICS.lookupHits) ?? 0,
    lookupMisses: m.get(METRICS.lookupMisses) ?? 0,
  };
}

interface ShardJson {
  readonly shard: number;
  readonly label: string;
  readonly recordsIn: number;
  readonly recordsOut: number;
  readonly rateIn: number;
  readonly rateOut: number;
  readonly stateEntries: number;
  readonly stateBytes: number | null;
  readonly stateScope: 'all' | 'cached';
  readonly lateRows: number;
  readonly lookupHits: number;
  readonly lookupMisses: number;
  readonly lookupHitRate: number | null;
}

function shardJson(shard: number, s: ShardSample | undefined, rateIn: number, rateOut: number): ShardJson {
  const c = s?.counters ?? { recordsIn: 0, recordsOut: 0, lateRows: 0, lookupHits: 0, lookupMisses: 0 };
  const lookups = c.lookupHits + c.lookupMisses;
  return {
    shard,
    label: s?.label ?? String(shard),
    recordsIn: c.recordsIn,
    recordsOut: c.recordsOut,
    rateIn,
    rateOut,
    stateEntries: s?.stateEntries ?? 0,
    stateBytes: s?.stateBytes ?? null,
    stateScope: s?.stateScope ?? 'all',
    lateRows: c.lateRows,
    lookupHits: c.lookupHits,
    lookupMisses: c.lookupMisses,
    lookupHitRate: lookups > 0 ? c.lookupHits / lookups : null,
  };
}

function totalJson(shards: readonly ShardJson[]): Omit<ShardJson, 'shard' | 'label'> {
  const sum = (f: (s: ShardJson) => number): number => shards.reduce((a, s) => a + f(s), 0);
  const hits = sum((s) => s.lookupHits);
  const misses = sum((s) => s.lookupMisses);
  const bytes = shards.every((s) => s.stateBytes !== null) ? sum((s) => s.stateBytes as number) : null;
  return {
    recordsIn: sum((s) => s.recordsIn),
    recordsOut: sum((s) => s.recordsOut),
    rateIn: sum((s) => s.rateIn),
    rateOut: sum((s) => s.rateOut),
    stateEntries: sum((s) => s.stateEntries),
    stateBytes: shards.length > 0 ? bytes : null,
    stateScope: shards.some((s) => s.stateScope === 'cached') ? 'cached' : 'all',
    lateRows: sum((s) => s.lateRows),
    lookupHits: hits,
    lookupMisses: misses,
    lookupHitRate: hits + misses > 0 ? hits / (hits + misses) : null,
  };
}

function sumUnits(stages: readonly StageBilling[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of stages) for (const [k, v] of Object.entries(s.units)) out[k] = (out[k] ?? 0) + v;
  return out;
}
