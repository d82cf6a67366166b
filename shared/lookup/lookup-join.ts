/**
 * The lookup join operator (Flink's `LookupJoinRunner` / `AsyncLookupJoinRunner` with the
 * `CachingLookupFunction` and FLIP-234 retry), batch-at-a-time:
 *
 * 1. Each probe row's key is converted to the dimension key types (lookup-keys.ts). A key with a
 *    NULL, or one no dimension value can equal, is not looked up: it has no match.
 * 2. The distinct keys of the whole batch go to the source stack in ONE `lookupMany` call:
 *    cache → retry/chunking (`batchSize` keys per store request, `maxConcurrency` in flight) →
 *    the store. Only keys the cache misses reach the store.
 * 3. Rows are emitted in input order: per probe row, its matches in the store's order (each
 *    passing the condition gives one output row), or for LEFT one NULL-padded row when none
 *    passes. The probe row's kind (+I/-U/+U/-D) is the output rows' kind, so changelogs flow
 *    through unchanged — as in Flink, a -U/-D is joined against the dimension table as of now.
 *
 * Failures are never NULLs: a probe key of the wrong kind is a RecordError (dead-letter) before
 * any lookup; store failures arrive classified (TransientError: retry the batch; RecordError;
 * DimensionDataError: stop). When the store rejects a key value in a multi-key request (e.g. text
 * against a numeric column), the keys are retried one by one so the RecordError names the value.
 *
 * Metrics bumped on the operator context: `lookupCacheHits`, `lookupCacheMisses`, `lookupLoads`,
 * `lookupLoadTimeMs`, `lookupCacheEvictions`, `lookupRetries`, `lookupKeysRequested`.
 */
import { RecordError } from '../core/errors.ts';
import type { ChangeRow } from '../core/row.ts';
import { requireField } from '../core/type-parse.ts';
import type { Row, Schema, Value } from '../core/types.ts';
import type { UdfRegistry } from '../plan/expr-compile.ts';
import { compilePredicate } from '../plan/expr-compile.ts';
import type { Operator, OperatorContext, OperatorMetrics, Output } from '../operators/operator.ts';
import type { LookupCacheMetrics } from './cache-metrics.ts';
import type { CachedDimensionSource } from './cached-source.ts';
import { createCachedSource } from './cached-source.ts';
import type { DimensionSource } from './dimension-source.ts';
import { encodeLookupKey } from './dimension-source.ts';
import { classifyLookupError, errorText } from './errors.ts';
import { showValue } from './dimension-values.ts';
import type { LookupJoinSpec } from './lookup-join-spec.ts';
import { lookupJoinOutputSchema, resolveOutput } from './lookup-join-spec.ts';
import type { KeyConverter } from './lookup-keys.ts';
import { keyConverter, NO_MATCH } from './lookup-keys.ts';
import { createResilientSource } from './resilient-source.ts';

export type { LookupJoinSpec, LookupKeyPair, LookupOutputColumn } from './lookup-join-spec.ts';
export { lookupJoinOutputSchema } from './lookup-join-spec.ts';
export type { LookupCacheSpec } from './cache-spec.ts';
export type { LookupRetrySpec } from './resilient-source.ts';
export type { LookupCacheMetrics } from './cache-metrics.ts';
export type { DimensionSource } from './dimension-source.ts';

/** Runtime options of {@link createLookupJoinOperator}. */
export interface LookupJoinOptions {
  /** UDFs referenced by the condition. @default none */
  readonly udfs?: UdfRegistry;
  /** Clock of the cache (expiry, reloads, load time). @default wall clock */
  readonly clock?: () => number;
  /** Waits between retries. @default a setTimeout promise */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Jitter for error backoff. @default Math.random */
  readonly random?: () => number;
  /** Close `source` when the operator closes. @default true */
  readonly closeSource?: boolean;
}

/** The operator, plus its cache counters for the runtimes. */
export interface LookupJoinOperator extends Operator {
  /** The cache's counters (cumulative since creation). */
  cacheMetrics(): LookupCacheMetrics;
}

/** Bumps the context counters by the change in the cache counters over one lookup. */
function publishDelta(metrics: OperatorMetrics, before: LookupCacheMetrics, after: LookupCacheMetrics): void {
  const pairs: [string, number][] = [
    ['lookupCacheHits', after.hits - before.hits],
    ['lookupCacheMisses', after.misses - before.misses],
    ['lookupLoads', after.loads - before.loads],
    ['lookupLoadTimeMs', after.loadTimeMs - before.loadTimeMs],
    ['lookupCacheEvictions', after.evictions - before.evictions],
  ];
  for (const [name, by] of pairs) if (by !== 0) metrics.increment(name, by);
}

/**
 * Creates a lookup join over `source` (see the module header). The source is wrapped in the
 * spec's retry/chunking and cache layers; the operator owns it and closes it on close unless
 * `closeSource` is false.
 *
 * @throws PlanError as {@link lookupJoinOutputSchema}, for a UDF missing from `udfs`, or a FULL
 *   cache over a source without `loadAll`.
 */
