/**
 * A lookup that rejects one probe key with a RecordError (shared/lookup/errors.ts: "the runtime
 * dead-letters that record"): the embedded runtime sets aside exactly the orders carrying that
 * key, with the lookup's reason and their positions, and joins every other order.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Pipeline } from '../../../shared/api/index.ts';
import { RecordError } from '../../../shared/core/errors.ts';
import type { ChangeRow } from '../../../shared/core/row.ts';
import type { Row } from '../../../shared/core/types.ts';
import { runEmbeddedJob, type DeadLetter } from '../../../shared/runtime/embedded/embedded-runtime.ts';

const dir = mkdtempSync(join(tmpdir(), 'flambda-lookup-record-error-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const REJECTED = 13;
const orders = Array.from({ length: 40 }, (_, i) => ({ order_id: i, product_id: 1 + (i % 20) }));
const ordersFile = join(dir, 'orders.jsonl');
writeFileSync(ordersFile, `${orders.map((o) => JSON.stringify(o)).join('\n')}\n`);

describe('a lookup RecordError in the embedded runtime', () => {
  it.each([
    [1, 1000],
    [2, 7],
  ])('dead-letters only the records whose key the store rejects (parallelism %i, batch size %i)', async (parallelism, batchSize) => {
    const p = new Pipeline('reject-one-key');
    const table = p.lookupTable('products', {
      schema: { id: 'BIGINT NOT NULL', title: 'STRING' },
      source: {
        fn: (keys) => {
          if (keys.some((k) => k.id === REJECTED)) throw new RecordError(`product id ${REJECTED} is out of range for the products store`);
          return keys.map((k) => ({ id: k.id ?? null, title: `p${String(k.id)}` }));
        },
      },
      cache: { type: 'PARTIAL', maxRows: 100 },
    });
    p.source('orders', { schema: { order_id: 'INT NOT NULL', product_id: 'BIGINT' } })
      .lookupJoin(table, { on: { product_id: 'id' }, columns: ['title'], type: 'inner' })
      .sinkTo('out');
    const graph = p.jobGraph({ parallelism });
    const rows: Row[] = [];
    const letters: DeadLetter[] = [];
    const result = await runEmbeddedJob(graph, {
      inputs: new Map([['orders', ordersFile]]),
      batchSize,
      code: { functions: p.userFunctions },
      observers: new Map([['out', [{ write: (changes: readonly ChangeRow[]) => changes.forEach((c) => rows.push(c.row)) }]]]),
      onDeadLetter: (letter) => letters.push(letter),
    });
    const expected = orders.filter((o) => o.product_id !== REJECTED).map((o) => ({ ...o, title: `p${String(o.product_id)}` }));
    const byId = (a: Row, b: Row): number => Number(a.order_id) - Number(b.order_id);
    expect([...rows].sort(byId)).toEqual(expected);
    const rejectedLines = orders.flatMap((o, i) => (o.product_id === REJECTED ? [i + 1] : []));
    expect(result.deadLettered).toBe(rejectedLines.length);
    expect(letters.map((l) => l.reason)).toEqual(rejectedLines.map(() => expect.stringContaining(`product id ${REJECTED} is out of range`)));
    expect(letters.map((l) => l.position).sort()).toEqual(rejectedLines.map((n) => `${ordersFile}:${String(n)}`).sort());
  });
});
