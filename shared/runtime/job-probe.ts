/**
 * What a running job shows to an observer such as the `--ui` job page (shared/ui/): per stage
 * and shard, the operator runners (their counters and state, and a tap on the rows they see)
 * and the input watermark per channel. Each runtime builds a probe from its own structures
 * when the job starts; observers read it whenever they like (between the runtime's steps, on
 * the same thread) and never change what the job does.
 *
 * The probe is pulled, not pushed, so a runtime pays nothing per row for it: the only per-row
 * hook is {@link RunnerTap}, which is unset unless someone taps an edge.
 */
import type { OperatorRunner } from './operator-runner.ts';

/** The watermark of one input channel (an upstream shard) of a stage shard. */
export interface ChannelWatermark {
  /** The channel's name: the upstream shard's index (`"1"`) or Kinesis shard id. */
  readonly channel: string;
  /** The channel's latest watermark (−∞ before its first). */
  readonly watermark: number;
  /** Processing time (epoch ms) of the channel's last activity; undefined before any. */
  readonly lastActive: number | undefined;
  /** Whether the channel has been marked idle and so no longer holds back the watermark. */
  readonly idle: boolean;
}

/** A stage shard's input side, as the watermark panel explains it. */
export type ShardInput =
  | {
      /** A source stage: the shard's watermark is `max event time − out-of-orderness`. */
      readonly kind: 'source';
      /** Largest event time the shard has seen (−∞ before any). */
      readonly maxEventTime: number;
      /** Processing time of the shard's last record, when the runtime knows it. */
      readonly lastDataAt?: number;
    }
  | {
      /** An exchange stage: the minimum over the upstream shards' channels that are not idle. */
      readonly kind: 'exchange';
      /** The combined input watermark. */
      readonly watermark: number;
      readonly channels: readonly ChannelWatermark[];
      /** Channels expected (the upstream parallelism); some may not have been heard from yet. */
      readonly expectedChannels: number;
      /** A channel silent this long (ms) is marked idle; undefined: channels never go idle. */
      readonly idleTimeoutMs?: number;
    };

/** The size of one operator's keyed state on one shard. */
export interface StateSize {
  /** Entries (keys, or map entries) held. */
  readonly entries: number;
  /** Bytes, exact or estimated; undefined when the runtime cannot tell cheaply. */
  readonly bytes?: number;
  /** What the numbers are, when not the whole state (e.g. `cached` for a DynamoDB store's cache). */
  readonly scope?: 'all' | 'cached';
}

/** One shard of one stage. */
export interface ShardProbe {
  /** Index of the shard in its stage. */
  readonly shard: number;
  /** How the runtime names the shard (`"0"`, `"shardId-000000000000"`). */
  readonly label: string;
  /** The chain's runners, in chain order (their `metrics` are Flink-named counters). */
  readonly runners: readonly OperatorRunner[];
  /** The input watermark and its channels now. */
  input(): ShardInput;
  /** The watermark the chain last advanced to (−∞ before the first). */
  outputWatermark(): number;
  /**
   * The state size of each runner, in chain order. `withBytes` asks for bytes too, which may
   * cost a walk over the state: callers ask for it rarely.
   */
  state(withBytes: boolean): readonly StateSize[];
}

/** One stage of a running job. */
export interface StageProbe {
  readonly stageId: string;
  /** The shards running now (on AWS a shard appears with its first batch). */
  shards(): readonly ShardProbe[];
}

/**
 * Billed units of a stage, when the runtime counts them (the AWS runtimes): keys name the unit
 * (`dynamodbWriteUnits`, `kinesisPutUnits`, …), values are totals since the job started.
 */
export interface StageBilling {
  readonly units: Readonly<Record<string, number>>;
  /** What those units cost, in US dollars, at the runtime's price list. */
  readonly usd: number;
}

/** A running job, as observers see it. */
export interface JobProbe {
  /** Which runtime runs the job. */
  readonly runtime: 'embedded' | 'local';
  readonly stages: readonly StageProbe[];
  /** Billed units per stage id; absent when the runtime does not count them. */
  billing?(): ReadonlyMap<string, StageBilling>;
}

/** The tap of an operator runner (defined with the runner, which calls it). */
export type { RunnerTap } from './operator-runner.ts';
