import { describe, expect, it } from 'vitest';
import type { ChangeRow } from '../../shared/core/row.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';

const c = (kind: ChangeRow['kind'], row: Record<string, number | string | null>): ChangeRow => ({ kind, row });

describe('Class: MaterializedView', () => {
  it('applies a retract changelog by whole row, keeping duplicates', () => {
    const view = new MaterializedView({ columns: ['k', 'v'], strict: true });
    view.applyAll([c('+I', { k: 'a', v: 1 }), c('+I', { k: 'a', v: 1 }), c('-U', { k: 'a', v: 1 }), c('+U', { k: 'a', v: 2 })]);
    expect(view.rows()).toEqual([
      { k: 'a', v: 1 },
      { k: 'a', v: 2 },
    ]);
    expect(view.size).toBe(2);
  });

  it('applies an upsert changelog by key', () => {
    const view = new MaterializedView({ key: ['k'], strict: true });
    view.applyAll([c('+I', { k: 'a', v: 1 }), c('+U', { k: 'a', v: 5 }), c('+I', { k: 'b', v: 2 }), c('-D', { k: 'b', v: 2 })]);
    expect(view.rows()).toEqual([{ k: 'a', v: 5 }]);
  });

  it('distinguishes null from the string "null" and numbers from strings', () => {
    const view = new MaterializedView({ key: ['k'] });
    view.applyAll([c('+I', { k: null, v: 1 }), c('+I', { k: 'null', v: 2 }), c('+I', { k: 1, v: 3 }), c('+I', { k: '1', v: 4 })]);
    expect(view.size).toBe(4);
  });

  it('counts, or in strict mode rejects, retractions of rows that are not live', () => {
    const lenient = new MaterializedView({ columns: ['k'] });
    lenient.apply(c('-D', { k: 'x' }));
    expect(lenient.malformed).toBe(1);
    const strict = new MaterializedView({ columns: ['k'], strict: true });
    expect(() => strict.apply(c('-U', { k: 'x' }))).toThrow(/malformed changelog: -U retracts a row that is not live: \{"k":"x"\}/);
  });
});
