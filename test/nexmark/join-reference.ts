/**
 * Independent plain-TypeScript references of the Nexmark join queries (examples/sql/nexmark/
 * q3, q4, q5, q6, q7, q8, q9, q20 in the benchmark's own formulation): loops, maps and sorts over the
 * generated person, auction and bid rows, no engine code. Timestamps are epoch ms numbers, as in
 * the engine's rows; results are multisets (compare with `canonicalRows`).
 */
import type { AuctionRow, BidRow, PersonRow } from '../../shared/nexmark/schemas.ts';
import type { RefRow } from './reference.ts';

/** The three generated tables. */
export interface NexmarkTables {
  readonly person: readonly PersonRow[];
  readonly auction: readonly AuctionRow[];
  readonly bid: readonly BidRow[];
}

/** q3: sellers in OR, ID or CA of category-10 auctions: name, city, state and the auction id. */
export function q3(t: NexmarkTables): RefRow[] {
  const people = new Map<number, PersonRow[]>();
  for (const p of t.person) {
    if (p.state !== 'OR' && p.state !== 'ID' && p.state !== 'CA') continue;
    people.set(p.id, [...(people.get(p.id) ?? []), p]);
  }
  const out: RefRow[] = [];
  for (const a of t.auction) {
    if (a.category !== 10) continue;
    for (const p of people.get(a.seller) ?? []) out.push({ name: p.name, city: p.city, state: p.state, id: a.id });
  }
  return out;
}

/** The bids of each auction placed between its start and its expiry (both included). */
function bidsWhileOpen(t: NexmarkTables): Map<AuctionRow, BidRow[]> {
  const byAuction = new Map<number, BidRow[]>();
  for (const b of t.bid) byAuction.set(b.auction, [...(byAuction.get(b.auction) ?? []), b]);
  const out = new Map<AuctionRow, BidRow[]>();
  for (const a of t.auction) {
    const open = (byAuction.get(a.id) ?? []).filter((b) => b.date_time >= a.date_time && b.date_time <= a.expires);
    if (open.length > 0) out.set(a, open);
  }
  return out;
}

/** q4: per category, the average (BIGINT, truncated) over its auctions of the highest bid while open. */
export function q4(t: NexmarkTables): RefRow[] {
  const perCategory = new Map<number, { sum: number; count: number }>();
  for (const [a, bids] of bidsWhileOpen(t)) {
    const final = Math.max(...bids.map((b) => b.price));
    const s = perCategory.get(a.category) ?? { sum: 0, count: 0 };
    s.sum += final;
    s.count += 1;
    perCategory.set(a.category, s);
  }
  return [...perCategory].map(([category, s]) => ({ id: category, final: Math.trunc(s.sum / s.count) }));
}

/**
 * q6: per seller, the average (BIGINT, truncated) closing price of the seller's last 10 closed
 * auctions, by closing time (the auction's last bid while open), equal closing times by price.
 */
export function q6(t: NexmarkTables): RefRow[] {
  return [...closingBySeller(t)].map(([seller, closed]) => {
    const last10 = closed.slice(0, 10);
    return { seller, avg_price: Math.trunc(last10.reduce((a, c) => a + c.final, 0) / last10.length) };
  });
}

/** Each seller's closed auctions (final price, closing time), latest first. */
function closingBySeller(t: NexmarkTables): Map<number, { final: number; closedAt: number }[]> {
  const bySeller = new Map<number, { final: number; closedAt: number }[]>();
  for (const [a, bids] of bidsWhileOpen(t)) {
    const closed = { final: Math.max(...bids.map((b) => b.price)), closedAt: Math.max(...bids.map((b) => b.date_time)) };
    bySeller.set(a.seller, [...(bySeller.get(a.seller) ?? []), closed]);
  }
  for (const closed of bySeller.values()) closed.sort((x, y) => y.closedAt - x.closedAt || y.final - x.final);
  return bySeller;
}

/** Windows of a HOP(slide, size) containing `ts`, by start (aligned to the slide from the epoch). */
function hopStarts(ts: number, slide: number, size: number): number[] {
  const starts: number[] = [];
  for (let start = ts - (((ts % slide) + slide) % slide); start > ts - size; start -= slide) starts.push(start);
  return starts;
}

/** q5: per HOP(2 s, 10 s) window, the auctions whose bid count reaches the window's largest count. */
export function q5(t: NexmarkTables): RefRow[] {
  const counts = new Map<number, Map<number, number>>();
  for (const b of t.bid) {
    for (const start of hopStarts(b.date_time, 2_000, 10_000)) {
      const perAuction = counts.get(start) ?? new Map<number, number>();
      perAuction.set(b.auction, (perAuction.get(b.auction) ?? 0) + 1);
      counts.set(start, perAuction);
    }
  }
  const out: RefRow[] = [];
  for (const perAuction of counts.values()) {
    const max = Math.max(...perAuction.values());
    for (const [auction, num] of perAuction) if (num >= max) out.push({ auction, num });
  }
  return out;
}

