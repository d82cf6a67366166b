/**
 * The JSON the job page reads (docs/ui.md describes every field). Watermarks and other times
 * are epoch milliseconds; ±∞ arrive as the strings "Infinity" / "-Infinity".
 */

/** A number that may be ±∞ (sent as a string). */
export type Wm = number | 'Infinity' | '-Infinity';

export interface ViewNode {
  readonly id: string;
  readonly kind: 'source' | 'operator' | 'sink';
  readonly name: string;
  readonly detail: string;
  readonly stage?: string;
  readonly operatorId?: string;
  readonly parallelism?: number;
}

export interface ViewEdge {
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly kind: 'forward' | 'exchange' | 'sink' | 'side';
  readonly label?: string;
  readonly columns: readonly string[];
}

export interface ViewStage {
  readonly id: string;
  readonly parallelism: number;
  readonly nodes: readonly string[];
}

export interface JobInfo {
  readonly name: string;
  readonly runtime: 'embedded' | 'local';
  readonly status: string;
  readonly startedAt: number;
  readonly endedAt?: number;
  readonly error?: string;
  readonly summary?: Record<string, unknown>;
  readonly view: { readonly nodes: readonly ViewNode[]; readonly edges: readonly ViewEdge[]; readonly stages: readonly ViewStage[] };
}

export interface OperatorShard {
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

export interface OperatorMetrics {
  readonly stage: string;
  readonly type: string;
  readonly total: Omit<OperatorShard, 'shard' | 'label'>;
  readonly shards: readonly OperatorShard[];
}

export interface Channel {
  readonly channel: string;
  readonly from: string;
  readonly watermark: Wm;
  readonly idle: boolean;
  readonly since?: number;
}

export interface StageShard {
  readonly shard: number;
  readonly label: string;
  readonly watermark: Wm;
  readonly watermarkText: string;
  readonly since: number | null;
  readonly why: string;
  readonly silentNotIdle: boolean;
  readonly heldBy: string | null;
  readonly input:
    | { readonly kind: 'source'; readonly source: string; readonly maxEventTime: Wm; readonly lastDataAt: number | null }
    | { readonly kind: 'exchange'; readonly watermark: Wm; readonly expected: number; readonly idleTimeoutMs: number | null; readonly channels: readonly Channel[] };
}

export interface Billing {
  readonly units: Record<string, number>;
  readonly usd: number;
  readonly usdPer1000Events: number | null;
}

export interface StageMetrics {
  readonly parallelism: number;
  readonly watermark: Wm;
  readonly watermarkText: string;
  readonly lagMs: number | null;
  readonly why: string;
  readonly silentNotIdle: boolean;
  readonly shards: readonly StageShard[];
  readonly billing: Billing | null;
}

export interface Metrics {
  readonly at: number;
  readonly status: string;
  readonly elapsedMs: number;
  readonly totals: { readonly recordsRead: number; readonly rate: number; readonly deadLetters: number; readonly lateRows: number; readonly sinkRows: number };
  readonly sources: Record<string, { readonly records: number; readonly rate: number; readonly deadLetters: number }>;
  readonly operators: Record<string, OperatorMetrics>;
  readonly stages: Record<string, StageMetrics>;
  readonly sinks: Record<string, { readonly rows: number; readonly rate: number }>;
  readonly billing: Billing | null;
}

export interface History {
  readonly stages: readonly string[];
  readonly sources: readonly string[];
  readonly sinks: readonly string[];
  readonly points: readonly { readonly at: number; readonly lagMs: Record<string, number>; readonly sourceRate: Record<string, number>; readonly sinkRate: Record<string, number> }[];
}

export interface Tap {
  readonly edge: string;
  readonly columns: readonly string[];
  readonly total: number;
  readonly rows: readonly { readonly op: string; readonly shard: number; readonly at: number; readonly row: Record<string, unknown> }[];
}

export interface DeadLetters {
  readonly total: number;
  readonly kept: number;
  readonly letters: readonly { readonly seq: number; readonly at: number; readonly source?: string; readonly stage?: string; readonly position: string; readonly reason: string; readonly raw: string }[];
}

/** GETs a JSON endpoint. */
export async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { cache: 'no-store' });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

/** A watermark as a number (±∞ included). */
export function wm(value: Wm): number {
  return typeof value === 'number' ? value : Number(value);
}
