/**
 * Writes generated Nexmark events as `person.jsonl`, `auction.jsonl` and `bid.jsonl` in the
 * fixture's format (snake_case fields in schema order, timestamps `YYYY-MM-DD HH:MM:SS.mmm`
 * UTC), streaming: memory stays flat however many events are written.
 */
import { createWriteStream, statSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { PlanError } from '../core/errors.ts';
import { formatTimestamp } from '../core/timestamp.ts';
import type { NexmarkOptions } from './config.ts';
import { NexmarkGenerator } from './generator.ts';
import { NEXMARK_TABLES, type NexmarkTable } from './schemas.ts';

/** What {@link writeNexmarkFiles} wrote. */
export interface WrittenFiles {
  readonly files: Record<NexmarkTable, string>;
  readonly rows: Record<NexmarkTable, number>;
  readonly events: number;
}

/** The JSON line of a row; TIMESTAMP columns (`date_time`, `expires`) formatted as the codec reads them. */
export function nexmarkJsonLine(row: Readonly<Record<string, unknown>>): string {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k] = k === 'date_time' || k === 'expires' ? formatTimestamp(v as number) : v;
  return JSON.stringify(out);
}

/**
 * Generates `options.events` events into `<dir>/{person,auction,bid}.jsonl` (overwriting them).
 * `onProgress(eventsDone)` is called every `progressEvery` events and at the end.
 *
 * @throws PlanError when `dir` does not exist or is not a directory.
 */
export async function writeNexmarkFiles(
  dir: string,
  options: NexmarkOptions,
  onProgress?: (eventsDone: number) => void,
  progressEvery = 100_000,
): Promise<WrittenFiles> {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new PlanError(`--out ${dir}: the directory does not exist (create it first)`);
  }
  if (!isDir) throw new PlanError(`--out ${dir}: not a directory`);
  const generator = new NexmarkGenerator(options);
  const files = Object.fromEntries(NEXMARK_TABLES.map((t) => [t, join(dir, `${t}.jsonl`)])) as Record<NexmarkTable, string>;
  const streams = Object.fromEntries(NEXMARK_TABLES.map((t) => [t, createWriteStream(files[t], { encoding: 'utf8' })])) as Record<NexmarkTable, WriteStream>;
  const rows = { person: 0, auction: 0, bid: 0 };
  const buffers: Record<NexmarkTable, string[]> = { person: [], auction: [], bid: [] };
  const errors: Error[] = [];
  for (const s of Object.values(streams)) s.on('error', (e) => errors.push(e));
  // Lines are written in chunks, waiting for 'drain' when a stream's buffer is full, so large
  // runs neither hold everything in memory nor outrun the disk.
  const flush = async (table: NexmarkTable): Promise<void> => {
    const buffer = buffers[table];
    if (buffer.length === 0) return;
    const ok = streams[table].write(`${buffer.join('\n')}\n`);
    buffers[table] = [];
    if (!ok) await once(streams[table], 'drain');
  };
  try {
    for (let n = 0; n < generator.config.events; n++) {
      const event = generator.event(n);
      buffers[event.table].push(nexmarkJsonLine(event.row as unknown as Record<string, unknown>));
      rows[event.table] += 1;
      if (buffers[event.table].length >= 4096) await flush(event.table);
      if (errors.length > 0) throw errors[0] as Error;
      if (onProgress && (n + 1) % progressEvery === 0) onProgress(n + 1);
    }
    for (const t of NEXMARK_TABLES) await flush(t);
  } finally {
    await Promise.all(Object.values(streams).map((s) => new Promise<void>((resolve) => s.end(resolve))));
  }
  if (errors.length > 0) throw new PlanError(`writing Nexmark files to ${dir} failed: ${(errors[0] as Error).message}`);
  onProgress?.(generator.config.events);
  return { files, rows, events: generator.config.events };
}
