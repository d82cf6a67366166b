/**
 * Random changelogs of two small tables `a` and `b` of rows (k INT, v STRING), both columns
 * nullable, for property tests of subqueries against a plain recomputation: the Debezium events
 * a source reads and the rows live at the end.
 */
import fc from 'fast-check';

/** One row of either table. */
export interface R {
  readonly k: number | null;
  readonly v: string | null;
}

/** Insert a row, or delete or update the live row `pick` picks (an insert when none is live). */
export type Command = { readonly table: 'a' | 'b'; readonly op: 'insert' | 'delete' | 'update'; readonly pick: number; readonly row: R };

/** A row with a small key and value range, NULL one time in five. */
export const rowArb: fc.Arbitrary<R> = fc.record({ k: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null, freq: 4 }), v: fc.option(fc.constantFrom('x', 'y'), { nil: null, freq: 4 }) });
/** A command, inserts three times as likely as a delete or an update. */
export const commandArb: fc.Arbitrary<Command> = fc.record({
  table: fc.constantFrom<'a' | 'b'>('a', 'b'),
  op: fc.constantFrom<Command['op']>('insert', 'insert', 'insert', 'delete', 'update'),
  pick: fc.nat(),
  row: rowArb,
});

/** Debezium events for each table (only live rows are deleted or updated) and the rows left live. */
export function changelogs(commands: readonly Command[]): { events: Record<'a' | 'b', unknown[]>; live: Record<'a' | 'b', R[]> } {
  const live: Record<'a' | 'b', R[]> = { a: [], b: [] };
  const events: Record<'a' | 'b', unknown[]> = { a: [], b: [] };
  for (const c of commands) {
    const rows = live[c.table];
    if (c.op === 'insert' || rows.length === 0) {
      rows.push(c.row);
      events[c.table].push({ before: null, after: c.row, op: 'c' });
      continue;
    }
    const index = c.pick % rows.length;
    const old = rows[index] as R;
    if (c.op === 'delete') {
      rows.splice(index, 1);
      events[c.table].push({ before: old, after: null, op: 'd' });
    } else {
      rows[index] = c.row;
      events[c.table].push({ before: old, after: c.row, op: 'u' });
    }
  }
  return { events, live };
}
