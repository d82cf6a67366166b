/**
 * The input watermark of one exchange-stage shard: the minimum over its input channels (the
 * upstream stage's shards), with idle channels dropping out — exactly the rules of
 * `InputWatermarks` (shared/runtime/watermarks.ts), which the embedded runtime uses:
 *
 * - a channel's watermark only rises (regressions are ignored);
 * - a channel silent for longer than the idleness timeout (by processing time) is idle and
 *   drops out of the minimum until it sends again; a channel at +∞ (finished) never goes idle;
 * - when every channel is idle the combined watermark advances to the maximum over the channels
 *   (Flink's StatusWatermarkValve: all inputs idle → the max watermark across all channels);
 * - the combined watermark only rises.
 *
 * It differs in what AWS needs and the embedded runtime does not:
 *
 * - Channels are named by producer shard id, not numbered: the receiver learns them from the
 *   records (`s`), and an upstream reshard adds channels (a child shard of the producer's input).
 *   Until `expected` channels (the upstream stage's parallelism) have been heard from, the
 *   missing ones count as channels at −∞ that have been silent since the reader first saw
 *   processing time, so they hold the watermark back and — with an idleness timeout — drop out
 *   like any silent channel. `InputWatermarks` gives its channels `lastActive = 0`; here the
 *   start is the first processing time seen (or `startTime`), because processing time is epoch
 *   milliseconds and 0 would make every unseen channel idle at once.
 * - The state is plain data (`snapshot()` / `restore()`), because the Lambda runtime persists it
 *   with its checkpoint; `InputWatermarks` keeps private typed arrays with no way to restore
 *   them. A property test checks this class against `InputWatermarks` operation by operation.
 * - Processing time never goes backwards here (`now` is the maximum seen), because it comes
 *   from record arrival times and heartbeats, which may be slightly out of order.
 */
import { FlambdaError } from '../../core/errors.ts';

/** One channel's state. */
export interface ChannelWatermarkState {
  /** The producer shard id. */
  readonly channel: string;
  readonly watermark: number;
  /** Processing time of the channel's last activity (epoch ms). */
  readonly lastActive: number;
  readonly idle: boolean;
}

/** Plain-data state of {@link ChannelWatermarks}. */
export interface ChannelWatermarksSnapshot {
  readonly expected: number;
  readonly idleTimeoutMs: number | null;
  /** Processing time the reader started at (the "last activity" of channels not yet heard from); null before any. */
  readonly since: number | null;
  /** Processing time (−∞ before any). */
  readonly now: number;
  readonly combined: number;
  /** Whether the channels not yet heard from have been marked idle. */
  readonly unseenIdle: boolean;
  readonly channels: readonly ChannelWatermarkState[];
}

/** Mutable per-channel state. */
interface Channel {
  watermark: number;
  lastActive: number;
  idle: boolean;
}

/** Options of {@link ChannelWatermarks}. */
export interface ChannelWatermarksOptions {
  /**
   * A channel silent for longer than this (ms of processing time) stops holding back the
   * watermark.
   * @default - never
   */
  readonly idleTimeoutMs?: number;
  /**
   * Processing time at which channels not yet heard from count as last active.
   * @default - the first processing time seen
   */
  readonly startTime?: number;
}

/** Combines the watermarks of named input channels; see the module header. */
export class ChannelWatermarks {
  private readonly expected: number;
  private readonly idleTimeoutMs: number | undefined;
  private readonly channels = new Map<string, Channel>();
  private since: number | undefined;
  private now = -Infinity;
  private combined = -Infinity;
  private unseenIdle = false;

  /**
   * @param expected number of channels feeding this shard (the upstream stage's parallelism), ≥ 1
   * @throws FlambdaError (internal, fail) for a bad count or timeout
   */
  constructor(expected: number, options: ChannelWatermarksOptions = {}) {
    if (!Number.isInteger(expected) || expected < 1) {
      throw new FlambdaError(`expected channel count must be an integer >= 1 (given ${expected})`, 'internal', 'fail');
    }
    const timeout = options.idleTimeoutMs;
    if (timeout !== undefined && !(timeout >= 0 && Number.isFinite(timeout))) {
      throw new FlambdaError(`idleTimeoutMs must be a finite number >= 0 (given ${timeout})`, 'internal', 'fail');
    }
    this.expected = expected;
    this.idleTimeoutMs = timeout;
    this.since = options.startTime;
  }

