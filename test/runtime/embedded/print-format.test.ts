/**
 * The print sink's text: each value as Flink's print connector shows it (its RowData's
 * toString), so a job's printed changelog reads as Flink's does.
 */
import { describe, expect, it } from 'vitest';
import { createRowEncoder } from '../../../shared/core/codec.ts';
import { parseType } from '../../../shared/core/type-parse.ts';
import type { Schema } from '../../../shared/core/types.ts';
import { formatPrintRow } from '../../../shared/runtime/embedded/sinks.ts';

const schema: Schema = {
  fields: [
    { name: 'k', type: parseType('STRING') },
    { name: 'd', type: parseType('DOUBLE') },
    { name: 'f', type: parseType('FLOAT') },
    { name: 'n', type: parseType('BIGINT') },
    { name: 'a', type: parseType('ARRAY<DOUBLE>') },
  ],
};
const print = (row: Record<string, unknown>): string => formatPrintRow({ kind: '+I', row: row as never }, createRowEncoder(schema), schema);

describe('the print sink', () => {
  it('prints DOUBLE and FLOAT as Java does: an integral value with .0, large ones in E notation', () => {
    expect(print({ k: 'a', d: 2, f: Math.fround(1.1), n: 2, a: [3, 0.5] })).toBe('+I[a, 2.0, 1.1, 2, [3.0, 0.5]]');
    expect(print({ k: 'b', d: 1e7, f: Math.fround(2), n: 10000000, a: [] })).toBe('+I[b, 1.0E7, 2.0, 10000000, []]');
    expect(print({ k: null, d: null, f: null, n: null, a: null })).toBe('+I[NULL, NULL, NULL, NULL, NULL]');
  });
});
