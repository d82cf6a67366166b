/**
 * The Nexmark event generator: a port of the reference generator (Apache Beam's
 * `NexmarkGenerator`, as carried on in github.com/nexmark/nexmark's nexmark-flink:
 * `GeneratorConfig`, `PersonGenerator`, `AuctionGenerator`, `BidGenerator`, `PriceGenerator`,
 * `StringsGenerator`, `LongGenerator`).
 *
 * What matches the reference exactly (for the same parameters):
 * - the event kinds: event id `firstEventId + adjustedEventNumber`, person / auction / bid by
 *   `id % 50` against the 1 : 3 : 46 proportions;
 * - ids: persons and auctions numbered from 1000 in event order (`lastBase0PersonId`,
 *   `lastBase0AuctionId`), random picks among the active people / in-flight auctions plus 10
 *   "lead" ids (`nextBase0PersonId`, `nextBase0AuctionId`), hot auction / bidder / seller
 *   (`(last / 100) * 100`, `+ 1` for bidders) with the ratios 2, 4, 4;
 * - event times `baseTime + (long)(n * 1e6 / rate) / 1000`, the out-of-order permutation
 *   `base + (n * 953) % groupSize`, auction expiry (`nextAuctionLengthMs`);
 * - every random draw, in the reference's order and with the reference's formulas, from a
 *   `java.util.Random` (bit-exact port of the JDK's): names, emails, credit cards, cities,
 *   states, item names, descriptions, categories, prices `round(10^(u*6) * 100)`, channels,
 *   `extra` strings (including the reference's quirk that `nextExactString` takes `rnd % 26` of
 *   a negative int, so extras contain characters 'H'..'`' as well as letters).
 *
 * What only matches statistically:
 * - the seeds: nexmark-flink draws from one unseeded `Random` per generator (so its runs are
 *   not repeatable). We seed a `java.util.Random` per event with a hash of (seed, event id), so
 *   runs are repeatable per seed and any event can be generated alone — which also makes a
 *   single table cheap (the other tables' events are skipped, not generated and dropped). The
 *   draws within an event follow the reference exactly; the values differ from any given
 *   reference run, as two reference runs differ from each other;
 * - the bid channel URLs: the reference builds the four hot channels' URLs and each
 *   `channel-N`'s URL from unseeded `new Random()` instances, outside the event's stream; we
 *   derive them from the seed (and the channel number), so they are stable per seed but not
 *   the reference's strings. The event's own draws are unaffected, as in the reference;
 * - `Math.pow` may differ from Java's in the last bit on rare inputs, which can move a price by 1.
 *
 * Not reproduced: one nexmark-flink revision adds FIRST_PERSON_ID to the bidder twice (bidders
 * 2000 above the person ids); we add it once, as Beam and the other revisions do.
 */
import { fmix32 } from '../core/mix32.ts';
import { JavaRandom } from './java-random.ts';
import {
  FIRST_AUCTION_ID,
  FIRST_CATEGORY_ID,
  FIRST_PERSON_ID,
  adjustedEventNumber,
  eventKind,
  lastBase0AuctionId,
  lastBase0PersonId,
  resolveConfig,
  timestampForEvent,
  type NexmarkConfig,
  type NexmarkOptions,
} from './config.ts';
import type { AuctionRow, BidRow, NexmarkRows, NexmarkTable, PersonRow } from './schemas.ts';

/** One generated event: its table and row, in the order the reference emits them. */
export type NexmarkEvent =
  | { readonly table: 'person'; readonly row: PersonRow }
  | { readonly table: 'auction'; readonly row: AuctionRow }
  | { readonly table: 'bid'; readonly row: BidRow };

const PERSON_ID_LEAD = 10;
const AUCTION_ID_LEAD = 10;
const NUM_CATEGORIES = 5;
const HOT_AUCTION_RATIO = 100;
const HOT_BIDDER_RATIO = 100;
const HOT_SELLER_RATIO = 100;
const HOT_CHANNELS_RATIO = 2;
const CHANNELS_NUMBER = 10_000;
const MIN_STRING_LENGTH = 3;

/** The reference's lists (PersonGenerator, BidGenerator). */
export const US_STATES = ['AZ', 'CA', 'ID', 'OR', 'WA', 'WY'] as const;
export const US_CITIES = ['Phoenix', 'Los Angeles', 'San Francisco', 'Boise', 'Portland', 'Bend', 'Redmond', 'Seattle', 'Kent', 'Cheyenne'] as const;
export const FIRST_NAMES = ['Peter', 'Paul', 'Luke', 'John', 'Saul', 'Vicky', 'Kate', 'Julie', 'Sarah', 'Deiter', 'Walter'] as const;
export const LAST_NAMES = ['Shultz', 'Abrams', 'Spencer', 'White', 'Bartels', 'Walton', 'Smith', 'Jones', 'Noris'] as const;
export const HOT_CHANNELS = ['Google', 'Facebook', 'Baidu', 'Apple'] as const;

