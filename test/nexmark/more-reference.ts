/**
 * Independent plain-TypeScript references of the Nexmark queries not covered by reference.ts and
 * join-reference.ts: q0, q1, q2, q10, q14, q16, q17, q21, q22 (examples/sql/nexmark/qN.sql in the
 * benchmark's own formulation, github.com/nexmark/nexmark `nexmark-flink/src/main/resources/
 * queries/qN.sql`), and the invariants of the processing-time query q12. Loops, maps and string
 * code over the generated bid rows, no engine code; each function follows the benchmark query's
 * definition (Flink's semantics for its functions: DATE_FORMAT, HOUR, SPLIT_INDEX,
 * REGEXP_EXTRACT, AVG over BIGINT, DECIMAL arithmetic), not our operators.
 *
 * Timestamps are epoch ms numbers, as in the engine's rows. DECIMAL(23, 3) values are their
 * exact text with three fraction digits (`'8853.000'`); results are multisets (compare with
 * `canonicalRows`).
 */
import type { BidRow } from '../../shared/nexmark/schemas.ts';

/** A result row: column → value (NULL where Flink's function returns NULL). */
export type Row = Record<string, number | string | null>;

const DAY_MS = 86_400_000;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `DATE_FORMAT(ts, 'yyyy-MM-dd')` of a TIMESTAMP(3) (no time zone: the epoch ms read as UTC). */
export function formatDay(ms: number): string {
  const d = new Date(Math.floor(ms / DAY_MS) * DAY_MS);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** `HOUR(ts)` of a TIMESTAMP(3): the hour of day, UTC. */
export function hourOf(ms: number): number {
  return Math.floor((((ms % DAY_MS) + DAY_MS) % DAY_MS) / 3_600_000);
}

/** `DATE_FORMAT(ts, 'HH:mm')`. */
function formatHourMinute(ms: number): string {
  const inDay = ((ms % DAY_MS) + DAY_MS) % DAY_MS;
  return `${pad(Math.floor(inDay / 3_600_000))}:${pad(Math.floor((inDay % 3_600_000) / 60_000))}`;
}

/**
 * `0.908 * price` as Flink types it: DECIMAL(3, 3) × DECIMAL(19, 0) (BIGINT) = DECIMAL(23, 3),
 * exact: the unscaled value is `price * 908`, printed with three fraction digits.
 */
function euros(price: number): { text: string; unscaled: bigint } {
  const unscaled = BigInt(price) * 908n;
  const sign = unscaled < 0n ? '-' : '';
  const abs = unscaled < 0n ? -unscaled : unscaled;
  return { text: `${sign}${abs / 1000n}.${String(abs % 1000n).padStart(3, '0')}`, unscaled };
}

/** q0 (pass through): every bid's auction, bidder, price, date_time and extra. */
export function q0(bids: readonly BidRow[]): Row[] {
  return bids.map((b) => ({ auction: b.auction, bidder: b.bidder, price: b.price, date_time: b.date_time, extra: b.extra }));
}

/** q1 (currency conversion): q0 with the price in euros, `0.908 * price` as DECIMAL(23, 3). */
export function q1(bids: readonly BidRow[]): Row[] {
  return bids.map((b) => ({ auction: b.auction, bidder: b.bidder, price: euros(b.price).text, date_time: b.date_time, extra: b.extra }));
}

/** q2 (selection): auction and price of the bids on auctions whose id is a multiple of 123. */
export function q2(bids: readonly BidRow[]): Row[] {
  return bids.filter((b) => b.auction % 123 === 0).map((b) => ({ auction: b.auction, price: b.price }));
}

/** q10 (log to file system): every bid with `dt` (`yyyy-MM-dd`) and `hm` (`HH:mm`) of its date_time. */
export function q10(bids: readonly BidRow[]): Row[] {
  return bids.map((b) => ({
    auction: b.auction,
    bidder: b.bidder,
    price: b.price,
    date_time: b.date_time,
    extra: b.extra,
    dt: formatDay(b.date_time),
    hm: formatHourMinute(b.date_time),
  }));
}

/**
 * The benchmark's `CountChar` scalar function: occurrences of the first character of `c` in `s`
 * (a NULL `s` counts 0).
 */
export function countChar(s: string | null, c: string): number {
  if (s === null) return 0;
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s[i] === c[0]) n++;
  return n;
}

/**
 * q14 (calculation): bids whose euro price lies strictly between 1,000,000 and 50,000,000, with
 * the euro price, the time-of-day class (hours 8–18 dayTime, ≤ 6 or ≥ 20 nightTime, else
 * otherTime) and the count of 'c' in extra.
 */