export function createLookupJoinOperator(spec: LookupJoinSpec, probeSchema: Schema, source: DimensionSource, options: LookupJoinOptions = {}): LookupJoinOperator {
  const schema = lookupJoinOutputSchema(spec, probeSchema);
  const output = resolveOutput(spec, probeSchema);
  const names = schema.fields.map((f) => f.name);
  const keep = spec.condition === undefined ? undefined : compilePredicate(spec.condition, schema, options.udfs ?? new Map());
  const probeColumns = spec.keys.map((k) => k.probe);
  const lookupColumns = spec.keys.map((k) => k.lookup);
  const converters: KeyConverter[] = spec.keys.map((k) =>
    keyConverter(spec.table, requireField(probeSchema, k.probe), requireField(spec.dimensionSchema, k.lookup)),
  );
  let metrics: OperatorMetrics | undefined;
  const resilient = createResilientSource(source, {
    retry: spec.retry,
    batchSize: spec.batchSize,
    maxConcurrency: spec.maxConcurrency,
    sleep: options.sleep,
    random: options.random,
    onRetry: () => metrics?.increment('lookupRetries'),
  });
  const cached: CachedDimensionSource = createCachedSource(resilient, spec.cache ?? { type: 'NONE' }, { clock: options.clock });
  const closeSource = options.closeSource ?? true;

  /** The lookup key row of a probe row, or undefined when it cannot match. */
  const keyOf = (row: Row): Row | undefined => {
    const key: Record<string, Value> = {};
    for (let i = 0; i < converters.length; i++) {
      const value = row[probeColumns[i]!] ?? null;
      if (value === null) return undefined;
      const converted = converters[i]!(value);
      if (converted === NO_MATCH || converted === null) return undefined;
      key[lookupColumns[i]!] = converted;
    }
    return key;
  };

  const join = (probe: Row, dim: Row | null): Row => {
    const row: Record<string, Value> = {};
    for (let i = 0; i < output.length; i++) {
      const c = output[i]!;
      row[names[i]!] = c.side === 'probe' ? (probe[c.column] ?? null) : dim === null ? null : (dim[c.column] ?? null);
    }
    return row;
  };

  /**
   * Looks keys up one at a time to find the one the store rejects. Good keys land in the cache
   * on the way, so the retried batch costs little. Returns the RecordError to throw.
   */
  const isolateBadKey = async (wanted: ReadonlyMap<string, Row>, original: RecordError): Promise<Error> => {
    for (const key of wanted.values()) {
      try {
        await cached.lookupMany([key]);
      } catch (err) {
        const classified = classifyLookupError(err, spec.table);
        if (!(classified instanceof RecordError)) return classified;
        const shown = spec.keys.map((k) => `${k.probe}=${showValue(key[k.lookup])}`).join(', ');
        // The lower layers already wrapped the driver error; quote the driver's own words.
        const reason = err instanceof RecordError && err.cause !== undefined ? errorText(err.cause) : errorText(err);
        return new RecordError(`lookup join with table '${spec.table}': the store rejected the key (${shown}): ${reason}`, {
          field: spec.keys[0]!.probe,
          cause: err,
        });
      }
    }
    return original;
  };

  return {
    open(context: OperatorContext) {
      metrics = context.metrics;
    },
    async processBatch(batch: readonly ChangeRow[], out: Output) {
      // Keys first, for the whole batch: a bad key fails before anything is emitted or fetched.
      const encoded: (string | undefined)[] = new Array<string | undefined>(batch.length);
      const wanted = new Map<string, Row>();
      for (let i = 0; i < batch.length; i++) {
        const key = keyOf(batch[i]!.row);
        if (key === undefined) continue;
        const e = encodeLookupKey(key, lookupColumns);
        encoded[i] = e;
        if (!wanted.has(e)) wanted.set(e, key);
      }
      let found = new Map<string, Row[]>();
      if (wanted.size > 0) {
        const before = cached.metrics();
        metrics?.increment('lookupKeysRequested', wanted.size);
        try {
          found = await cached.lookupMany([...wanted.values()]);
        } catch (err) {
          const classified = classifyLookupError(err, spec.table);
          // The store rejected a key value, but which one? Ask key by key so the error names it.
          if (classified instanceof RecordError && wanted.size > 1) throw await isolateBadKey(wanted, classified);
          throw classified;
        } finally {
          if (metrics !== undefined) publishDelta(metrics, before, cached.metrics());
        }
      }
      for (let i = 0; i < batch.length; i++) {
        const { kind, row } = batch[i]!;
        const e = encoded[i];
        const matches = e === undefined ? undefined : found.get(e);
        let emitted = false;
        if (matches !== undefined) {
          for (const dim of matches) {
            const joined = join(row, dim);
            if (keep !== undefined && !keep(joined)) continue;
            out.emit({ kind, row: joined });
            emitted = true;
          }
        }
        if (!emitted && spec.joinType === 'LEFT') out.emit({ kind, row: join(row, null) });
      }
    },
    cacheMetrics: () => cached.metrics(),
    async close() {
      if (closeSource) await cached.close();
    },
  };
}
