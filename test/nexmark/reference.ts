/**
 * Independent reference implementations of the Nexmark queries in plain TypeScript — maps,
 * sorts and loops over the generated bid rows, no engine code — with Flink's semantics as
 * examples/nexmark/*.ts state them. Timestamps are epoch ms numbers, as
 * in the engine's rows.
 */
import type { BidRow } from '../../shared/nexmark/schemas.ts';

/** A result row: column → value. */
export type RefRow = Record<string, number | string>;

const DAY_MS = 86_400_000;

/** `DATE_FORMAT(ts, 'yyyy-MM-dd')` in UTC. */
function day(ms: number): string {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

/** q15: per day, COUNT(*) / COUNT(DISTINCT bidder) / COUNT(DISTINCT auction), overall and per price band. */
export function q15(bids: readonly BidRow[]): RefRow[] {
  const bands = [(p: number) => p < 10_000, (p: number) => p >= 10_000 && p < 1_000_000, (p: number) => p >= 1_000_000];
  const days = new Map<string, { total: number; bandBids: number[]; bidders: Set<number>[]; auctions: Set<number>[] }>();
  for (const b of bids) {
    const d = day(b.date_time);
    let s = days.get(d);
    if (!s) {
      s = { total: 0, bandBids: [0, 0, 0], bidders: [new Set(), new Set(), new Set(), new Set()], auctions: [new Set(), new Set(), new Set(), new Set()] };
      days.set(d, s);
    }
    s.total += 1;
    (s.bidders[0] as Set<number>).add(b.bidder);
    (s.auctions[0] as Set<number>).add(b.auction);
    bands.forEach((inBand, i) => {
      if (!inBand(b.price)) return;
      (s.bandBids as number[])[i] = ((s.bandBids as number[])[i] as number) + 1;
      (s.bidders[i + 1] as Set<number>).add(b.bidder);
      (s.auctions[i + 1] as Set<number>).add(b.auction);
    });
  }
  return [...days].map(([d, s]) => ({
    day: d,
    total_bids: s.total,
    rank1_bids: s.bandBids[0] as number,
    rank2_bids: s.bandBids[1] as number,
    rank3_bids: s.bandBids[2] as number,
    total_bidders: (s.bidders[0] as Set<number>).size,
    rank1_bidders: (s.bidders[1] as Set<number>).size,
    rank2_bidders: (s.bidders[2] as Set<number>).size,
    rank3_bidders: (s.bidders[3] as Set<number>).size,
    total_auctions: (s.auctions[0] as Set<number>).size,
    rank1_auctions: (s.auctions[1] as Set<number>).size,
    rank2_auctions: (s.auctions[2] as Set<number>).size,
    rank3_auctions: (s.auctions[3] as Set<number>).size,
  }));
}

/** q18: the last bid per (bidder, auction) by date_time; on equal date_time the later arrival wins. */
export function q18(bids: readonly BidRow[]): RefRow[] {
  const last = new Map<string, BidRow>();
  for (const b of bids) {
    const key = `${b.bidder}/${b.auction}`;
    const prev = last.get(key);
    if (!prev || b.date_time >= prev.date_time) last.set(key, b);
  }
  return [...last.values()].map((b) => ({ ...b }));
}

/** q19: the 10 highest bids per auction by price DESC (ROW_NUMBER; equal prices keep arrival order), with rank_number. */
export function q19(bids: readonly BidRow[]): RefRow[] {
  const byAuction = new Map<number, { bid: BidRow; seq: number }[]>();
  bids.forEach((bid, seq) => {
    const list = byAuction.get(bid.auction) ?? [];
    list.push({ bid, seq });
    byAuction.set(bid.auction, list);
  });
  const out: RefRow[] = [];
  for (const list of byAuction.values()) {
    list.sort((a, b) => b.bid.price - a.bid.price || a.seq - b.seq);
    list.slice(0, 10).forEach(({ bid }, i) => out.push({ ...bid, rank_number: i + 1 }));
  }
  return out;
}

/** Windows of a HOP(slide, size) containing `ts` (starts aligned to the slide, from the epoch). */
function hopWindows(ts: number, slide: number, size: number): number[] {
  const starts: number[] = [];
  const lastStart = ts - (((ts % slide) + slide) % slide);
  for (let start = lastStart; start > ts - size; start -= slide) starts.push(start);
  return starts;
}

/** q5: bids per auction per HOP(2 s, 10 s) window; per window the auctions with the maximum count (ties kept). */
export function q5(bids: readonly BidRow[]): RefRow[] {
  const counts = new Map<number, Map<number, number>>();
  for (const b of bids) {
    for (const start of hopWindows(b.date_time, 2_000, 10_000)) {
      const perAuction = counts.get(start) ?? new Map<number, number>();
      perAuction.set(b.auction, (perAuction.get(b.auction) ?? 0) + 1);
      counts.set(start, perAuction);
    }
  }
  const out: RefRow[] = [];
  for (const [start, perAuction] of counts) {
    const max = Math.max(...perAuction.values());
    for (const [auction, num] of perAuction) if (num === max) out.push({ auction, num, window_start: start, window_end: start + 10_000 });
  }
  return out;
}

/** q7: per 10 s TUMBLE window, every bid with the window's highest price (RANK = 1, ties kept). */
export function q7(bids: readonly BidRow[]): RefRow[] {
  const windows = new Map<number, BidRow[]>();
  for (const b of bids) {
    const start = b.date_time - (b.date_time % 10_000);
    const list = windows.get(start) ?? [];
    list.push(b);
    windows.set(start, list);
  }
  const out: RefRow[] = [];
  for (const [start, list] of windows) {
    const max = Math.max(...list.map((b) => b.price));
    for (const b of list) {
      if (b.price === max) out.push({ auction: b.auction, price: b.price, bidder: b.bidder, date_time: b.date_time, window_start: start, window_end: start + 10_000 });
    }
  }
  return out;
}

/**
 * q11: SESSION windows per bidder with a 10 s gap: each bid opens [t, t + gap); sessions that
 * overlap or touch merge (Flink's TimeWindow.intersects). bid_count, starttime, endtime.
 */
export function q11(bids: readonly BidRow[]): RefRow[] {
  const gap = 10_000;
  const times = new Map<number, number[]>();
  for (const b of bids) {
    const list = times.get(b.bidder) ?? [];
    list.push(b.date_time);
    times.set(b.bidder, list);
  }
  const out: RefRow[] = [];
  for (const [bidder, list] of times) {
    list.sort((a, b) => a - b);
    let start = list[0] as number;
    let end = start + gap;
    let count = 0;
    for (const t of list) {
      if (t <= end) {
        end = Math.max(end, t + gap);
        count += 1;
      } else {
        out.push({ bidder, bid_count: count, starttime: start, endtime: end });
        start = t;
        end = t + gap;
        count = 1;
      }
    }
    out.push({ bidder, bid_count: count, starttime: start, endtime: end });
  }
  return out;
}

/** q13: every bid joined with the side input `{key: i, value: "i"}` (i < 10,000) on `auction % 10000 = key`. */
export function q13(bids: readonly BidRow[], side: ReadonlyMap<number, string> = defaultSideInput()): RefRow[] {
  const out: RefRow[] = [];
  for (const b of bids) {
    const value = side.get(b.auction % 10_000);
    if (value !== undefined) out.push({ auction: b.auction, bidder: b.bidder, price: b.price, date_time: b.date_time, value });
  }
  return out;
}

/** Nexmark q13's side input: keys 0..9999, value = the key as a string. */
export function defaultSideInput(): Map<number, string> {
  const side = new Map<number, string>();
  for (let i = 0; i < 10_000; i++) side.set(i, String(i));
  return side;
}

/** Reference implementation by query name. */
export const REFERENCES: Readonly<Record<string, (bids: readonly BidRow[]) => RefRow[]>> = { q5, q7, q11, q13, q15, q18, q19 };

/** Rows as sorted canonical strings (keys sorted), so row order does not matter. */
export function canonicalRows(rows: readonly Readonly<Record<string, unknown>>[]): string[] {
  return rows.map((r) => JSON.stringify(Object.keys(r).sort().map((k) => [k, r[k]]))).sort();
}