export function q14(bids: readonly BidRow[]): Row[] {
  const out: Row[] = [];
  for (const b of bids) {
    const price = euros(b.price);
    // 1,000,000 < price < 50,000,000 on the unscaled value (× 1000), exactly.
    if (!(price.unscaled > 1_000_000_000n && price.unscaled < 50_000_000_000n)) continue;
    const h = hourOf(b.date_time);
    const bidTimeType = h >= 8 && h <= 18 ? 'dayTime' : h <= 6 || h >= 20 ? 'nightTime' : 'otherTime';
    out.push({ auction: b.auction, bidder: b.bidder, price: price.text, bidTimeType, date_time: b.date_time, extra: b.extra, c_counts: countChar(b.extra, 'c') });
  }
  return out;
}

/** The benchmark's three price ranks (q15, q16, q17): below 10,000, below 1,000,000, the rest. */
const RANKS: readonly ((price: number) => boolean)[] = [(p) => p < 10_000, (p) => p >= 10_000 && p < 1_000_000, (p) => p >= 1_000_000];

/** Groups rows by a string key, keeping first-seen order. */
function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = groups.get(k);
    if (list) list.push(r);
    else groups.set(k, [r]);
  }
  return groups;
}

const distinct = (bids: readonly BidRow[], of: (b: BidRow) => number): number => new Set(bids.map(of)).size;

/**
 * q16 (channel statistics): per channel and day, the latest `HH:mm` (as a string maximum), and
 * bid, distinct bidder and distinct auction counts, overall and per price rank.
 */
export function q16(bids: readonly BidRow[]): Row[] {
  const out: Row[] = [];
  for (const group of groupBy(bids, (b) => `${b.channel}\u0000${formatDay(b.date_time)}`).values()) {
    const first = group[0] as BidRow;
    const ranked = RANKS.map((inRank) => group.filter((b) => inRank(b.price)));
    const minutes = group.map((b) => formatHourMinute(b.date_time));
    out.push({
      channel: first.channel,
      day: formatDay(first.date_time),
      minute: minutes.reduce((a, m) => (m > a ? m : a)),
      total_bids: group.length,
      rank1_bids: ranked[0]!.length,
      rank2_bids: ranked[1]!.length,
      rank3_bids: ranked[2]!.length,
      total_bidders: distinct(group, (b) => b.bidder),
      rank1_bidders: distinct(ranked[0]!, (b) => b.bidder),
      rank2_bidders: distinct(ranked[1]!, (b) => b.bidder),
      rank3_bidders: distinct(ranked[2]!, (b) => b.bidder),
      total_auctions: distinct(group, (b) => b.auction),
      rank1_auctions: distinct(ranked[0]!, (b) => b.auction),
      rank2_auctions: distinct(ranked[1]!, (b) => b.auction),
      rank3_auctions: distinct(ranked[2]!, (b) => b.auction),
    });
  }
  return out;
}

/**
 * q17 (auction statistics): per auction and day, bid counts overall and per price rank, and the
 * minimum, maximum, average (AVG over BIGINT is BIGINT in Flink: the sum divided by the count,
 * truncated) and sum of the prices.
 */
export function q17(bids: readonly BidRow[]): Row[] {
  const out: Row[] = [];
  for (const group of groupBy(bids, (b) => `${b.auction}/${formatDay(b.date_time)}`).values()) {
    const first = group[0] as BidRow;
    const prices = group.map((b) => b.price);
    const sum = prices.reduce((a, p) => a + p, 0);
    out.push({
      auction: first.auction,
      day: formatDay(first.date_time),
      total_bids: group.length,
      rank1_bids: prices.filter(RANKS[0]!).length,
      rank2_bids: prices.filter(RANKS[1]!).length,
      rank3_bids: prices.filter(RANKS[2]!).length,
      min_price: Math.min(...prices),
      max_price: Math.max(...prices),
      avg_price: Math.trunc(sum / group.length),
      sum_price: sum,
    });
  }
  return out;
}

/**
 * `REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2)` by hand: the value of the first
 * `channel_id=` that starts the string or follows an `&`, up to the next `&`; NULL without one.
 */
export function channelIdOf(url: string): string | null {
  const key = 'channel_id=';
  for (let at = url.indexOf(key); at >= 0; at = url.indexOf(key, at + 1)) {
    if (at === 0 || url[at - 1] === '&') {
      const start = at + key.length;
      const end = url.indexOf('&', start);
      return url.slice(start, end < 0 ? url.length : end);
    }
  }
  return null;
}

