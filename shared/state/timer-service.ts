/**
 * In-memory timers for one operator instance: Flink's InternalTimerServiceImpl with its heap
 * priority queues. Timers are deduplicated per (key, namespace, timestamp, domain) and fire in
 * timestamp order, ties broken by registration order.
 *
 * Firing is pull-based: the runner advances time and then pops due timers one at a time,
 * calling the operator for each. Because the queue is consulted again after every timer, a timer
 * registered while firing with a timestamp that is already due fires in the same advance — the
 * `while (peek().timestamp <= time)` loop of Flink's `advanceWatermark` and `onProcessingTime`.
 */
import { BTree } from './btree.ts';
import { FlambdaError, PlanError } from '../core/errors.ts';
import type { TimeDomain, Timer, TimerService } from './state.ts';

/** One timer in a snapshot; the domain is given by the list it is in. */
export type TimerEntrySnapshot = readonly [key: string, namespace: string, timestamp: number];

/**
 * A point-in-time copy of a timer service: plain data that survives `structuredClone` (the
 * watermark may be ±Infinity, so JSON is not guaranteed). Timers are listed in firing order.
 */
export interface TimerSnapshot {
  readonly format: 'flambda.timers.v1';
  readonly watermark: number;
  readonly processingTime: number;
  readonly event: readonly TimerEntrySnapshot[];
  readonly processing: readonly TimerEntrySnapshot[];
}

/** Queue position: timestamp first, then a registration sequence number for stable ties. */
type QueuePosition = readonly [timestamp: number, seq: number];

function comparePositions(a: QueuePosition, b: QueuePosition): number {
  // Compare without subtraction: Infinity - Infinity is NaN.
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] - b[1];
}

/**
 * An unambiguous identity for (key, namespace, timestamp): the timestamp's text has no ':', and
 * the key's length tells where the key ends and the namespace starts.
 */
function identity(key: string, namespace: string, timestamp: number): string {
  return `${timestamp}:${key.length}:${key}${namespace}`;
}

/** The timers of one domain: a B+ tree ordered by position plus an index for dedup/delete. */
class TimerQueue {
  private readonly queue = new BTree<QueuePosition, Timer>(undefined, comparePositions);
  private readonly index = new Map<string, QueuePosition>();

  constructor(private readonly domain: TimeDomain) {}

  get size(): number {
    return this.queue.size;
  }

  /** Adds the timer unless an identical one is pending; returns whether it was added. */
  add(key: string, namespace: string, timestamp: number, seq: number): boolean {
    const id = identity(key, namespace, timestamp);
    if (this.index.has(id)) return false;
    const position: QueuePosition = [timestamp, seq];
    this.index.set(id, position);
    this.queue.set(position, { key, namespace, timestamp, domain: this.domain });
    return true;
  }

  /** Removes the timer if pending; returns whether it was. */
  remove(key: string, namespace: string, timestamp: number): boolean {
    const id = identity(key, namespace, timestamp);
    const position = this.index.get(id);
    if (position === undefined) return false;
    this.index.delete(id);
    this.queue.delete(position);
    return true;
  }

  /** The earliest timestamp pending, if any. */
  nextTimestamp(): number | undefined {
    return this.queue.minKey()?.[0];
  }

  /** The earliest timer if its timestamp is `<= time`, left in place. */
  peekDue(time: number): Timer | undefined {
    const position = this.queue.minKey();
    if (position === undefined || position[0] > time) return undefined;
    return this.queue.get(position);
  }

  /** The keys of every timer with timestamp `<= time`. */
  dueKeys(time: number): Set<string> {
    const keys = new Set<string>();
    for (const [position, timer] of this.queue.entries()) {
      if (position[0] > time) break;
      keys.add(timer.key);
    }
    return keys;
  }

  /** Removes and returns the earliest timer if its timestamp is `<= time`. */
  popDue(time: number): Timer | undefined {
    const position = this.queue.minKey();
    if (position === undefined || position[0] > time) return undefined;
    const timer = this.queue.get(position) as Timer;
    this.queue.delete(position);
    this.index.delete(identity(timer.key, timer.namespace, timer.timestamp));
    return timer;
  }

  snapshot(): TimerEntrySnapshot[] {
    const entries: TimerEntrySnapshot[] = [];
    for (const timer of this.queue.values()) entries.push([timer.key, timer.namespace, timer.timestamp]);
    return entries;
  }
}

function checkTimestamp(timestamp: number): void {
  if (Number.isNaN(timestamp)) {
    throw new FlambdaError('Timer timestamp must be a number, got NaN', 'internal', 'fail');
  }
}

/**
 * Observes every change of a timer service's pending set (a remote backend journals them to
 * persist the timers with its next commit). Not told about timers restored from a snapshot.
 */
export interface TimerListener {
  /** A timer became pending. */
  added(timer: Timer): void;
  /** A pending timer was deleted, or popped to fire. */
  removed(timer: Timer): void;
}

/**
 * Event-time and processing-time timers of one operator instance, with the watermark and the
 * processing time they are compared against.
 */
export class MemoryTimerService implements TimerService {
  /** Told about every change of the pending timers; see {@link TimerListener}. */
  listener: TimerListener | undefined;
  private readonly eventTimers = new TimerQueue('event');
  private readonly processingTimers = new TimerQueue('processing');
  /** Registration counter shared by both domains; orders ties by registration. */
  private seq = 0;
  private watermark = -Infinity;
  private processingTime: number;

