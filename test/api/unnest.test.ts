/**
 * `stream.unnest(…)` in the TypeScript API: the Correlate node with the built-in UNNEST, inner
 * and left, of several collections, WITH ORDINALITY, with exact rows and the plan text.
 */
import { describe, expect, it } from 'vitest';
import { Pipeline, col } from '../../shared/api/index.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';

function carts(p: Pipeline) {
  return p.source('carts', {
    schema: { id: 'INT NOT NULL', items: 'ARRAY<STRING>', qty: 'ARRAY<INT>' },
    generator: () => [
      { id: 1, items: ['a', 'b'], qty: [2] },
      { id: 2, items: [], qty: null },
    ],
  });
}

async function changes(p: Pipeline): Promise<string[]> {
  const graph = p.jobGraph({ parallelism: 1 });
  const out: string[] = [];
  await runEmbeddedJob(graph, {
    code: { functions: p.userFunctions, generators: p.generators },
    observers: new Map([[graph.sinks[0]!.name, [{ write: (rows: readonly ChangeRow[]) => rows.forEach((r) => out.push(`${r.kind}${JSON.stringify(r.row)}`)) }]]]),
    sinkSetup: { quiet: true },
  });
  return out;
}

describe('stream.unnest', () => {
  it('inner with default names, left with names and ordinality, of two collections zipped', async () => {
    const inner = new Pipeline('unnest');
    carts(inner).unnest(col('items')).print('out');
    expect(await changes(inner)).toEqual(['+I{"id":1,"items":["a","b"],"qty":[2],"EXPR$0":"a"}', '+I{"id":1,"items":["a","b"],"qty":[2],"EXPR$0":"b"}']);

    const left = new Pipeline('unnest_left');
    carts(left).unnest([col('items'), col('qty')], { type: 'left', columns: ['item', 'q'], ordinality: 'n' }).print('out');
    expect(await changes(left)).toEqual([
      '+I{"id":1,"items":["a","b"],"qty":[2],"item":"a","q":2,"n":1}',
      '+I{"id":1,"items":["a","b"],"qty":[2],"item":"b","q":null,"n":2}',
      '+I{"id":2,"items":[],"qty":null,"item":null,"q":null,"n":null}',
    ]);
    expect(left.explain()).toContain(
      'Correlate(invocation=[$UNNEST_ROWS_WITH_ORDINALITY$1(items, qty)], correlate=[table($UNNEST_ROWS_WITH_ORDINALITY$1(items, qty))], select=[id,items,qty,item,q,n], rowType=[RecordType(INT NOT NULL id, ARRAY<VARCHAR(2147483647)> items, ARRAY<INT> qty, VARCHAR(2147483647) item, INT q, INT n)], joinType=[LEFT])',
    );
  });

  it('names what does not fit', () => {
    const c = carts(new Pipeline('bad'));
    expect(() => c.unnest(col('id'))).toThrow('UNNEST takes an ARRAY or a MAP, but id is INT');
    expect(() => c.unnest(col('items'), { columns: ['a', 'b'] })).toThrow('$UNNEST_ROWS$1(items) gives 1 column, but 2 names are given (a, b)');
  });
});