const CHANNEL_IDS: ReadonlyMap<string, string> = new Map([
  ['apple', '0'],
  ['google', '1'],
  ['facebook', '2'],
  ['baidu', '3'],
]);

/**
 * q21 (add channel id): bids of the four named channels (any case) or with a `channel_id` URL
 * parameter: the named channel's id, else the URL's.
 */
export function q21(bids: readonly BidRow[]): Row[] {
  const out: Row[] = [];
  for (const b of bids) {
    const named = CHANNEL_IDS.get(b.channel.toLowerCase());
    const fromUrl = channelIdOf(b.url);
    if (named === undefined && fromUrl === null) continue;
    out.push({ auction: b.auction, bidder: b.bidder, price: b.price, channel: b.channel, channel_id: named ?? fromUrl });
  }
  return out;
}

/**
 * `SPLIT_INDEX(s, sep, i)`: the i-th (from 0) piece of `s` split at every `sep`, empty pieces
 * kept (Flink: `splitByWholeSeparatorPreserveAllTokens`); NULL past the last piece.
 */
export function splitIndex(s: string, sep: string, index: number): string | null {
  if (s.length === 0) return null;
  const pieces: string[] = [];
  let from = 0;
  for (let at = s.indexOf(sep); at >= 0; at = s.indexOf(sep, from)) {
    pieces.push(s.slice(from, at));
    from = at + sep.length;
  }
  pieces.push(s.slice(from));
  return index >= 0 && index < pieces.length ? (pieces[index] as string) : null;
}

/** q22 (get URL directories): the URL's pieces 3, 4 and 5 split at `/` (the three directories). */
export function q22(bids: readonly BidRow[]): Row[] {
  return bids.map((b) => ({
    auction: b.auction,
    bidder: b.bidder,
    price: b.price,
    channel: b.channel,
    dir1: splitIndex(b.url, '/', 3),
    dir2: splitIndex(b.url, '/', 4),
    dir3: splitIndex(b.url, '/', 5),
  }));
}

/** The event-time (or time-free) references by query name. */
export const MORE_REFERENCES: Readonly<Record<string, (bids: readonly BidRow[]) => Row[]>> = { q0, q1, q2, q10, q14, q16, q17, q21, q22 };

/**
 * What must hold of q12's result (bids per bidder in 10 s processing-time TUMBLE windows) whatever
 * the processing times: every violation, as text (empty when all hold).
 *
 * - each window is `[start, start + 10 s)` with `start` a multiple of 10 s (epoch aligned), and
 *   lies within the processing times the run saw (`firstMs` … `lastMs`);
 * - a (bidder, window) appears once, with a positive count;
 * - per bidder, the counts over all windows sum to the bidder's number of bids, and only
 *   bidders who bid appear.
 */
export function q12Violations(bids: readonly BidRow[], rows: readonly Readonly<Record<string, unknown>>[], firstMs: number, lastMs: number): string[] {
  const size = 10_000;
  const violations: string[] = [];
  const expected = new Map<number, number>();
  for (const b of bids) expected.set(b.bidder, (expected.get(b.bidder) ?? 0) + 1);
  const actual = new Map<number, number>();
  const seen = new Set<string>();
  for (const r of rows) {
    const { bidder, bid_count: count, starttime: start, endtime: end } = r as { bidder: number; bid_count: number; starttime: number; endtime: number };
    const where = `bidder ${bidder} window ${start}`;
    if (start % size !== 0) violations.push(`${where}: start not aligned to 10 s`);
    if (end - start !== size) violations.push(`${where}: end ${end} is not start + 10 s`);
    if (start > lastMs || end <= firstMs) violations.push(`${where}: outside the run's processing times ${firstMs}..${lastMs}`);
    if (!(count > 0)) violations.push(`${where}: count ${count}`);
    const key = `${bidder}/${start}`;
    if (seen.has(key)) violations.push(`${where}: appears twice`);
    seen.add(key);
    actual.set(bidder, (actual.get(bidder) ?? 0) + count);
  }
  for (const [bidder, n] of expected) if (actual.get(bidder) !== n) violations.push(`bidder ${bidder}: ${actual.get(bidder) ?? 0} bids over its windows, ${n} bids`);
  for (const bidder of actual.keys()) if (!expected.has(bidder)) violations.push(`bidder ${bidder}: windows but no bids`);
  return violations;
}
