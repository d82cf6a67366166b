/**
 * Source readers of the embedded runtime: JSON-lines files (or named pipes, read as the writer
 * writes), directories of them (one partition per file), and in-process generators. All hand
 * out batches so the runtime's per-record path stays a tight loop.
 */
import { closeSync, constants, createReadStream, open as openFd, openSync, readdirSync, statSync } from 'node:fs';
import { Socket } from 'node:net';
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
  const stream = statSync(path).isFIFO() ? await openPipe(path, signal) : createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20, ...(signal ? { signal } : {}) });
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

/**
 * Opens a named pipe for reading as a socket-like stream. Reading a pipe through the file
 * system would park a thread of libuv's pool in `read()` until the writer writes, where no
 * abort can reach it (and the process could not even exit); a pipe handle reads without
 * blocking, so `signal` stops it at once. Opening blocks until a writer opens the pipe, so an
 * abort meanwhile opens (and closes) the writing end itself to let the open return.
 */
async function openPipe(path: string, signal: AbortSignal | undefined): Promise<AsyncIterable<string>> {
  const onAbort = (): void => {
    try {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // No reader waiting any more: nothing to unblock.
    }
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  let fd: number;
  try {
    // A plain descriptor, not a FileHandle: the socket owns and closes it.
    fd = await new Promise<number>((resolve, reject) => openFd(path, 'r', (error, opened) => (error ? reject(error) : resolve(opened))));
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (signal?.aborted) {
    closeSync(fd);
    throw signal.reason;
  }
  const socket = new Socket({ fd, readable: true, writable: false });
  socket.setEncoding('utf8');
  const stop = (): void => void socket.destroy();
  signal?.addEventListener('abort', stop, { once: true });
  socket.once('close', () => signal?.removeEventListener('abort', stop));
  return socket;
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

/**
 * Iterates `source` until `signal` aborts, then throws the signal's reason at once — even while
 * a read waits for a pipe's writer (a pending read on a named pipe cannot be cancelled; it is
 * left to finish when the writer writes or closes).
 */
export async function* abortable<T>(source: AsyncIterable<T>, signal: AbortSignal | undefined): AsyncGenerator<T> {
  if (signal === undefined) {
    yield* source;
    return;
  }
  const iterator = source[Symbol.asyncIterator]();
  const aborted = new Promise<never>((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  aborted.catch(() => undefined);
  let finished = false;
  try {
    for (;;) {
      signal.throwIfAborted();
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done === true) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!finished) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}