  /** The combined watermark (−∞ until every expected channel, or its idleness, allows more). */
  get current(): number {
    return this.combined;
  }

  /** Processing time: the largest seen (−∞ before any). */
  get processingTime(): number {
    return this.now;
  }

  /** Channels heard from so far. */
  get knownChannels(): readonly string[] {
    return [...this.channels.keys()];
  }

  /** Advances processing time to `now` if it is later; returns the processing time. */
  advanceTime(now: number): number {
    this.since ??= now;
    if (now > this.now) this.now = now;
    return this.now;
  }

  /** Records activity on a channel at processing time `now`: an idle channel becomes active. */
  markActive(channel: string, now: number): void {
    this.advanceTime(now);
    const state = this.channels.get(channel);
    if (state === undefined) {
      this.channels.set(channel, { watermark: -Infinity, lastActive: this.now, idle: false });
    } else {
      state.lastActive = this.now;
      state.idle = false;
    }
  }

  /**
   * Raises a channel's watermark (regressions ignored), marks it active, and returns the new
   * combined watermark if it advanced, else undefined (`InputWatermarks.update`).
   */
  update(channel: string, watermark: number, now: number): number | undefined {
    if (Number.isNaN(watermark)) throw new FlambdaError('channel watermark must not be NaN', 'internal', 'fail');
    this.markActive(channel, now);
    const state = this.channels.get(channel) as Channel;
    if (watermark > state.watermark) state.watermark = watermark;
    return this.recompute(this.now);
  }

  /**
   * Re-evaluates idleness at processing time `now` and returns the new combined watermark if it
   * advanced, else undefined (`InputWatermarks.recompute`).
   */
  recompute(now: number): number | undefined {
    this.advanceTime(now);
    const t = this.now;
    const timeout = this.idleTimeoutMs;
    let min = Infinity;
    let max = -Infinity;
    let anyActive = false;
    for (const state of this.channels.values()) {
      if (state.watermark > max) max = state.watermark;
      if (timeout !== undefined && state.watermark !== Infinity && t - state.lastActive > timeout) state.idle = true;
      if (state.idle) continue;
      anyActive = true;
      if (state.watermark < min) min = state.watermark;
    }
    if (this.channels.size < this.expected) {
      // Channels not heard from yet: watermark −∞, last active when the reader started.
      if (timeout !== undefined && t - (this.since as number) > timeout) this.unseenIdle = true;
      if (!this.unseenIdle) {
        anyActive = true;
        min = -Infinity;
      }
    }
    // Every channel idle: move to the maximum over the channels, as Flink's StatusWatermarkValve does.
    if (!anyActive) min = max;
    if (min > this.combined) {
      this.combined = min;
      return min;
    }
    return undefined;
  }

  /** The state as plain data. */
  snapshot(): ChannelWatermarksSnapshot {
    return {
      expected: this.expected,
      idleTimeoutMs: this.idleTimeoutMs ?? null,
      since: this.since ?? null,
      now: this.now,
      combined: this.combined,
      unseenIdle: this.unseenIdle,
      channels: [...this.channels].map(([channel, s]) => ({ channel, watermark: s.watermark, lastActive: s.lastActive, idle: s.idle })),
    };
  }

  /**
   * Replaces the state with a snapshot taken from a combiner with the same expected count and
   * timeout.
   *
   * @throws FlambdaError (internal, fail) when the snapshot's configuration differs: restoring
   *   it would silently change the watermark's meaning.
   */
  restore(snapshot: ChannelWatermarksSnapshot): void {
    if (snapshot.expected !== this.expected || snapshot.idleTimeoutMs !== (this.idleTimeoutMs ?? null)) {
      throw new FlambdaError(
        `channel watermark snapshot is for ${snapshot.expected} channels with idle timeout ${String(snapshot.idleTimeoutMs)}; ` +
          `this reader expects ${this.expected} channels with idle timeout ${String(this.idleTimeoutMs ?? null)}`,
        'internal',
        'fail',
      );
    }
    this.channels.clear();
    for (const c of snapshot.channels) {
      this.channels.set(c.channel, { watermark: c.watermark, lastActive: c.lastActive, idle: c.idle });
    }
    this.since = snapshot.since ?? undefined;
    this.now = snapshot.now;
    this.combined = snapshot.combined;
    this.unseenIdle = snapshot.unseenIdle;
  }
}
