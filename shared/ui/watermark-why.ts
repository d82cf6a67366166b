/**
 * One-line answers to "why is this stage's watermark here?", from the watermark rules every
 * runtime follows (shared/runtime/watermarks.ts; Flink's StatusWatermarkValve):
 *
 * - a source shard's watermark is the largest event time it has seen minus the declared
 *   out-of-orderness;
 * - an exchange shard's watermark is the minimum over its input channels (upstream shards)
 *   that are not idle, so the channel with the smallest watermark holds it; a channel goes idle
 *   only when an idle timeout is declared and it has been silent that long;
 * - a stage's watermark, as the page shows it, is its lowest shard's.
 *
 * The answer names the channel that holds the minimum, since when it has not moved, and —
 * the common reason windows do not fire — whether it is silent but not marked idle.
 */

/** One input channel of an exchange shard, with what the observer tracked about it. */
export interface ChannelView {
  readonly channel: string;
  /** Who sends on it, e.g. `stage-0 shard 1`. */
  readonly from: string;
  readonly watermark: number;
  readonly idle: boolean;
  /** Processing time (epoch ms) the channel's watermark last changed; undefined if it never had one. */
  readonly since?: number;
}

/** What the explanation of one stage shard needs. */
export interface ShardWatermarkView {
  readonly stageId: string;
  readonly shard: number;
  /** The watermark the shard's chain has advanced to. */
  readonly watermark: number;
  /** Processing time the shard's watermark last changed. */
  readonly since?: number;
  readonly input:
    | {
        readonly kind: 'source';
        readonly source: string;
        /** The declared out-of-orderness; undefined when the source declares no watermark. */
        readonly delayMs?: number;
        readonly maxEventTime: number;
        /** Processing time of the shard's last row. */
        readonly lastDataAt?: number;
      }
    | {
        readonly kind: 'exchange';
        readonly watermark: number;
        readonly channels: readonly ChannelView[];
        /** Channels the shard expects (the upstream parallelism). */
        readonly expected: number;
        /** The idle timeout of the channels; undefined: they never go idle. */
        readonly idleTimeoutMs?: number;
      };
}

/** An explanation. */
export interface WatermarkWhy {
  readonly text: string;
  /** The channel holding the watermark back, when one does. */
  readonly heldBy?: string;
  /** True when the holder is silent (for at least {@link SILENT_AFTER_MS}) and not marked idle. */
  readonly silentNotIdle: boolean;
}

/** A channel whose watermark has not moved for this long while another's did is called silent. */
export const SILENT_AFTER_MS = 2_000;

/** How the idle timeout is declared, for the hint. */
const IDLE_HINT = "declare an idle timeout ('scan.watermark.idle-timeout' in SQL, watermark.idleTimeoutMs in the API)";

