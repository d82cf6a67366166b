import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import type { ChangeRow } from '../../shared/core/row.ts';
import type { Row } from '../../shared/core/types.ts';
import { MalformedChangelogError, del, formatRow, insert, materialize, updateAfter, updateBefore } from './rows.ts';

describe('changelog row factories', () => {
  it('build rows of each kind', () => {
    const row = { a: 1 };
    expect(insert(row)).toEqual({ kind: '+I', row });
    expect(updateBefore(row)).toEqual({ kind: '-U', row });
    expect(updateAfter(row)).toEqual({ kind: '+U', row });
    expect(del(row)).toEqual({ kind: '-D', row });
  });

  it('formats rows with bigint', () => {
    expect(formatRow({ a: 12n, b: 'x', c: null })).toBe('{"a":"12n","b":"x","c":null}');
  });
});

describe('materialize without key (multiset)', () => {
  it('applies inserts, updates and deletes', () => {
    const rows = materialize([
      insert({ k: 'a', n: 1 }),
      insert({ k: 'b', n: 1 }),
      updateBefore({ k: 'a', n: 1 }),
      updateAfter({ k: 'a', n: 2 }),
      insert({ k: 'b', n: 1 }),
      del({ k: 'b', n: 1 }),
    ]);
    expect(rows).toEqual([
      { k: 'b', n: 1 },
      { k: 'a', n: 2 },
    ]);
  });

  it('ignores field order but distinguishes value types', () => {
    expect(materialize([insert({ a: 1, b: 2 }), del({ b: 2, a: 1 })])).toEqual([]);
    expect(() => materialize([insert({ a: 1 }), del({ a: 1n })])).toThrow(MalformedChangelogError);
    expect(() => materialize([insert({ a: '1' }), del({ a: 1 })])).toThrow(MalformedChangelogError);
    expect(() => materialize([insert({ a: null }), del({ a: 'null' })])).toThrow(MalformedChangelogError);
  });

  it('throws a descriptive error for a retraction of a row that is not live', () => {
    const changelog = [insert({ k: 'a', n: 1 }), updateBefore({ k: 'a', n: 2 })];
    expect(() => materialize(changelog)).toThrow(
      'changelog[1] -U {"k":"a","n":2} retracts a row that is not live; 1 distinct live rows, e.g. {"k":"a","n":1}',
    );
    try {
      materialize(changelog);
    } catch (error) {
      expect(error).toBeInstanceOf(MalformedChangelogError);
      expect((error as MalformedChangelogError).index).toBe(1);
      expect((error as MalformedChangelogError).change).toBe(changelog[1]);
    }
  });

  it('matches a counting model on random well-formed changelogs', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 4 })), { maxLength: 60 }), (steps) => {
        const counts = new Map<number, number>();
        const changelog: ChangeRow[] = [];
        for (const [add, v] of steps) {
          const live = counts.get(v) ?? 0;
          if (add || live === 0) {
            changelog.push(insert({ v }));
            counts.set(v, live + 1);
          } else {
            changelog.push(del({ v }));
            counts.set(v, live - 1);
          }
        }
        const expected = [...counts].flatMap(([v, n]) => Array.from({ length: n }, () => v)).sort();
        expect(
          materialize(changelog)
            .map((r) => r.v as number)
            .sort(),
        ).toEqual(expected);
      }),
    );
  });
});

describe('materialize by key (upsert)', () => {
  it('keeps the latest row per key, in the order rows became live', () => {
    const rows = materialize(
      [
        insert({ k: 'a', n: 1 }),
        insert({ k: 'b', n: 1 }),
        updateBefore({ k: 'a', n: 1 }),
        updateAfter({ k: 'a', n: 2 }),
        updateAfter({ k: 'b', n: 5 }), // upsert without -U
        insert({ k: 'c', n: 1 }),
        del({ k: 'c', n: 1 }),
      ],
      ['k'],
    );
    expect(rows).toEqual<Row[]>([
      { k: 'a', n: 2 },
      { k: 'b', n: 5 },
    ]);
  });

  it('supports composite keys', () => {
    const changelog = [
      insert({ a: 1, b: 'x', v: 1 }),
      insert({ a: 1, b: 'y', v: 2 }),
      updateAfter({ a: 1, b: 'x', v: 3 }),
    ];
    const rows = materialize(changelog, ['a', 'b']);
    expect(rows).toEqual([
      { a: 1, b: 'y', v: 2 },
      { a: 1, b: 'x', v: 3 },
    ]);
  });

  it('throws when a retraction targets a key that is not live', () => {
    expect(() => materialize([del({ k: 'a', n: 1 })], ['k'])).toThrow(
      'changelog[0] -D {"k":"a","n":1} retracts key {"k":"a"} which is not live',
    );
  });

  it('throws when a retraction differs from the live row of its key', () => {
    expect(() => materialize([insert({ k: 'a', n: 1 }), updateBefore({ k: 'a', n: 9 })], ['k'])).toThrow(
      'changelog[1] -U {"k":"a","n":9} retracts a row that differs from the live row {"k":"a","n":1}',
    );
  });

  it('throws when a row lacks a key column', () => {
    expect(() => materialize([insert({ n: 1 })], ['k'])).toThrow("changelog[0] +I {\"n\":1} has no key column 'k'");
  });
});