/** Golden-ratio multiplier that spreads the user seed over the 48 seed bits. */
const SEED_MIX = 0x9e3779b97f4a7c15n;
/** Distinct streams for the URLs, so they never coincide with an event's stream. */
const URL_STREAM = 0x5eed_0000_0000n;

/** `StringsGenerator.nextString(random, maxLength, special)`. */
function nextString(random: JavaRandom, maxLength: number, special = ' '): string {
  let len = MIN_STRING_LENGTH + random.nextIntBounded(maxLength - MIN_STRING_LENGTH);
  let s = '';
  while (len-- > 0) {
    s += random.nextIntBounded(13) === 0 ? special : String.fromCharCode(97 + random.nextIntBounded(26));
  }
  // Java's trim() strips chars <= ' ' at both ends; only ' ' can occur here.
  return special === ' ' ? s.trim() : s;
}

const exactChars: number[] = [];

/** `StringsGenerator.nextExactString`: six chars per `nextInt()`, `'a' + rnd % 26` (signed, as in Java). */
function nextExactString(random: JavaRandom, length: number): string {
  exactChars.length = length;
  let rnd = 0;
  let n = 0;
  for (let i = 0; i < length; i++) {
    if (n === 0) {
      rnd = random.nextInt();
      n = 6;
    }
    exactChars[i] = 97 + (rnd % 26);
    rnd = (rnd / 26) | 0;
    n--;
  }
  return String.fromCharCode.apply(null, exactChars);
}

/** `StringsGenerator.nextExtra`: pads the event to about `desiredAverageSize` bytes. */
function nextExtra(random: JavaRandom, currentSize: number, desiredAverageSize: number): string {
  if (currentSize > desiredAverageSize) return '';
  const remaining = desiredAverageSize - currentSize;
  const delta = Math.round(remaining * 0.2);
  const minSize = remaining - delta;
  const size = minSize + (delta === 0 ? 0 : random.nextIntBounded(2 * delta));
  return nextExactString(random, size);
}

/** `LongGenerator.nextLong(random, n)`: `nextInt(n)` below 2^31 - 1, else the reference's skewed `abs(nextLong() % n)`. */
function nextLong(random: JavaRandom, n: number): number {
  if (n < 0x7fffffff) return random.nextIntBounded(n);
  const v = random.nextLong() % BigInt(n);
  return Number(v < 0n ? -v : v);
}

/** `PriceGenerator.nextPrice`: log-uniform over [100, 10^8]. */
function nextPrice(random: JavaRandom): number {
  return Math.round(Math.pow(10, random.nextDouble() * 6) * 100);
}

/** `PersonGenerator.nextBase0PersonId`: a random active person, or up to 10 not yet created. */
function nextBase0PersonId(config: NexmarkConfig, eventId: number, random: JavaRandom): number {
  const numPeople = lastBase0PersonId(config, eventId) + 1;
  const activePeople = Math.min(numPeople, config.numActivePeople);
  const n = nextLong(random, activePeople + PERSON_ID_LEAD);
  return numPeople - activePeople + n;
}

/** `AuctionGenerator.nextBase0AuctionId`: a random in-flight auction, or up to 10 not yet created. */
function nextBase0AuctionId(config: NexmarkConfig, eventId: number, random: JavaRandom): number {
  const maxAuction = lastBase0AuctionId(config, eventId);
  const minAuction = Math.max(maxAuction - config.numInFlightAuctions, 0);
  return minAuction + nextLong(random, maxAuction - minAuction + 1 + AUCTION_ID_LEAD);
}


/** Java's `Integer.reverse` then `Math.abs` (which leaves MIN_VALUE negative, as Java does). */
function reverseBitsAbs(x: number): number {
  let v = 0;
  for (let i = 0; i < 32; i++) v = (v << 1) | ((x >>> i) & 1);
  return v === -2147483648 ? v : Math.abs(v);
}

/**
 * Generates Nexmark events for one configuration. Holds the per-seed URL cache; each event is a
 * pure function of (config, event number), so {@link NexmarkGenerator.event} can be called in
 * any order and for any subset.
 */
export class NexmarkGenerator {
  readonly config: NexmarkConfig;
  private readonly random = new JavaRandom();
  private readonly seedLo: number;
  private readonly seedHi: number;
  private readonly hotUrls: readonly string[];
  private readonly channelUrls = new Map<number, string>();

