/**
 * Writes generated Nexmark events as `person.jsonl`, `auction.jsonl` and `bid.jsonl` in the
 * fixture's format (snake_case fields in schema order, timestamps `YYYY-MM-DD HH:MM:SS.mmm`
 * UTC), streaming: memory stays flat however many events are written; and q13's side input
 * `side_input.jsonl` beside them, so every example query has its input.
 */
import { createWriteStream, existsSync, mkdirSync, statSync, writeFileSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { PlanError } from '../core/errors.ts';
import { formatTimestamp } from '../core/timestamp.ts';
import type { NexmarkOptions } from './config.ts';
import { NexmarkGenerator } from './generator.ts';
import { NEXMARK_TABLES, type NexmarkTable } from './schemas.ts';
import { NEXMARK_SIDE_INPUT_FILE, NEXMARK_SIDE_INPUT_ROWS, nexmarkSideInputJsonl } from './side-input.ts';

/** The files {@link writeNexmarkFiles} writes: one per table, and q13's side input. */
export type NexmarkFile = NexmarkTable | 'side_input';

/** What {@link writeNexmarkFiles} wrote. */
export interface WrittenFiles {
  readonly files: Record<NexmarkFile, string>;
  readonly rows: Record<NexmarkFile, number>;
  readonly events: number;
}

/** How {@link writeNexmarkFiles} writes. */
export interface WriteNexmarkFilesOptions {
  /** Called with the events generated so far every `progressEvery` events and at the end. */
  readonly onProgress?: (eventsDone: number) => void;
  /** @default 100,000 */
  readonly progressEvery?: number;
  /** Overwrite files that already exist (otherwise they are an error). @default false */
  readonly force?: boolean;
}

/** The path of every file written into `dir`. */
export function nexmarkFilePaths(dir: string): Record<NexmarkFile, string> {
  const tables = Object.fromEntries(NEXMARK_TABLES.map((t) => [t, join(dir, `${t}.jsonl`)])) as Record<NexmarkTable, string>;
  return { ...tables, side_input: join(dir, NEXMARK_SIDE_INPUT_FILE) };
}

/**
 * Makes `dir` and its parents (as `mkdir -p` does) and checks no file to be written exists yet,
 * unless `force`: a generator run must not silently replace data one may still need.
 *
 * @throws PlanError when `dir` is a file, cannot be created, or holds one of the files.
 */
function prepareDirectory(dir: string, force: boolean): Record<NexmarkFile, string> {
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new PlanError(`--out ${dir}: not a directory`);
  const files = nexmarkFilePaths(dir);
  const existing = Object.values(files).filter((f) => existsSync(f));
  if (!force && existing.length > 0) {
    throw new PlanError(`--out ${dir}: ${existing.join(', ')} already ${existing.length === 1 ? 'exists' : 'exist'} (pass --force to overwrite)`);
  }
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new PlanError(`--out ${dir}: cannot create the directory: ${(error as Error).message}`);
  }
  return files;
}

/** The JSON line of a row; TIMESTAMP columns (`date_time`, `expires`) formatted as the codec reads them. */
export function nexmarkJsonLine(row: Readonly<Record<string, unknown>>): string {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k] = k === 'date_time' || k === 'expires' ? formatTimestamp(v as number) : v;
  return JSON.stringify(out);
}

/**
 * Generates `options.events` events into `<dir>/{person,auction,bid}.jsonl` and writes the side
 * input to `<dir>/side_input.jsonl`, creating `dir` (and its parents) when missing.
 *
 * @throws PlanError when `dir` is not a directory or cannot be created, or when one of the files
 * exists and `force` is not set (nothing is written then).
 */
export async function writeNexmarkFiles(dir: string, options: NexmarkOptions, write: WriteNexmarkFilesOptions = {}): Promise<WrittenFiles> {
  const { onProgress, progressEvery = 100_000 } = write;
  const files = prepareDirectory(dir, write.force === true);
  const generator = new NexmarkGenerator(options);
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
  try {
    writeFileSync(files.side_input, nexmarkSideInputJsonl());
  } catch (error) {
    throw new PlanError(`writing ${files.side_input} failed: ${(error as Error).message}`);
  }
  onProgress?.(generator.config.events);
  return { files, rows: { ...rows, side_input: NEXMARK_SIDE_INPUT_ROWS }, events: generator.config.events };
}
