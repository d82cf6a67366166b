/**
 * The lookup cache options, Flink's `lookup.cache` family as plain data:
 *
 * | Flink option                                  | here                                   |
 * |-----------------------------------------------|----------------------------------------|
 * | `lookup.cache` = NONE / PARTIAL / FULL        | `type`                                 |
 * | `lookup.partial-cache.max-rows`               | `maxRows` (cached keys, as Flink's Guava `maximumSize`) |
 * | `lookup.partial-cache.expire-after-write`     | `expireAfterWriteMs`                   |
 * | `lookup.partial-cache.expire-after-access`    | `expireAfterAccessMs`                  |
 * | `lookup.partial-cache.cache-missing-key`      | `cacheMissingKey` (default true)       |
 * | `lookup.full-cache.reload-strategy` PERIODIC  | `reloadIntervalMs`                     |
 */
import { PlanError } from '../core/errors.ts';

/** No cache: every key of every batch is fetched. */
export interface NoLookupCacheSpec {
  readonly type: 'NONE';
}

/** An LRU cache of recently looked-up keys (see the module header for the Flink options). */
export interface PartialLookupCacheSpec {
  readonly type: 'PARTIAL';
  /** Maximum number of cached keys (a key with several rows, or none, counts once). */
  readonly maxRows: number;
  /** An entry expires this long after it was loaded. @default never */
  readonly expireAfterWriteMs?: number;
  /** An entry expires this long after it was last read or loaded. @default never */
  readonly expireAfterAccessMs?: number;
  /** Cache keys without rows too, so repeated misses do not hit the store. @default true */
  readonly cacheMissingKey?: boolean;
}

/** The whole table in memory, loaded by `loadAll` and reloaded periodically. */
export interface FullLookupCacheSpec {
  readonly type: 'FULL';
  /** Reload when the snapshot is older than this at the start of a lookup. @default never */
  readonly reloadIntervalMs?: number;
}

/** The cache of one lookup join. */
export type LookupCacheSpec = NoLookupCacheSpec | PartialLookupCacheSpec | FullLookupCacheSpec;

/** True for a positive finite number (or absent). */
function positiveOrAbsent(value: number | undefined): boolean {
  return value === undefined || (typeof value === 'number' && Number.isFinite(value) && value > 0);
}

/**
 * Checks a cache spec; errors name the table and the bad value.
 *
 * @throws PlanError for an unknown type, a non-positive-integer `maxRows` or a non-positive duration.
 */
export function validateCacheSpec(spec: LookupCacheSpec, table: string): void {
  const where = `lookup table '${table}' cache`;
  switch (spec.type) {
    case 'NONE':
      return;
    case 'PARTIAL':
      if (!Number.isInteger(spec.maxRows) || spec.maxRows < 1) throw new PlanError(`${where}: maxRows must be a positive integer (given ${spec.maxRows})`);
      if (!positiveOrAbsent(spec.expireAfterWriteMs)) throw new PlanError(`${where}: expireAfterWriteMs must be positive (given ${spec.expireAfterWriteMs})`);
      if (!positiveOrAbsent(spec.expireAfterAccessMs)) throw new PlanError(`${where}: expireAfterAccessMs must be positive (given ${spec.expireAfterAccessMs})`);
      return;
    case 'FULL':
      if (!positiveOrAbsent(spec.reloadIntervalMs)) throw new PlanError(`${where}: reloadIntervalMs must be positive (given ${spec.reloadIntervalMs})`);
      return;
    default:
      throw new PlanError(`${where}: type must be NONE, PARTIAL or FULL (given ${JSON.stringify((spec as { type?: unknown }).type)})`);
  }
}