  /** @param processingTime the initial processing time (epoch ms); `Date.now()` by default. */
  constructor(processingTime: number = Date.now()) {
    this.processingTime = processingTime;
  }

  /** Rebuilds a timer service from {@link MemoryTimerService.snapshot} output, keeping the order. */
  static restore(snapshot: TimerSnapshot): MemoryTimerService {
    if (snapshot.format !== 'flambda.timers.v1') {
      throw new PlanError(`Unsupported timer snapshot format '${String(snapshot.format)}'`);
    }
    const service = new MemoryTimerService(snapshot.processingTime);
    service.watermark = snapshot.watermark;
    for (const [key, namespace, timestamp] of snapshot.event) {
      service.eventTimers.add(key, namespace, timestamp, service.seq++);
    }
    for (const [key, namespace, timestamp] of snapshot.processing) {
      service.processingTimers.add(key, namespace, timestamp, service.seq++);
    }
    return service;
  }

  /** Registers an event-time timer; a duplicate of a pending timer is ignored. */
  registerEventTimeTimer(key: string, namespace: string, timestamp: number): void {
    checkTimestamp(timestamp);
    if (this.eventTimers.add(key, namespace, timestamp, this.seq)) {
      this.seq++;
      this.listener?.added({ key, namespace, timestamp, domain: 'event' });
    }
  }

  /** Deletes a pending event-time timer; unknown timers are ignored (as in Flink). */
  deleteEventTimeTimer(key: string, namespace: string, timestamp: number): void {
    if (this.eventTimers.remove(key, namespace, timestamp)) this.listener?.removed({ key, namespace, timestamp, domain: 'event' });
  }

  /** Registers a processing-time timer; a duplicate of a pending timer is ignored. */
  registerProcessingTimeTimer(key: string, namespace: string, timestamp: number): void {
    checkTimestamp(timestamp);
    if (this.processingTimers.add(key, namespace, timestamp, this.seq)) {
      this.seq++;
      this.listener?.added({ key, namespace, timestamp, domain: 'processing' });
    }
  }

  /** Deletes a pending processing-time timer; unknown timers are ignored. */
  deleteProcessingTimeTimer(key: string, namespace: string, timestamp: number): void {
    if (this.processingTimers.remove(key, namespace, timestamp)) this.listener?.removed({ key, namespace, timestamp, domain: 'processing' });
  }

  /** The current event-time watermark; -Infinity before the first one. */
  currentWatermark(): number {
    return this.watermark;
  }

  /** The current processing time, as last set. */
  currentProcessingTime(): number {
    return this.processingTime;
  }

  /** Advances the watermark; a regression is ignored, as Flink only forwards increasing ones. */
  setWatermark(watermark: number): void {
    if (watermark > this.watermark) this.watermark = watermark;
  }

  /**
   * Removes and returns the earliest event-time timer with timestamp <= watermark. Call until
   * it returns undefined; timers registered in between are considered too.
   */
  popDueEventTimer(): Timer | undefined {
    const timer = this.eventTimers.popDue(this.watermark);
    if (timer !== undefined) this.listener?.removed(timer);
    return timer;
  }

  /** The earliest due event-time timer (timestamp <= watermark), left in place. */
  peekDueEventTimer(): Timer | undefined {
    return this.eventTimers.peekDue(this.watermark);
  }

  /** The earliest due processing-time timer, left in place. */
  peekDueProcessingTimer(): Timer | undefined {
    return this.processingTimers.peekDue(this.processingTime);
  }

  /**
   * The keys of every due timer of a domain: what a remote state backend must prefetch before
   * they fire (the operator reads the key's state in onTimer).
   */
  dueKeys(domain: TimeDomain): Set<string> {
    return domain === 'event' ? this.eventTimers.dueKeys(this.watermark) : this.processingTimers.dueKeys(this.processingTime);
  }

  /** Advances processing time; a regression (e.g. a clock step back) is ignored. */
  setProcessingTime(time: number): void {
    if (time > this.processingTime) this.processingTime = time;
  }

  /** Removes and returns the earliest processing-time timer with timestamp <= processing time. */
  popDueProcessingTimer(): Timer | undefined {
    const timer = this.processingTimers.popDue(this.processingTime);
    if (timer !== undefined) this.listener?.removed(timer);
    return timer;
  }

  /** The earliest pending event-time timer's timestamp, if any. */
  nextEventTimerTimestamp(): number | undefined {
    return this.eventTimers.nextTimestamp();
  }

  /** The earliest pending processing-time timer's timestamp, e.g. to schedule a wake-up. */
  nextProcessingTimerTimestamp(): number | undefined {
    return this.processingTimers.nextTimestamp();
  }

  /** Number of pending timers of a domain. */
  pendingTimers(domain: TimeDomain): number {
    return domain === 'event' ? this.eventTimers.size : this.processingTimers.size;
  }

  /** A structuredClone-able copy of the timers, watermark and processing time. */
  snapshot(): TimerSnapshot {
    return {
      format: 'flambda.timers.v1',
      watermark: this.watermark,
      processingTime: this.processingTime,
      event: this.eventTimers.snapshot(),
      processing: this.processingTimers.snapshot(),
    };
  }
}