  constructor(options: NexmarkOptions) {
    this.config = resolveConfig(options);
    this.seedLo = this.config.seed | 0;
    this.seedHi = Math.floor(this.config.seed / 0x100000000) | 0;
    const urlRandom = new JavaRandom(BigInt(this.config.seed) * SEED_MIX + URL_STREAM);
    this.hotUrls = HOT_CHANNELS.map(() => baseUrl(urlRandom));
  }

  /** Event id of event number `n` (after the out-of-order permutation). */
  eventId(n: number): number {
    return this.config.firstEventId + adjustedEventNumber(this.config, n);
  }

  /** Table of event number `n`, without generating it. */
  tableOf(n: number): NexmarkTable {
    const kind = eventKind(this.config, this.eventId(n));
    return kind === 0 ? 'person' : kind === 1 ? 'auction' : 'bid';
  }

  /** The event with number `n` (0-based position in the stream). */
  event(n: number): NexmarkEvent {
    const table = this.tableOf(n);
    if (table === 'person') return { table, row: this.person(n) };
    if (table === 'auction') return { table, row: this.auction(n) };
    return { table, row: this.bid(n) };
  }

  /**
   * Seeds the shared `java.util.Random` for event id `eventId` from a hash of (seed, event id).
   * Not the raw event id: consecutive seeds make java.util.Random's first draws correlated —
   * seeding with the event id itself gave 42 % hot-auction bids instead of 50 %.
   */
  private seeded(eventId: number): JavaRandom {
    const idLo = eventId >>> 0;
    const idHi = Math.floor(eventId / 0x100000000) >>> 0;
    const h1 = fmix32(idLo ^ this.seedLo ^ Math.imul(idHi ^ this.seedHi, 0x9e3779b1));
    const h2 = fmix32(h1 ^ Math.imul(idLo + 0x7f4a7c15, 0x85ebca77) ^ this.seedHi);
    this.random.setSeed48(h1 >>> 8, h2 & 0xffffff);
    return this.random;
  }

  /** `PersonGenerator.nextPerson` for event number `n` (which must be a person event). */
  person(n: number): PersonRow {
    const config = this.config;
    const eventId = this.eventId(n);
    const random = this.seeded(eventId);
    const timestamp = timestampForEvent(config, adjustedEventNumber(config, n));
    const id = lastBase0PersonId(config, eventId) + FIRST_PERSON_ID;
    const name = `${FIRST_NAMES[random.nextIntBounded(FIRST_NAMES.length)]} ${LAST_NAMES[random.nextIntBounded(LAST_NAMES.length)]}`;
    const email = `${nextString(random, 7)}@${nextString(random, 5)}.com`;
    let card = '';
    for (let i = 0; i < 4; i++) card += (i > 0 ? ' ' : '') + String(random.nextIntBounded(10_000)).padStart(4, '0');
    const city = US_CITIES[random.nextIntBounded(US_CITIES.length)] as string;
    const state = US_STATES[random.nextIntBounded(US_STATES.length)] as string;
    const currentSize = 8 + name.length + email.length + card.length + city.length + state.length;
    const extra = nextExtra(random, currentSize, config.avgPersonByteSize);
    return { id, name, email_address: email, credit_card: card, city, state, date_time: timestamp, extra };
  }

  /** `AuctionGenerator.nextAuction` for event number `n` (which must be an auction event). */
  auction(n: number): AuctionRow {
    const config = this.config;
    const eventId = this.eventId(n);
    const random = this.seeded(eventId);
    const currentEventNumber = adjustedEventNumber(config, n);
    const timestamp = timestampForEvent(config, currentEventNumber);
    const id = lastBase0AuctionId(config, eventId) + FIRST_AUCTION_ID;
    let seller: number;
    // P(hot seller) = 1 - 1/hotSellersRatio: the first person of the last batch of 100.
    if (random.nextIntBounded(config.hotSellersRatio) > 0) {
      seller = Math.floor(lastBase0PersonId(config, eventId) / HOT_SELLER_RATIO) * HOT_SELLER_RATIO;
    } else {
      seller = nextBase0PersonId(config, eventId, random);
    }
    seller += FIRST_PERSON_ID;
    const category = FIRST_CATEGORY_ID + random.nextIntBounded(NUM_CATEGORIES);
    const initialBid = nextPrice(random);
    // nextAuctionLengthMs: average length = time until numInFlightAuctions more auctions exist.
    const numEventsForAuctions = Math.floor((config.numInFlightAuctions * config.totalProportion) / config.auctionProportion);
    const futureAuction = timestampForEvent(config, currentEventNumber + numEventsForAuctions);
    const horizonMs = futureAuction - timestamp;
    const expires = timestamp + 1 + nextLong(random, Math.max(horizonMs * 2, 1));
    const itemName = nextString(random, 20);
    const description = nextString(random, 100);
    const reserve = initialBid + nextPrice(random);
    const currentSize = 8 + itemName.length + description.length + 8 + 8 + 8 + 8 + 8;
    const extra = nextExtra(random, currentSize, config.avgAuctionByteSize);
    return {
      id,
      item_name: itemName,
      description,
      initial_bid: initialBid,
      reserve,
      date_time: timestamp,
      expires,
      seller,
      category,
      extra,
    };
  }

