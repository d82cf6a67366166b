/**
 * Generator parameters, with the defaults of the Nexmark reference (nexmark-flink's
 * `NexmarkConfiguration` / `NexmarkSourceOptions`, derived from Apache Beam's Nexmark), and the
 * reference's id and time formulas (`GeneratorConfig`, `PersonGenerator.lastBase0PersonId`, …).
 */
import { PlanError } from '../core/errors.ts';

/** Ids start here so queries find matches even on small data sets (reference constants). */
export const FIRST_PERSON_ID = 1000;
/** First auction id. */
export const FIRST_AUCTION_ID = 1000;
/** First category id. */
export const FIRST_CATEGORY_ID = 10;
/** 2015-07-15 00:00:00.000 UTC: Beam's `NexmarkUtils.BASE_TIME`, and the fixture's first timestamp. */
export const NEXMARK_BASE_TIME = Date.UTC(2015, 6, 15);

/** Options of the generator; every field but `events` has the reference's default. */
export interface NexmarkOptions {
  /** Number of events (persons + auctions + bids) to generate. */
  readonly events: number;
  /** Mixed into every event's `java.util.Random` seed; 0 gives Beam's `new Random(eventId)`. @default 0 */
  readonly seed?: number;
  /** Events per second of event time (`first-event.rate`); sets the inter-event delay. @default 10000 */
  readonly firstEventRate?: number;
  /** Event time of event number 0, epoch ms. @default 2015-07-15 00:00:00 UTC */
  readonly baseTime?: number;
  /**
   * Out-of-order groups (`outOfOrderGroupSize`): each group of this many consecutive events is
   * emitted in a pseudo-random order (`base + (n * 953) % size`). 1 = in order. Must not be a
   * multiple of 953 (the permutation would repeat event numbers). @default 1
   */
  readonly outOfOrderGroupSize?: number;
  /**
   * Bound on how far an event's time may be behind an earlier event's, in ms: picks the largest
   * out-of-order group whose time span fits. Overrides `outOfOrderGroupSize`.
   */
  readonly outOfOrderMs?: number;
  /** @default 1 */
  readonly personProportion?: number;
  /** @default 3 */
  readonly auctionProportion?: number;
  /** @default 46 */
  readonly bidProportion?: number;
  /** 1 in this many bids goes to a random auction; the rest to the current hot auction. @default 2 */
  readonly hotAuctionRatio?: number;
  /** 1 in this many bids comes from a random active person; the rest from the hot bidder. @default 4 */
  readonly hotBiddersRatio?: number;
  /** 1 in this many auctions is sold by a random active person; the rest by the hot seller. @default 4 */
  readonly hotSellersRatio?: number;
  /** Auctions considered in flight for random picks. @default 100 */
  readonly numInFlightAuctions?: number;
  /** People considered active for random picks. @default 1000 */
  readonly numActivePeople?: number;
  /** Average idealized byte sizes; they set the `extra` lengths. @default 200, 500, 100 */
  readonly avgPersonByteSize?: number;
  readonly avgAuctionByteSize?: number;
  readonly avgBidByteSize?: number;
  /** Event id of event number 0 (Beam: 0; nexmark-flink's table source: 1). @default 0 */
  readonly firstEventId?: number;
}

/** Fully resolved parameters. */
export interface NexmarkConfig {
  readonly events: number;
  readonly seed: number;
  readonly firstEventRate: number;
  /** Microseconds between events: 1e6 / rate (one generator). */
  readonly interEventDelayUs: number;
  readonly baseTime: number;
  readonly outOfOrderGroupSize: number;
  readonly personProportion: number;
  readonly auctionProportion: number;
  readonly bidProportion: number;
  readonly totalProportion: number;
  readonly hotAuctionRatio: number;
  readonly hotBiddersRatio: number;
  readonly hotSellersRatio: number;
  readonly numInFlightAuctions: number;
  readonly numActivePeople: number;
  readonly avgPersonByteSize: number;
  readonly avgAuctionByteSize: number;
  readonly avgBidByteSize: number;
  readonly firstEventId: number;
}

function intOption(name: string, value: number | undefined, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < min || v > max) throw new PlanError(`nexmark: ${name} must be an integer ${min}..${max} (given ${String(value)})`);
  return v;
}

/**
 * Resolves options to a config, with the reference's defaults.
 *
 * @throws PlanError on a non-integer or out-of-range option.
 */
