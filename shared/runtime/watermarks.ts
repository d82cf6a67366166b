/**
 * Event-time watermarks, the same on every runtime.
 *
 * - A source shard's watermark is `max event time seen − out-of-orderness`, the meaning of SQL's
 *   `WATERMARK FOR ts AS ts - INTERVAL …` (the TypeScript API uses the same rule).
 * - An operator's input watermark is the minimum over its input channels (upstream shards).
 *   A channel that has been idle longer than the idleness timeout drops out of the minimum
 *   until it sends again; when every channel is idle the combined watermark advances to the
 *   maximum over the channels (Flink's StatusWatermarkValve does the same).
 * - Bounded input ends with a +∞ watermark on every channel, so all pending timers fire.
 */
import { PlanError, RecordError } from '../core/errors.ts';
import { formatType } from '../core/type-parse.ts';
import type { Row, Schema } from '../core/types.ts';
import { compileTypedExpr, type UdfRegistry } from '../plan/expr-compile.ts';
import type { WatermarkSpec } from '../plan/logical.ts';

/** Per-source-shard watermark generator with bounded out-of-orderness. */
export class BoundedOutOfOrderness {
  private maxTimestamp = -Infinity;

  constructor(private readonly outOfOrdernessMs: number) {}

  /** Observes one event time (epoch ms); nulls are ignored, as Flink ignores null rowtimes. */
  observe(timestamp: number | null): void {
    if (timestamp !== null && timestamp > this.maxTimestamp) this.maxTimestamp = timestamp;
  }

  /** The watermark implied by what was observed so far (-∞ before the first event). */
  current(): number {
    return this.maxTimestamp - this.outOfOrdernessMs;
  }
}

/** Combines the watermarks of a task's input channels. */
export class InputWatermarks {
  private readonly channels: Float64Array;
  private readonly lastActive: Float64Array;
  private readonly idle: Uint8Array;
  /** Whether a channel was ever active (its `lastActive` is a real time). */
  private readonly everActive: Uint8Array;
  private combined = -Infinity;

  /**
   * @param channelCount number of upstream channels (shards) feeding this task
   * @param idleTimeoutMs a channel silent for longer stops holding back the watermark; absent = never
   */
  constructor(
    channelCount: number,
    private readonly idleTimeoutMs?: number,
  ) {
    this.channels = new Float64Array(channelCount).fill(-Infinity);
    this.lastActive = new Float64Array(channelCount);
    this.idle = new Uint8Array(channelCount);
    this.everActive = new Uint8Array(channelCount);
  }

  /** Number of input channels. */
  get channelCount(): number {
    return this.channels.length;
  }

  /** The current combined watermark. */
  get current(): number {
    return this.combined;
  }

  /** The idleness timeout (ms); undefined when channels never go idle. */
  get idleTimeout(): number | undefined {
    return this.idleTimeoutMs;
  }

  /** Each channel's watermark, last activity (undefined before any) and idleness, for observers. */
  channelStates(): { watermark: number; lastActive: number | undefined; idle: boolean }[] {
    const out: { watermark: number; lastActive: number | undefined; idle: boolean }[] = [];
    for (let i = 0; i < this.channels.length; i++) {
      const active = this.everActive[i] === 1;
      out.push({ watermark: this.channels[i] ?? -Infinity, lastActive: active ? this.lastActive[i] : undefined, idle: this.idle[i] === 1 });
    }
    return out;
  }

  /** Records activity (data) on a channel at processing time `now`; an idle channel becomes active. */
  markActive(channel: number, now: number): void {
    this.lastActive[channel] = now;
    this.idle[channel] = 0;
    this.everActive[channel] = 1;
  }

  /**
   * Updates one channel's watermark (regressions ignored) and returns the new combined
   * watermark if it advanced, else undefined.
   */
  update(channel: number, watermark: number, now: number): number | undefined {
    if (watermark > (this.channels[channel] ?? -Infinity)) this.channels[channel] = watermark;
    this.markActive(channel, now);
    return this.recompute(now);
  }

  /** Re-evaluates idleness at processing time `now`; returns the new watermark if it advanced. */
  recompute(now: number): number | undefined {
    let min = Infinity;
    let max = -Infinity;
    let anyActive = false;
    for (let i = 0; i < this.channels.length; i++) {
      if ((this.channels[i] ?? -Infinity) > max) max = this.channels[i] ?? -Infinity;
      if (this.idleTimeoutMs !== undefined && this.channels[i] !== Infinity && now - (this.lastActive[i] ?? 0) > this.idleTimeoutMs) {
        this.idle[i] = 1;
      }
      if (this.idle[i]) continue;
      anyActive = true;
      const w = this.channels[i] ?? -Infinity;
      if (w < min) min = w;
    }
    // All idle: the maximum over the channels, as Flink's StatusWatermarkValve emits.
    if (!anyActive) min = max;
    if (min > this.combined) {
      this.combined = min;
      return min;
    }
    return undefined;
  }
}

/**
 * Reads the event time of a source row for the shard's watermark generator: the watermark
 * column itself, or, for a watermark on a computed column, its expression over the physical
 * columns ({@link WatermarkSpec.expr}). A row whose expression fails with a data error (say
 * `TO_TIMESTAMP` of text that is no timestamp) has no event time here, as a NULL rowtime has
 * none; the Calc after the source evaluates the same expression and applies the error policy.
 *
 * @throws PlanError when the expression does not type-check over the source schema or is not a TIMESTAMP.
 */
export function eventTimeReader(spec: WatermarkSpec, schema: Schema, udfs: UdfRegistry = new Map()): (row: Row) => number | null {
  const column = spec.column;
  if (spec.expr === undefined) {
    return (row) => {
      const t = row[column];
      return typeof t === 'number' ? t : null;
    };
  }
  const { evaluate, type } = compileTypedExpr(spec.expr, schema, udfs);
  if (type.root !== 'TIMESTAMP' && type.root !== 'TIMESTAMP_LTZ') throw new PlanError(`watermark column '${column}' must be a TIMESTAMP or TIMESTAMP_LTZ, not ${formatType(type)}`);
  return (row) => {
    try {
      const t = evaluate(row);
      return typeof t === 'number' ? t : null;
    } catch (err) {
      if (err instanceof RecordError) return null;
      throw err;
    }
  };
}
