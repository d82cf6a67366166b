/**
 * Source readers of the embedded runtime: bounded JSON-lines files and in-process generators.
 * Both hand out batches so the runtime's per-record path stays a tight loop.
 */
import { createReadStream } from 'node:fs';
import type { Row } from '../../core/types.ts';

/** A batch of raw JSON lines with their 1-based line numbers. */
export interface LineBatch {
  readonly lines: string[];
  readonly lineNumbers: number[];
}

/**
 * Reads a file as batches of non-empty lines (`\n` or `\r\n`), at most `batchSize` per batch.
 * Blank lines are skipped but still counted for positions.
 */
export async function* readJsonLines(path: string, batchSize: number): AsyncGenerator<LineBatch> {
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 });
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
