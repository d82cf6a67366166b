/**
 * TopNBuffer: the order-statistic treap against a sorted-array model, under random insertions
 * and removals; and RowCursor walks.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Row } from '../../../shared/core/types.ts';
import { RowCursor } from '../../../shared/operators/rank/row-cursor.ts';
import { FLAT_LIMIT, TopNBuffer, type SortGroup } from '../../../shared/operators/rank/topn-buffer.ts';

type Op =
  | { readonly op: 'add'; readonly key: number }
  | { readonly op: 'addRow'; readonly key: number }
  | { readonly op: 'removeRow'; readonly pick: number }
  | { readonly op: 'removeGroup'; readonly pick: number };

/**
 * Operations over keys 0..maxKey; a key range above FLAT_LIMIT, with insertions `addWeight`
 * times likelier, drives the buffer into its tree layout.
 */
const opArb = (maxKey: number, addWeight: number): fc.Arbitrary<Op> =>
  fc.oneof(
    { weight: addWeight, arbitrary: fc.integer({ min: 0, max: maxKey }).map((key): Op => ({ op: 'add', key })) },
    { weight: addWeight, arbitrary: fc.integer({ min: 0, max: maxKey }).map((key): Op => ({ op: 'addRow', key })) },
    { weight: 2, arbitrary: fc.nat().map((pick): Op => ({ op: 'removeRow', pick })) },
    { weight: 1, arbitrary: fc.nat().map((pick): Op => ({ op: 'removeGroup', pick })) },
  );

/** Keys as fixed-width strings so string order is numeric order. */
const keyOf = (n: number): string => String(n).padStart(3, '0');

/** Checks every query of the buffer against the model (sorted [key, rows] pairs). */
function check(buffer: TopNBuffer, model: readonly (readonly [string, readonly Row[]])[]): void {
  const rows = model.reduce((n, [, r]) => n + r.length, 0);
  expect(buffer.rowCount).toBe(rows);
  expect(buffer.groupCount).toBe(model.length);
  const groups = [...buffer.groups()];
  expect(groups.map((g) => [g.key, g.rows])).toEqual(model.map(([k, r]) => [k, r]));
  let before = 0;
  groups.forEach((group, i) => {
    expect(buffer.find(group.key)).toBe(group);
    expect(buffer.rowsBefore(group)).toBe(before);
    expect(buffer.groupsBefore(group)).toBe(i);
    expect(buffer.prev(group)).toBe(groups[i - 1] ?? null);
    expect(buffer.next(group)).toBe(groups[i + 1] ?? null);
    for (let j = 0; j < group.rows.length; j++) {
      expect(buffer.groupAtRow(before + j)).toBe(group);
      expect(buffer.offset).toBe(j);
      expect(buffer.rowAt(before + j + 1)).toBe(group.rows[j]);
    }
    before += group.rows.length;
  });
  expect(buffer.groupAtRow(rows)).toBeUndefined();
  expect(buffer.first()).toBe(groups[0]);
  expect(buffer.last()).toBe(groups[groups.length - 1]);
}

describe('Class: TopNBuffer', () => {
  const layouts: [string, number, number, number, number][] = [
    // name, largest key, insertion weight, most operations, check every n operations
    ['flat', 40, 2, 120, 1],
    ['tree, beyond FLAT_LIMIT groups', 3 * FLAT_LIMIT, 4, 500, 10],
  ];
  for (const [layout, maxKey, addWeight, maxOps, every] of layouts) {
    it(`matches a sorted-array model under random insertions and removals (${layout})`, () => {
      let largest = 0;
      fc.assert(
        fc.property(fc.array(opArb(maxKey, addWeight), { maxLength: maxOps, size: 'max' }), (ops) => {
          const buffer = new TopNBuffer();
          const model: [string, Row[]][] = [];
          let serial = 0;
          ops.forEach((op, i) => {
            if (op.op === 'add' || op.op === 'addRow') {
              const key = keyOf(op.key);
              const row: Row = { serial: serial++ };
              const group = buffer.find(key);
              if (op.op === 'addRow') {
                expect(buffer.addRow(key, row)).toBe(group ?? buffer.find(key));
                expect(buffer.created).toBe(group === undefined);
              } else if (group === undefined) {
                buffer.insertGroup(key, [row]);
              } else {
                buffer.appendRow(group, row);
              }
              const at = model.findIndex(([k]) => k >= key);
              if (at >= 0 && model[at]![0] === key) model[at]![1].push(row);
              else model.splice(at < 0 ? model.length : at, 0, [key, [row]]);
            } else if (model.length > 0) {
              const pick = op.pick % model.length;
              const [key, rows] = model[pick]!;
              const group = buffer.find(key)!;
              if (op.op === 'removeGroup') {
                buffer.removeGroup(group);
                expect(group.attached).toBe(false);
                model.splice(pick, 1);
              } else {
                const index = op.pick % group.rows.length;
                buffer.removeRowAt(group, index);
                const left = rows.filter((_, j) => j !== index);
                if (left.length === 0) model.splice(pick, 1);
                else model[pick] = [key, left];
              }
            }
            largest = Math.max(largest, buffer.groupCount);
            if (i % every === 0) check(buffer, model);
          });
          check(buffer, model);
        }),
        { numRuns: 60 },
      );
      if (maxKey > FLAT_LIMIT) expect(largest).toBeGreaterThan(FLAT_LIMIT);
    });
  }

  it('RowCursor walks rows in rank order across groups', () => {
    const buffer = new TopNBuffer();
    const rows: Row[] = [];
    for (const [key, n] of [
      ['b', 2],
      ['a', 1],
      ['c', 3],
    ] as const) {
      const group: Row[] = [];
      for (let i = 0; i < n; i++) group.push({ key, i });
      buffer.insertGroup(key, group);
    }
    for (const g of buffer.groups() as IterableIterator<SortGroup>) rows.push(...g.rows);
    const cursor = new RowCursor();
    const walked: Row[] = [];
    for (let row = cursor.seek(buffer, 2); row !== undefined; row = cursor.advance(buffer)) walked.push(row);
    expect(walked).toEqual(rows.slice(1));
    expect(cursor.seek(buffer, 0)).toBeUndefined();
    expect(cursor.seek(buffer, 7)).toBeUndefined();
  });
});
