/**
 * Deterministic benchmark input: Nexmark-bid-shaped JSON lines written once to a temporary
 * file, so every case of a run reads the same bytes.
 */
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatTimestamp } from '../core/timestamp.ts';

/** Schema of the benchmark records (a Nexmark bid). */
export const BID_SCHEMA = {
  auction: 'BIGINT NOT NULL',
  bidder: 'BIGINT NOT NULL',
  price: 'BIGINT NOT NULL',
  channel: 'STRING',
  url: 'STRING',
  date_time: 'TIMESTAMP(3) NOT NULL',
  extra: 'STRING',
} as const;

/** A seeded 32-bit PRNG (mulberry32): the same seed gives the same stream everywhere. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Writes `events` bid lines over `keys` auctions; returns the file and a cleanup function. */
export function writeBidFile(events: number, keys: number, seed = 42): { path: string; bytes: number; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'flambda-bench-'));
  const path = join(dir, 'bid.jsonl');
  const random = seededRandom(seed);
  const start = Date.UTC(2015, 6, 15);
  const channels = ['Google', 'Facebook', 'Baidu', 'Apple'];
  const parts: string[] = [];
  let bytes = 0;
  for (let i = 0; i < events; i++) {
    const auction = 1000 + Math.floor(random() * keys);
    const line = JSON.stringify({
      auction,
      bidder: 1000 + Math.floor(random() * 10_000),
      price: Math.floor(100 + random() * 1_000_000),
      channel: channels[i % 4],
      url: `https://www.nexmark.com/item.htm?query=1&channel_id=${auction}`,
      date_time: formatTimestamp(start + i),
      extra: 'x'.repeat(20),
    });
    parts.push(line);
    bytes += line.length + 1;
  }
  writeFileSync(path, `${parts.join('\n')}\n`);
  return { path, bytes, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