/** Formats an event time (epoch ms, UTC) as Flink prints TIMESTAMP(3); ±∞ as words. */
export function formatEventTime(ms: number): string {
  if (ms === Infinity) return '+∞ (end of input)';
  if (ms === -Infinity) return '−∞ (none yet)';
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** `12 s`, `3.4 s`, `250 ms`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** Explains one stage shard's watermark at processing time `now`. */
export function explainShard(view: ShardWatermarkView, now: number): WatermarkWhy {
  const name = `${view.stageId} shard ${view.shard}`;
  if (view.watermark === Infinity) return { text: `${name}: +∞, its input has ended (every window has fired)`, silentNotIdle: false };
  const input = view.input;
  if (input.kind === 'source') {
    if (input.delayMs === undefined) return { text: `${name}: source '${input.source}' declares no watermark, so event time does not advance here`, silentNotIdle: false };
    const last = input.lastDataAt === undefined ? 'no row yet' : `last row ${formatDuration(now - input.lastDataAt)} ago`;
    if (view.watermark === -Infinity) return { text: `${name}: source '${input.source}' shard ${view.shard} has read no row with an event time (${last})`, silentNotIdle: false };
    return {
      text: `${name}: ${formatEventTime(view.watermark)} = largest event time read on source shard ${view.shard} (${formatEventTime(input.maxEventTime)}) − ${formatDuration(input.delayMs)} out-of-orderness; ${last}`,
      silentNotIdle: false,
    };
  }
  const active = input.channels.filter((c) => !c.idle);
  const unseen = input.expected - input.channels.length;
  if (unseen > 0 && input.channels.every((c) => c.watermark > -Infinity)) {
    return { text: `${name}: −∞, waiting for ${unseen} of ${input.expected} input channels not heard from yet`, silentNotIdle: false };
  }
  if (active.length === 0 && input.channels.length > 0) {
    return { text: `${name}: every input channel is idle, so the watermark is the largest of theirs (${formatEventTime(input.watermark)})`, silentNotIdle: false };
  }
  let holder = active[0] as ChannelView | undefined;
  for (const c of active) if (holder === undefined || c.watermark < holder.watermark) holder = c;
  if (holder === undefined) return { text: `${name}: no input channel yet`, silentNotIdle: false };
  const others = active.filter((c) => c !== holder);
  const ahead = others.length > 0 ? Math.max(...others.map((c) => c.watermark)) : undefined;
  const quietFor = holder.since === undefined ? undefined : now - holder.since;
  // Silent: its watermark stood still while another channel's moved past it.
  const othersMoved = others.some((c) => c.watermark > holder.watermark && (c.since ?? -Infinity) > (holder.since ?? -Infinity));
  const silent = (holder.watermark === -Infinity || (quietFor !== undefined && quietFor >= SILENT_AFTER_MS)) && (othersMoved || others.length === 0 || holder.watermark === -Infinity);
  const held =
    holder.watermark === -Infinity
      ? `held at −∞ by channel ${holder.channel} (${holder.from}), which has sent no watermark yet`
      : `held at ${formatEventTime(holder.watermark)} by channel ${holder.channel} (${holder.from}), the lowest of ${active.length} active channel${active.length === 1 ? '' : 's'}` +
        (holder.since !== undefined ? `, unchanged since ${clockTime(holder.since)} (${formatDuration(now - holder.since)} ago)` : '');
  const lead = ahead !== undefined && ahead > holder.watermark && Number.isFinite(ahead) && Number.isFinite(holder.watermark) ? `; the others are up to ${formatDuration(ahead - holder.watermark)} ahead` : '';
  let idleNote = '';
  if (silent && others.length > 0) {
    idleNote =
      input.idleTimeoutMs === undefined
        ? `; it is silent but not marked idle, because no idle timeout is declared: ${IDLE_HINT}`
        : `; it will be marked idle after ${formatDuration(input.idleTimeoutMs)} of silence`;
  }
  return { text: `${name}: ${held}${lead}${idleNote}`, heldBy: holder.channel, silentNotIdle: silent && others.length > 0 && input.idleTimeoutMs === undefined };
}

/** Explains a stage's watermark: its lowest shard's, with that shard's explanation. */
export function explainStage(stageId: string, shards: readonly ShardWatermarkView[], now: number): WatermarkWhy & { readonly watermark: number; readonly shard?: number } {
  if (shards.length === 0) return { text: `${stageId}: no shard has started yet`, silentNotIdle: false, watermark: -Infinity };
  let lowest = shards[0] as ShardWatermarkView;
  for (const s of shards) if (s.watermark < lowest.watermark) lowest = s;
  const why = explainShard(lowest, now);
  const prefix = shards.length > 1 ? `${stageId} is at its lowest shard's watermark — ` : '';
  return { ...why, text: `${prefix}${why.text}`, watermark: lowest.watermark, shard: lowest.shard };
}

/** Wall-clock time of day, `14:03:07 UTC`, for "since when". */
function clockTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}
