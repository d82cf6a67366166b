/**
 * Source readers of the embedded runtime: JSON-lines files (or named pipes, read as the writer
 * writes), directories of them (one partition per file), and in-process generators. All hand
 * out batches so the runtime's per-record path stays a tight loop.
 */
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PlanError } from '../../core/errors.ts';
import type { Row } from '../../core/types.ts';

/** A batch of raw JSON lines with their 1-based line numbers. */
export interface LineBatch {
  readonly lines: string[];
  readonly lineNumbers: number[];
}

/**
 * Reads a file as batches of non-empty lines (`\n` or `\r\n`), at most `batchSize` per batch.
 * Blank lines are skipped but still counted for positions. The lines read by each chunk are
 * handed out when the chunk ends, so a named pipe's lines reach the job as they are written
 * rather than when a batch is full. `signal` aborts a read that waits for a pipe's writer.
 */
export async function* readJsonLines(path: string, batchSize: number, signal?: AbortSignal): AsyncGenerator<LineBatch> {
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20, ...(signal ? { signal } : {}) });
  let rest = '';
  let lineNo = 0;
  let lines: string[] = [];
  let lineNumbers: number[] = [];
  const push = (raw: string): LineBatch | undefined => {
    lineNo += 1;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return undefined;
    lines.push(line);
    lineNumbers.push(lineNo);
    if (lines.length >= batchSize) {
      const batch = { lines, lineNumbers };
      lines = [];
      lineNumbers = [];
      return batch;
    }
    return undefined;
  };
  for await (const chunk of stream as AsyncIterable<string>) {
    const text = rest + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
      const batch = push(text.slice(start, nl));
      start = nl + 1;
      if (batch) yield batch;
    }
    rest = text.slice(start);
    if (lines.length > 0) {
      yield { lines, lineNumbers };
      lines = [];
      lineNumbers = [];
    }
  }
  if (rest.length > 0) {
    const batch = push(rest);
    if (batch) yield batch;
  }
  if (lines.length > 0) yield { lines, lineNumbers };
}

/** Splits an iterable of rows into arrays of at most `batchSize`. */
export function* batchRows(rows: Iterable<Row>, batchSize: number): Generator<Row[]> {
  let batch: Row[] = [];
  for (const row of rows) {
    batch.push(row);
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * The files an input path stands for: the file (or named pipe) itself, or the files and pipes
 * of a directory sorted by name — a partitioned input, one partition per file, as a
 * filesystem source reads a directory.
 *
 * @throws PlanError when the path is missing, or a directory holds no file.
 */
export function inputPartitions(path: string): string[] {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    throw new PlanError(`input not found: ${path}`);
  }
  if (!stat.isDirectory()) return [path];
  const files = readdirSync(path)
    .filter((name) => !name.startsWith('.'))
    .sort()
    .map((name) => join(path, name))
    .filter((file) => {
      const s = statSync(file);
      return s.isFile() || s.isFIFO();
    });
  if (files.length === 0) throw new PlanError(`input directory ${path} holds no files (each file is one partition)`);
  return files;
}

/** One step of {@link mergePartitions}: a value of a partition, or the end of one. */
export type PartitionStep<T> = { readonly partition: number; readonly value: T } | { readonly partition: number; readonly end: true };

/**
 * Reads several partitions at once and yields their values as each produces them (so a
 * partition that waits for its writer holds back no other), then the end of each.
 */
export async function* mergePartitions<T>(partitions: readonly AsyncIterable<T>[]): AsyncGenerator<PartitionStep<T>> {
  const iterators = partitions.map((p) => p[Symbol.asyncIterator]());
  const next = (i: number) => (iterators[i] as AsyncIterator<T>).next().then((result) => ({ i, result }));
  const pending = new Map<number, Promise<{ i: number; result: IteratorResult<T> }>>(iterators.map((_, i) => [i, next(i)]));
  try {
    while (pending.size > 0) {
      const { i, result } = await Promise.race(pending.values());
      if (result.done === true) {
        pending.delete(i);
        yield { partition: i, end: true };
      } else {
        pending.set(i, next(i));
        yield { partition: i, value: result.value };
      }
    }
  } finally {
    // Stopped early (an error, an abort): close the partitions still open. Not awaited: a
    // partition waiting for a pipe's writer closes only when its pending read settles.
    for (const i of pending.keys()) void Promise.resolve((iterators[i] as AsyncIterator<T>).return?.()).catch(() => undefined);
  }
}
