/**
 * The first half of the Top-N article's example, `examples/orders/total-quantity.ts`, through the
 * CLI: `run examples/orders/total-quantity.ts --table --print-limit 12`. The expected totals are
 * recomputed in-process from the example's own order generator.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { generateOrders } from '../../examples/orders/orders.ts';
import { parseTable, runCli, type CliResult } from './cli.ts';

/** The generator options examples/orders/total-quantity.ts declares. */
const ORDERS = { orders: 200_000, merchandise: 12, seed: 7 };

/** Per-merchandise totals and the changelog a GroupAggregate emits for them, computed by hand. */
function reference(): { totals: Map<number, number>; sum: number; changelog: string[] } {
  const totals = new Map<number, number>();
  const changelog: string[] = [];
  let sum = 0;
  for (const row of generateOrders(ORDERS)({ shard: 0, parallelism: 1 })) {
    const id = row.merchandiseId as number;
    const quantity = row.quantity as number;
    sum += quantity;
    const before = totals.get(id);
    const after = (before ?? 0) + quantity;
    if (before === undefined) changelog.push(`+I[${id}, ${after}]`);
    else changelog.push(`-U[${id}, ${before}]`, `+U[${id}, ${after}]`);
    totals.set(id, after);
  }
  return { totals, sum, changelog };
}

describe('examples/orders/total-quantity.ts', () => {
  let result: CliResult;
  const expected = reference();

  beforeAll(async () => {
    result = await runCli(['run', 'examples/orders/total-quantity.ts', '--table', '--print-limit', '12']);
  });

  it('exits 0', () => {
    expect(result.code, result.stderr).toBe(0);
  });

  it('prints the first 12 changelog rows in Flink print format, each key in its own update order', () => {
    const lines = result.stdout.split('\n');
    const printed = lines.filter((l) => l.startsWith('print> ') && !l.startsWith('print> …'));
    expect(printed).toHaveLength(12);
    for (const line of printed) expect(line).toMatch(/^print> (\+I|-U|\+U|-D)\[\d+, \d+\]$/);
    expect(printed[0]).toMatch(/^print> \+I\[/);
    // Across keys the interleaving may differ; per key the rows must be the key's own changelog prefix.
    const perKey = (rows: readonly string[]): Map<string, string[]> => {
      const m = new Map<string, string[]>();
      for (const r of rows) {
        const key = /\[(\d+),/.exec(r)?.[1] as string;
        const list = m.get(key);
        if (list) list.push(r);
        else m.set(key, [r]);
      }
      return m;
    };
    const reference = perKey(expected.changelog);
    for (const [key, rows] of perKey(printed.map((l) => l.slice('print> '.length)))) {
      expect(rows).toEqual(reference.get(key)?.slice(0, rows.length));
    }
    const total = expected.changelog.length;
    expect(total).toBe(2 * ORDERS.orders - expected.totals.size);
    expect(lines).toContain(`print> … ${total - 12} more changelog rows not printed (print limit 12)`);
  });

  it('prints the final table: one row per merchandise, totals equal to the generated quantities', () => {
    const table = parseTable(result.stdout, 'print');
    expect(table.title).toBe("Final result of total-quantity → sink 'print' (12 rows)");
    expect(table.rows).toHaveLength(12);
    const actual = new Map(table.rows.map((r) => [Number(r.merchandiseId), Number(r.totalQuantity)]));
    expect([...actual.values()].reduce((a, b) => a + b, 0)).toBe(expected.sum);
    expect(new Map([...actual].sort(([a], [b]) => a - b))).toEqual(new Map([...expected.totals].sort(([a], [b]) => a - b)));
    expect([...actual.keys()]).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it('prints a summary line on stderr', () => {
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^flambda: read ${ORDERS.orders} records in \\d+\\.\\d\\d s \\(\\d+ records/s\\); sink 'print': ${2 * ORDERS.orders - 12} changelog rows$`,
      ),
    );
  });
});
