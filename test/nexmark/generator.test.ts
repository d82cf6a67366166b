/**
 * The Nexmark generator: Java-exact randomness, the reference's proportions, id ranges, hot
 * auctions, prices, determinism, schema validity and bounded out-of-orderness.
 */
import { describe, expect, it } from 'vitest';
import * as exampleSchemas from '../../examples/nexmark/schemas.ts';
import { createRowDecoder, createRowEncoder } from '../../shared/core/codec.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import { NEXMARK_BASE_TIME, lastBase0AuctionId, resolveConfig } from '../../shared/nexmark/config.ts';
import { HOT_CHANNELS, NexmarkGenerator, generate, generateTable, type NexmarkEvent } from '../../shared/nexmark/generator.ts';
import { JavaRandom } from '../../shared/nexmark/java-random.ts';
import { nexmarkJsonLine } from '../../shared/nexmark/write-files.ts';
import { AUCTION, BID, PERSON, type AuctionRow, type BidRow, type PersonRow } from '../../shared/nexmark/schemas.ts';

const EVENTS = 50_000;
const events: NexmarkEvent[] = [...generate({ events: EVENTS, seed: 3 })];
const persons = events.filter((e) => e.table === 'person').map((e) => e.row as PersonRow);
const auctions = events.filter((e) => e.table === 'auction').map((e) => e.row as AuctionRow);
const bids = events.filter((e) => e.table === 'bid').map((e) => e.row as BidRow);

describe('JavaRandom', () => {
  it('reproduces java.util.Random (values printed by a JDK)', () => {
    const r = new JavaRandom(42);
    expect([r.nextInt(), r.nextInt(), r.nextIntBounded(10), r.nextIntBounded(16), r.nextDouble()]).toEqual([-1170105035, 234785527, 8, 0, 0.30871945533265976]);
    expect(r.nextLong()).toBe(5111195811822994797n);
    const q = new JavaRandom(123456789012345n);
    const draws = [0, 1, 2, 3, 4].map(() => q.nextIntBounded(13));
    expect([...draws, q.nextIntBounded(1000000007), Math.round(10 ** (q.nextDouble() * 6) * 100)]).toEqual([6, 1, 7, 8, 3, 802514861, 331]);
    expect(new JavaRandom(0).nextInt()).toBe(-1155484576);
  });
});