  /** `BidGenerator.nextBid` for event number `n` (which must be a bid event). */
  bid(n: number): BidRow {
    const config = this.config;
    const eventId = this.eventId(n);
    const random = this.seeded(eventId);
    const timestamp = timestampForEvent(config, adjustedEventNumber(config, n));
    let auction: number;
    // P(hot auction) = 1 - 1/hotAuctionRatio: the first auction of the last batch of 100.
    if (random.nextIntBounded(config.hotAuctionRatio) > 0) {
      auction = Math.floor(lastBase0AuctionId(config, eventId) / HOT_AUCTION_RATIO) * HOT_AUCTION_RATIO;
    } else {
      auction = nextBase0AuctionId(config, eventId, random);
    }
    auction += FIRST_AUCTION_ID;
    let bidder: number;
    // P(hot bidder) = 1 - 1/hotBiddersRatio: the second person of the last batch of 100, so
    // hot bidders and hot sellers differ.
    if (random.nextIntBounded(config.hotBiddersRatio) > 0) {
      bidder = Math.floor(lastBase0PersonId(config, eventId) / HOT_BIDDER_RATIO) * HOT_BIDDER_RATIO + 1;
    } else {
      bidder = nextBase0PersonId(config, eventId, random);
    }
    bidder += FIRST_PERSON_ID;
    const price = nextPrice(random);
    let channel: string;
    let url: string;
    if (random.nextIntBounded(HOT_CHANNELS_RATIO) > 0) {
      const i = random.nextIntBounded(HOT_CHANNELS.length);
      channel = HOT_CHANNELS[i] as string;
      url = this.hotUrls[i] as string;
    } else {
      const number = random.nextIntBounded(CHANNELS_NUMBER);
      channel = `channel-${number}`;
      url = this.channelUrl(number);
    }
    const extra = nextExtra(random, 8 + 8 + 8 + 8, config.avgBidByteSize);
    return { auction, bidder, price, channel, url, date_time: timestamp, extra };
  }

  /** The URL of `channel-N`: a base URL, with `&channel_id=abs(reverse(N))` 9 times in 10 (reference rule). */
  private channelUrl(number: number): string {
    let url = this.channelUrls.get(number);
    if (url === undefined) {
      const r = new JavaRandom(BigInt(this.config.seed) * SEED_MIX + URL_STREAM + BigInt(number + 1));
      url = baseUrl(r);
      if (r.nextIntBounded(10) > 0) url += `&channel_id=${reverseBitsAbs(number)}`;
      this.channelUrls.set(number, url);
    }
    return url;
  }
}

/** `BidGenerator.getBaseUrl`: three path parts of 3–4 chars (`_` as the special char). */
function baseUrl(random: JavaRandom): string {
  return `https://www.nexmark.com/${nextString(random, 5, '_')}/${nextString(random, 5, '_')}/${nextString(random, 5, '_')}/item.htm?query=1`;
}

/**
 * Generates `options.events` events in stream order (event number 0, 1, …).
 *
 * @throws PlanError on invalid options (see {@link resolveConfig}).
 */
export function* generate(options: NexmarkOptions): Generator<NexmarkEvent> {
  const generator = new NexmarkGenerator(options);
  const events = generator.config.events;
  for (let n = 0; n < events; n++) yield generator.event(n);
}

/**
 * Generates the rows of one table, in stream order, skipping the other tables' events without
 * generating them (each event has its own seeded stream, so the rows are exactly those
 * {@link generate} yields for that table). `shard` / `shards` keep every `shards`-th event.
 */
export function* generateTable<T extends NexmarkTable>(options: NexmarkOptions, table: T, shard = 0, shards = 1): Generator<NexmarkRows[T]> {
  const generator = new NexmarkGenerator(options);
  const events = generator.config.events;
  const make = (table === 'person' ? generator.person : table === 'auction' ? generator.auction : generator.bid).bind(generator) as (n: number) => NexmarkRows[T];
  for (let n = shard; n < events; n += shards) {
    if (generator.tableOf(n) === table) yield make(n);
  }
}

/** How many events of each table the first `events` events contain. */
export function tableCounts(options: NexmarkOptions): Record<NexmarkTable, number> {
  const generator = new NexmarkGenerator(options);
  const counts = { person: 0, auction: 0, bid: 0 };
  for (let n = 0; n < generator.config.events; n++) counts[generator.tableOf(n)] += 1;
  return counts;
}
