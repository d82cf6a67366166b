/**
 * `npm start`: the Top-N article's example end to end — generated orders → SUM(quantity) per
 * merchandise → global Top-10 by totalQuantity DESC — with the plan, live leaderboards and the
 * final table. Expectations are recomputed in-process from the example's own order generator.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateOrders } from '../../examples/orders/orders.ts';
import { REPO_ROOT, parseTable, runCli, type CliResult } from './cli.ts';

/** The generator options examples/orders/top-merchandise.ts declares. */
const ORDERS = { orders: 200_000, merchandise: 40, seed: 7 };

/** The Top-10 (merchandiseId, totalQuantity, ranking) after the first `count` orders, by hand. */
function leaderboard(count: number): [number, number, number][] {
  const totals = new Map<number, number>();
  let i = 0;
  for (const row of generateOrders(ORDERS)({ shard: 0, parallelism: 1 })) {
    if (i++ === count) break;
    totals.set(row.merchandiseId as number, (totals.get(row.merchandiseId as number) ?? 0) + (row.quantity as number));
  }
  const sorted = [...totals].sort((a, b) => b[1] - a[1]);
  // No ties around rank 10, so ROW_NUMBER's tie-break (arrival order) cannot matter here.
  expect(sorted[9]![1]).not.toBe(sorted[10]?.[1]);
  return sorted.slice(0, 10).map(([id, total], k) => [id, total, k + 1]);
}

describe('npm start', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const command = pkg.scripts.start ?? '';
  let result: CliResult;

  beforeAll(async () => {
    // Run exactly the script's arguments through the same entry point.
    const [node, entry, ...args] = command.split(' ');
    expect([node, entry]).toEqual(['node', 'bin/flambda.mjs']);
    result = await runCli(args);
  });

  it('is the documented command and exits 0', () => {
    expect(command).toBe('node bin/flambda.mjs run examples/orders/top-merchandise.ts --explain --live-every 50000 --print-limit 15 --table');
    expect(result.code, result.stderr).toBe(0);
  });

  it('prints the plan with the strategy the planner chose: RetractStrategy above a single exchange', () => {
    const lines = result.stdout.split('\n');
    const rank = lines.findIndex((l) => l.startsWith('+- Rank('));
    expect(lines[rank]).toBe(
      '+- Rank(strategy=[RetractStrategy], rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=10], partitionBy=[], orderBy=[totalQuantity DESC], select=[merchandiseId, totalQuantity, ranking])',
    );
    expect(lines[rank + 1]).toBe('   +- Exchange(distribution=[single])');
    expect(lines[rank + 2]).toBe('      +- GroupAggregate(groupBy=[merchandiseId], select=[merchandiseId, SUM(quantity) AS totalQuantity])');
  });

  it('prints the first 15 leaderboard changes in Flink print format', () => {
    const printed = result.stdout.split('\n').filter((l) => l.startsWith('leaderboard> ') && !l.startsWith('leaderboard> …'));
    expect(printed).toHaveLength(15);
    for (const line of printed) expect(line).toMatch(/^leaderboard> (\+I|\+U|-D)\[\d+, \d+, ([1-9]|10)\]$/);
    expect(result.stdout).toMatch(/^leaderboard> … \d+ more changelog rows not printed \(print limit 15\)$/m);
  });

  it('prints the live leaderboard after every 50,000 orders, each equal to a recomputation', () => {
    const blocks = [...result.stdout.matchAll(/^-- leaderboard after (\d+) records --\n(?:.*\n){2}((?:.*\|.*\n){10})/gm)];
    expect(blocks.map((b) => Number(b[1]))).toHaveLength(4);
    for (const block of blocks) {
      const rows = block[2]!.trim().split('\n').map((l) => l.split('|').map((c) => Number(c.trim())) as [number, number, number]);
      expect(rows).toEqual(leaderboard(Number(block[1])));
    }
  });

  it('prints the final Top-10, equal to a recomputation over all orders', () => {
    const table = parseTable(result.stdout, 'leaderboard');
    expect(table.title).toBe("Final result of top-merchandise → sink 'leaderboard' (10 rows)");
    expect(table.rows.map((r) => [Number(r.merchandiseId), Number(r.totalQuantity), Number(r.ranking)])).toEqual(leaderboard(ORDERS.orders));
    expect(result.stderr.trimEnd().split('\n').at(-1)).toMatch(/^flambda: read 200000 records in \d+\.\d\d s \(\d+ records\/s\); sink 'leaderboard': \d+ changelog rows$/);
  });
});