export function resolveConfig(options: NexmarkOptions): NexmarkConfig {
  const events = intOption('events', options.events, 0, 0);
  const firstEventRate = intOption('firstEventRate', options.firstEventRate, 10_000, 1, 1_000_000_000);
  const interEventDelayUs = 1_000_000 / firstEventRate;
  const personProportion = intOption('personProportion', options.personProportion, 1, 1, 1000);
  const auctionProportion = intOption('auctionProportion', options.auctionProportion, 3, 1, 1000);
  const bidProportion = intOption('bidProportion', options.bidProportion, 46, 1, 1000);
  let outOfOrderGroupSize = intOption('outOfOrderGroupSize', options.outOfOrderGroupSize, 1, 1, 1_000_000_000);
  if (options.outOfOrderMs !== undefined) {
    const ms = intOption('outOfOrderMs', options.outOfOrderMs, 0, 0, 86_400_000);
    // Events of a group span (size - 1) * delay µs; keep that within the bound. Event times are
    // truncated to ms, so two events (size - 1) * delay apart differ by at most ceil of it: ≤ ms.
    outOfOrderGroupSize = Math.floor((ms * 1000) / interEventDelayUs + 1e-9) + 1;
    // 953 is the reference's permutation multiplier; a multiple of it would repeat numbers.
    if (outOfOrderGroupSize % 953 === 0) outOfOrderGroupSize -= 1;
  }
  if (outOfOrderGroupSize % 953 === 0) {
    throw new PlanError(`nexmark: outOfOrderGroupSize must not be a multiple of 953 (given ${outOfOrderGroupSize}): the reference's permutation (n * 953) % size would repeat event numbers`);
  }
  return {
    events,
    seed: intOption('seed', options.seed, 0, Number.MIN_SAFE_INTEGER),
    firstEventRate,
    interEventDelayUs,
    baseTime: intOption('baseTime', options.baseTime, NEXMARK_BASE_TIME, 0),
    outOfOrderGroupSize,
    personProportion,
    auctionProportion,
    bidProportion,
    totalProportion: personProportion + auctionProportion + bidProportion,
    hotAuctionRatio: intOption('hotAuctionRatio', options.hotAuctionRatio, 2, 1, 0x7fffffff),
    hotBiddersRatio: intOption('hotBiddersRatio', options.hotBiddersRatio, 4, 1, 0x7fffffff),
    hotSellersRatio: intOption('hotSellersRatio', options.hotSellersRatio, 4, 1, 0x7fffffff),
    numInFlightAuctions: intOption('numInFlightAuctions', options.numInFlightAuctions, 100, 1, 1_000_000_000),
    numActivePeople: intOption('numActivePeople', options.numActivePeople, 1000, 1, 1_000_000_000),
    avgPersonByteSize: intOption('avgPersonByteSize', options.avgPersonByteSize, 200, 1, 1_000_000),
    avgAuctionByteSize: intOption('avgAuctionByteSize', options.avgAuctionByteSize, 500, 1, 1_000_000),
    avgBidByteSize: intOption('avgBidByteSize', options.avgBidByteSize, 100, 1, 1_000_000),
    firstEventId: intOption('firstEventId', options.firstEventId, 0, 0),
  };
}

/** `GeneratorConfig.nextAdjustedEventNumber`: the event number after the out-of-order permutation. */
export function adjustedEventNumber(config: NexmarkConfig, eventNumber: number): number {
  const n = config.outOfOrderGroupSize;
  if (n === 1) return eventNumber;
  const base = eventNumber - (eventNumber % n);
  // (eventNumber * 953) % n without overflowing 2^53 for large event numbers.
  return base + (((eventNumber % n) * 953) % n);
}

/** `GeneratorConfig.timestampForEvent`: `baseTime + (long)(n * interEventDelayUs) / 1000`. */
export function timestampForEvent(config: NexmarkConfig, eventNumber: number): number {
  return config.baseTime + Math.trunc(Math.trunc(eventNumber * config.interEventDelayUs) / 1000);
}

/** `PersonGenerator.lastBase0PersonId`: the last person id (base 0) at or before `eventId`. */
export function lastBase0PersonId(config: NexmarkConfig, eventId: number): number {
  const epoch = Math.floor(eventId / config.totalProportion);
  let offset = eventId % config.totalProportion;
  if (offset >= config.personProportion) offset = config.personProportion - 1;
  return epoch * config.personProportion + offset;
}

/** `AuctionGenerator.lastBase0AuctionId`: the last auction id (base 0) at or before `eventId`. */
export function lastBase0AuctionId(config: NexmarkConfig, eventId: number): number {
  let epoch = Math.floor(eventId / config.totalProportion);
  let offset = eventId % config.totalProportion;
  if (offset < config.personProportion) {
    // About to generate a person: the last auction of the previous epoch.
    epoch -= 1;
    offset = config.auctionProportion - 1;
  } else if (offset >= config.personProportion + config.auctionProportion) {
    // About to generate a bid: the last auction of this epoch.
    offset = config.auctionProportion - 1;
  } else {
    offset -= config.personProportion;
  }
  return epoch * config.auctionProportion + offset;
}

/** The kind of event `eventId` is: 0 person, 1 auction, 2 bid (`rem` against the proportions). */
export function eventKind(config: NexmarkConfig, eventId: number): 0 | 1 | 2 {
  const rem = eventId % config.totalProportion;
  if (rem < config.personProportion) return 0;
  if (rem < config.personProportion + config.auctionProportion) return 1;
  return 2;
}