describe('Nexmark generator', () => {
  it('interleaves person, auction and bid 1:3:46 in every 50 events', () => {
    for (let block = 0; block < EVENTS / 50; block += 97) {
      const kinds = events.slice(block * 50, block * 50 + 50).map((e) => e.table);
      expect(kinds.filter((k) => k === 'person')).toHaveLength(1);
      expect(kinds.filter((k) => k === 'auction')).toHaveLength(3);
      expect(kinds.filter((k) => k === 'bid')).toHaveLength(46);
      expect(kinds.slice(0, 4)).toEqual(['person', 'auction', 'auction', 'auction']);
    }
    expect([persons.length, auctions.length, bids.length]).toEqual([1000, 3000, 46000]);
  });

  it('numbers persons and auctions from 1000 in event order, and picks ids among those that exist (plus 10 leads)', () => {
    expect(persons.map((p) => p.id)).toEqual(persons.map((_, i) => 1000 + i));
    expect(auctions.map((a) => a.id)).toEqual(auctions.map((_, i) => 1000 + i));
    let lastPerson = 999;
    let lastAuction = 999;
    // Violations are collected, not asserted per row: 50,000 expect calls would dominate the test.
    const bad: string[] = [];
    for (const e of events) {
      if (e.table === 'person') lastPerson = e.row.id;
      else if (e.table === 'auction') {
        const a = e.row;
        lastAuction = a.id;
        if (a.seller < Math.max(1000, lastPerson - 1000) || a.seller > lastPerson + 10) bad.push(`seller ${a.seller}`);
        if (a.category < 10 || a.category >= 15) bad.push(`category ${a.category}`);
        if (a.expires <= a.date_time || a.reserve <= a.initial_bid) bad.push(`auction ${a.id}`);
      } else {
        const b = e.row;
        if (b.auction < Math.max(1000, lastAuction - 100) || b.auction > lastAuction + 10) bad.push(`auction ${b.auction}`);
        if (b.bidder < Math.max(1000, lastPerson - 1000) || b.bidder > lastPerson + 10) bad.push(`bidder ${b.bidder}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('sends about half the bids to the hot auction and three quarters from the hot bidder (ratios 2 and 4)', () => {
    const config = resolveConfig({ events: EVENTS });
    let hotAuction = 0;
    let hotBidder = 0;
    events.forEach((e, n) => {
      if (e.table !== 'bid') return;
      if (e.row.auction === Math.floor(lastBase0AuctionId(config, n) / 100) * 100 + 1000) hotAuction += 1;
      if (e.row.bidder === Math.floor(Math.floor(n / 50) / 100) * 100 + 1 + 1000) hotBidder += 1;
    });
    // Random picks can land on the hot id too, so the share is a little above 1 - 1/ratio.
    expect(hotAuction / bids.length).toBeGreaterThan(0.49);
    expect(hotAuction / bids.length).toBeLessThan(0.53);
    expect(hotBidder / bids.length).toBeGreaterThan(0.74);
    expect(hotBidder / bids.length).toBeLessThan(0.77);
    const hotSeller = auctions.filter((a, i) => a.seller === Math.floor(Math.floor((i / 3) | 0) / 100) * 100 + 1000).length;
    expect(hotSeller / auctions.length).toBeGreaterThan(0.74);
  });

  it('draws prices log-uniformly from [100, 10^8] (round(10^(u*6) * 100))', () => {
    const prices = bids.map((b) => b.price);
    expect(Math.min(...prices)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...prices)).toBeLessThanOrEqual(100_000_000);
    // Log-uniform: each of the six decades holds about 1/6 of the prices.
    for (let d = 0; d < 6; d++) {
      const share = prices.filter((p) => p >= 100 * 10 ** d && p < 100 * 10 ** (d + 1)).length / prices.length;
      expect(share).toBeGreaterThan(0.15);
      expect(share).toBeLessThan(0.183);
    }
  });

  it('uses the reference channels: half the bids on Google/Facebook/Baidu/Apple, the rest on channel-N with N < 10000', () => {
    const hot = bids.filter((b) => (HOT_CHANNELS as readonly string[]).includes(b.channel));
    expect(hot.length / bids.length).toBeGreaterThan(0.48);
    expect(hot.length / bids.length).toBeLessThan(0.52);
    const urlPattern = /^https:\/\/www\.nexmark\.com\/[a-z_]{3,4}\/[a-z_]{3,4}\/[a-z_]{3,4}\/item\.htm\?query=1(&channel_id=\d+)?$/;
    const bad = bids.filter((b) => !(HOT_CHANNELS as readonly string[]).includes(b.channel) && !/^channel-\d{1,4}$/.test(b.channel));
    expect(bad).toEqual([]);
    expect(bids.filter((b) => !urlPattern.test(b.url))).toEqual([]);
    // A channel's URL is the same on every bid (the reference caches it per channel).
    const urls = new Map<string, string>();
    expect(bids.filter((b) => (urls.get(b.channel) ?? (urls.set(b.channel, b.url), b.url)) !== b.url)).toEqual([]);
  });

  it('times events from 2015-07-15 00:00:00 UTC at the event rate (10,000/s: 10 events per ms)', () => {
    expect(events[0]?.row.date_time).toBe(NEXMARK_BASE_TIME);
    expect(events[EVENTS - 1]?.row.date_time).toBe(NEXMARK_BASE_TIME + Math.floor((EVENTS - 1) / 10));
    const slow = [...generate({ events: 3, firstEventRate: 200 })].map((e) => e.row.date_time - NEXMARK_BASE_TIME);
    expect(slow).toEqual([0, 5, 10]);
    expect(persons.every((p) => p.name.split(' ').length === 2 && /^\d{4} \d{4} \d{4} \d{4}$/.test(p.credit_card) && /^[a-z ]*@[a-z ]*\.com$/.test(p.email_address))).toBe(true);
  });

  it('is deterministic per seed, and different across seeds', () => {
    const again = [...generate({ events: 2000, seed: 3 })];
    expect(again).toEqual(events.slice(0, 2000));
    const other = [...generate({ events: 2000, seed: 4 })];
    expect(other.map((e) => e.table)).toEqual(again.map((e) => e.table));
    expect(other.filter((e, i) => JSON.stringify(e) !== JSON.stringify(again[i])).length).toBeGreaterThan(1900);
  });

  it('generates one table alone with exactly the rows of the full stream', () => {
    expect([...generateTable({ events: EVENTS, seed: 3 }, 'bid')]).toEqual(bids);
    expect([...generateTable({ events: EVENTS, seed: 3 }, 'person')]).toEqual(persons);
    expect(new NexmarkGenerator({ events: EVENTS, seed: 3 }).event(4321)).toEqual(events[4321]);
  });

  it('writes rows every codec decodes with the Nexmark schemas (bid: examples/nexmark/schemas.ts)', () => {
    expect(BID).toEqual(exampleSchemas.BID);
    const exported = exampleSchemas as Record<string, unknown>;
    const schemas = {
      person: schemaOf((exported.PERSON as typeof PERSON | undefined) ?? PERSON),
      auction: schemaOf((exported.AUCTION as typeof AUCTION | undefined) ?? AUCTION),
      bid: schemaOf(exampleSchemas.BID),
    };
    const decoders = { person: createRowDecoder(schemas.person), auction: createRowDecoder(schemas.auction), bid: createRowDecoder(schemas.bid) };
    const encoders = { person: createRowEncoder(schemas.person), auction: createRowEncoder(schemas.auction), bid: createRowEncoder(schemas.bid) };
    for (const e of events.slice(0, 5000)) {
      const line = nexmarkJsonLine(e.row as unknown as Record<string, unknown>);
      const decoded = decoders[e.table](JSON.parse(line));
      expect(decoded).toEqual(e.row);
      expect(Object.keys(JSON.parse(line))).toEqual(schemas[e.table].fields.map((f) => f.name));
      expect(JSON.stringify(encoders[e.table](decoded))).toBe(line);
    }
  });

  it.each([0, 500, 2000, 4000])('keeps out-of-order event times within %i ms, with every event still generated once', (ms) => {
    const shuffled = [...generate({ events: 30_000, seed: 5, outOfOrderMs: ms })];
    let maxSeen = -Infinity;
    let maxLateness = 0;
    for (const e of shuffled) {
      maxLateness = Math.max(maxLateness, maxSeen - e.row.date_time);
      maxSeen = Math.max(maxSeen, e.row.date_time);
    }
    expect(maxLateness).toBeLessThanOrEqual(ms);
    if (ms >= 500) expect(maxLateness).toBeGreaterThan(ms / 2);
    const ids = shuffled.filter((e) => e.table === 'person').map((e) => (e.row as PersonRow).id);
    // A permutation within groups: no event number twice (a partial last group can bring in
    // events from past the end, as in the reference).
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('rejects bad options with clear errors', () => {
    expect(() => [...generate({ events: 1.5 })]).toThrow('events must be an integer');
    expect(() => [...generate({ events: 10, outOfOrderGroupSize: 953 })]).toThrow('multiple of 953');
    expect(() => [...generate({ events: 10, firstEventRate: 0 })]).toThrow('firstEventRate');
  });
});
