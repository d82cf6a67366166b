/**
 * Operator timers in DynamoDB, per key group and ordered by time: the persistent side of an
 * operator's in-memory timer service on the Lambda runtime.
 *
 * ```
 *  pk  <operatorId>#timers#<keyGroup>          (state partitions are <operatorId>#<number>#<key>)
 *  sk  <e|p>#<sortable timestamp>#<md5 of key and namespace>
 *      k = key, n = namespace, t = timestamp
 * ```
 *
 * The in-memory {@link MemoryTimerService} stays the working copy: the journal listens to its
 * changes (registered, deleted, fired) and turns the net change since the last commit into item
 * puts and deletes that ride in the stage's redo log with the state writes, so timers and state
 * commit together. A cold task loads every timer of the key groups its shard's hash range
 * overlaps, keeping those whose key hashes into the range (a key group can straddle two shards
 * after resharding) — so after a split or merge, the child shards pick up their parents' timers.
 *
 * Keys are the operator's state keys, which the stage's hash exchange routes by the same MD5
 * hash Kinesis uses; a timer key therefore hashes into the shard that registered it.
 */
import { createHash } from 'node:crypto';
import type { AttributeValue, WriteRequest } from '@aws-sdk/client-dynamodb';
import { keyGroupOfHash, keyGroupsOfRange } from '../../partition/key-groups.ts';
import { md5HashKey } from '../../partition/kinesis-hash.ts';
import type { HashKeyRange } from '../../partition/shard-ranges.ts';
import type { Timer } from '../../state/state.ts';
import type { MemoryTimerService, TimerListener } from '../../state/timer-service.ts';
import { forEachLimited } from './concurrency.ts';
import { queryPartition } from './table-io.ts';
import type { DynamoDbSender, IoCounters } from './table-io.ts';

/** 2^53: shifts every safe integer timestamp to a non-negative one, so decimal text sorts. */
const SHIFT = 2 ** 53;

/** A timestamp as text whose string order is numeric order (−∞ first, +∞ last). */
export function sortableTimestamp(timestamp: number): string {
  if (timestamp === -Infinity) return '0';
  if (timestamp === Infinity) return '3';
  const shifted = Math.max(0, Math.min(2 * SHIFT, Math.floor(timestamp) + SHIFT));
  return '1' + String(shifted).padStart(17, '0');
}

function identity(timer: Timer): string {
  return `${timer.domain}:${timer.timestamp}:${timer.key.length}:${timer.key}${timer.namespace}`;
}

/** Journals one timer service's changes for one operator; see the module documentation. */
export class TimerJournal implements TimerListener {
  /** Net change since the last drain: the timer to put, or null to delete. */
  private readonly changes = new Map<string, { timer: Timer; pending: boolean }>();

  constructor(
    /** The operator whose timers these are. */
    readonly operatorId: string,
    private readonly keyGroups: number,
  ) {}

  /** Starts listening to `timers`. */
  attach(timers: MemoryTimerService): void {
    timers.listener = this;
  }

  added(timer: Timer): void {
    this.changes.set(identity(timer), { timer, pending: true });
  }

  removed(timer: Timer): void {
    this.changes.set(identity(timer), { timer, pending: false });
  }

  /** Number of timers changed since the last drain. */
  get size(): number {
    return this.changes.size;
  }

  /** The item writes of the changes since the last drain (one per timer), and forgets them. */
  drain(): WriteRequest[] {
    const writes: WriteRequest[] = [];
    for (const { timer, pending } of this.changes.values()) {
      const key = this.itemKey(timer);
      if (!pending) {
        writes.push({ DeleteRequest: { Key: key } });
        continue;
      }
      writes.push({
        PutRequest: {
          Item: { ...key, k: { S: timer.key }, n: { S: timer.namespace }, t: { S: String(timer.timestamp) } },
        },
      });
    }
    this.changes.clear();
    return writes;
  }

  /** The changes since the last drain (one per timer: registered or removed), and forgets them. */
  drainChanges(): { timer: Timer; pending: boolean }[] {
    const changes = [...this.changes.values()];
    this.changes.clear();
    return changes;
  }

  /** Forgets the changes (the batch that made them is discarded). */
  clear(): void {
    this.changes.clear();
  }

  private itemKey(timer: Timer): Record<string, AttributeValue> {
    const keyGroup = keyGroupOfHash(md5HashKey(timer.key), this.keyGroups);
    const digest = createHash('md5').update(`${timer.key.length}:${timer.key}${timer.namespace}`, 'utf8').digest('hex');
    return {
      pk: { S: `${this.operatorId}#timers#${keyGroup}` },
      sk: { S: `${timer.domain === 'event' ? 'e' : 'p'}#${sortableTimestamp(timer.timestamp)}#${digest}` },
    };
  }
}

/** Where to load timers from. */
export interface LoadTimersOptions {
  readonly client: DynamoDbSender;
  readonly tableName: string;
  readonly operatorId: string;
  readonly keyGroups: number;
  /** The shard's hash-key range. */
  readonly range: HashKeyRange;
  readonly io: IoCounters;
  /** Queries in flight. @default 16 */
  readonly concurrency?: number;
}

/** Every persisted timer of the operator whose key hashes into `range`, in time order. */
export async function loadTimers(options: LoadTimersOptions): Promise<Timer[]> {
  const span = keyGroupsOfRange(options.range, options.keyGroups);
  const groups: number[] = [];
  for (let g = span.startKeyGroup; g <= span.endKeyGroup; g++) groups.push(g);
  const timers: Timer[] = [];
  await forEachLimited(groups, options.concurrency ?? 16, async (group) => {
    const items = await queryPartition(options.client, options.tableName, `${options.operatorId}#timers#${group}`, options.io);
    for (const item of items) {
      const key = item.k?.S;
      const namespace = item.n?.S;
      const timestamp = Number(item.t?.S);
      const sk = item.sk?.S ?? '';
      if (key === undefined || namespace === undefined || Number.isNaN(timestamp)) continue;
      const hash = md5HashKey(key);
      if (hash < options.range.startingHashKey || hash > options.range.endingHashKey) continue;
      timers.push({ key, namespace, timestamp, domain: sk.startsWith('p#') ? 'processing' : 'event' });
    }
  });
  return timers.sort((a, b) => (a.timestamp === b.timestamp ? 0 : a.timestamp < b.timestamp ? -1 : 1));
}