/**
 * q7: every bid whose price equals the highest price of a 10 s TUMBLE window it lies in or at the
 * end of (`date_time BETWEEN window_end - 10 s AND window_end`, both included, as the query says).
 */
export function q7(t: NexmarkTables): RefRow[] {
  const maxByEnd = new Map<number, number>();
  for (const b of t.bid) {
    const end = b.date_time - (b.date_time % 10_000) + 10_000;
    maxByEnd.set(end, Math.max(maxByEnd.get(end) ?? -Infinity, b.price));
  }
  const out: RefRow[] = [];
  for (const b of t.bid) {
    for (const [end, max] of maxByEnd) {
      if (b.price === max && b.date_time >= end - 10_000 && b.date_time <= end) {
        out.push({ auction: b.auction, price: b.price, bidder: b.bidder, date_time: b.date_time, extra: b.extra });
      }
    }
  }
  return out;
}

/** q8: people who joined and opened an auction in the same 10 s TUMBLE window: id, name, window start. */
export function q8(t: NexmarkTables): RefRow[] {
  const start = (ms: number): number => ms - (ms % 10_000);
  const people = new Map<string, { id: number; name: string; w: number }>();
  for (const p of t.person) people.set(`${p.id}/${p.name}/${start(p.date_time)}`, { id: p.id, name: p.name, w: start(p.date_time) });
  const sellers = new Set<string>();
  for (const a of t.auction) sellers.add(`${a.seller}/${start(a.date_time)}`);
  const out: RefRow[] = [];
  for (const p of people.values()) if (sellers.has(`${p.id}/${p.w}`)) out.push({ id: p.id, name: p.name, stime: p.w });
  return out;
}

/** q9: every auction with its winning bid while open: the highest price, the earliest on a tie. */
export function q9(t: NexmarkTables): RefRow[] {
  const out: RefRow[] = [];
  for (const [a, bids] of bidsWhileOpen(t)) {
    const best = bids.reduce((x, y) => (y.price > x.price || (y.price === x.price && y.date_time < x.date_time) ? y : x));
    out.push({
      id: a.id,
      item_name: a.item_name,
      description: a.description,
      initial_bid: a.initial_bid,
      reserve: a.reserve,
      date_time: a.date_time,
      expires: a.expires,
      seller: a.seller,
      category: a.category,
      extra: a.extra,
      auction: best.auction,
      bidder: best.bidder,
      price: best.price,
      bid_date_time: best.date_time,
      bid_extra: best.extra,
    });
  }
  return out;
}

/** q20: every bid with its auction, for auctions of category 10. */
export function q20(t: NexmarkTables): RefRow[] {
  const auctions = new Map<number, AuctionRow>();
  for (const a of t.auction) if (a.category === 10) auctions.set(a.id, a);
  const out: RefRow[] = [];
  for (const b of t.bid) {
    const a = auctions.get(b.auction);
    if (!a) continue;
    out.push({
      auction: b.auction,
      bidder: b.bidder,
      price: b.price,
      channel: b.channel,
      url: b.url,
      bid_date_time: b.date_time,
      bid_extra: b.extra,
      item_name: a.item_name,
      description: a.description,
      initial_bid: a.initial_bid,
      reserve: a.reserve,
      auction_date_time: a.date_time,
      expires: a.expires,
      seller: a.seller,
      category: a.category,
      auction_extra: a.extra,
    });
  }
  return out;
}

/**
 * Auctions of q9 whose winning bid is ambiguous: two bids while open with the highest price and
 * the same earliest time. ROW_NUMBER keeps whichever arrives first, so such an auction's result
 * depends on arrival order; the data the tests use must have none.
 */
export function q9Ties(t: NexmarkTables): number {
  let ties = 0;
  for (const bids of bidsWhileOpen(t).values()) {
    const max = Math.max(...bids.map((b) => b.price));
    const top = bids.filter((b) => b.price === max);
    const earliest = Math.min(...top.map((b) => b.date_time));
    if (top.filter((b) => b.date_time === earliest).length > 1) ties++;
  }
  return ties;
}

/** The join queries' references by name. */
export const JOIN_REFERENCES: Readonly<Record<string, (t: NexmarkTables) => RefRow[]>> = { q3, q4, q5, q6, q7, q8, q9, q20 };
