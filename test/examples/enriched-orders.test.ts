/**
 * examples/lookup/enriched-orders.ts — the seed's two-dimension-table pipeline over real
 * MariaDB (hashed, `hash: true`) and PostgreSQL (forward) tables, created here under unique names
 * (the example reads names and URLs from the environment): the plan has exactly one extra
 * Exchange, and the result equals a naive join of the same rows, through the API and `flambda run`.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../shared/api/pipeline.ts';
import { createRowEncoder, type JsonValue } from '../../shared/core/codec.ts';
import { formatStages } from '../../shared/cli/explain-command.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import { USERS, createTables, dropTables } from '../../examples/lookup/setup.ts';
import { REPO_ROOT, readJson, readJsonLines, makeTempDir, runCli, sortRows } from '../cli/cli.ts';

const suffix = `${process.pid}_${Date.now().toString(36)}`;
const env = { FLAMBDA_EXAMPLE_MYSQL_TABLE: `eo_users_mysql_${suffix}`, FLAMBDA_EXAMPLE_POSTGRES_TABLE: `eo_users_pg_${suffix}` };
const ORDERS_FILE = join(REPO_ROOT, 'examples/lookup/orders.jsonl');
const tmp = makeTempDir('enriched-orders');
let pipeline: Pipeline;
const saved = { ...process.env };

beforeAll(async () => {
  Object.assign(process.env, env);
  await createTables(process.env);
  pipeline = ((await import('../../examples/lookup/enriched-orders.ts')) as { default: Pipeline }).default;
});

afterAll(async () => {
  await dropTables(process.env);
  for (const key of Object.keys(env)) if (saved[key] === undefined) delete process.env[key];
  tmp.cleanup();
});

/** The naive join: every order whose user is in both tables (they hold the same ids). */
function expected(): Record<string, JsonValue>[] {
  const orders = readJsonLines(ORDERS_FILE) as { user_id: number | null; order_amount: number }[];
  return orders.flatMap((o) => {
    const u = USERS.find((x) => x.id === o.user_id);
    return u === undefined ? [] : [{ id: u.id, name: `${u.name}@mysql`, s3Name: `${u.name}@pg`, order_amount: o.order_amount, description: u.description }];
  });
}

describe('examples/lookup/enriched-orders.ts', () => {
  it('explain shows exactly one extra Exchange, hash[user_id], below the hashed table only', () => {
    const text = pipeline.explain();
    const lines = text.split('\n');
    expect(lines.filter((l) => l.includes('Exchange('))).toEqual(['         +- Exchange(distribution=[hash[user_id]])']);
    expect(lines.findIndex((l) => l.includes('Exchange('))).toBe(lines.findIndex((l) => l.includes('LookupJoin(table=[jdbc_table2]')) + 1);
    expect(text).toContain('LookupJoin(table=[jdbc_table2], joinType=[InnerJoin], lookup=[id=user_id], select=[user_id, order_amount, sname, log_ts, name, description])');
    const graph = pipeline.jobGraph({ parallelism: 3 });
    expect(formatStages(graph)).toBe(
      [
        'stage-0 (parallelism 3): source orders => (no operators) => stage-1 via hash[user_id]',
        'stage-1 (parallelism 3): stage-0 via hash[user_id] => LookupJoin_2 -> LookupJoin_3 -> Calc_4 => sink fs_table',
      ].join('\n'),
    );
    expect(graph.stages[1]?.operators.map((o) => (o.type === 'LookupJoin' ? o.spec.source : undefined))).toEqual([
      { type: 'jdbc', url: 'jdbc:mysql://127.0.0.1:3306/test?user=root', table: env.FLAMBDA_EXAMPLE_MYSQL_TABLE },
      { type: 'jdbc', url: 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres', table: env.FLAMBDA_EXAMPLE_POSTGRES_TABLE },
      undefined,
    ]);
  });

  it.each([1, 3])('joins MariaDB and PostgreSQL rows like a naive join at parallelism %i', async (parallelism) => {
    const graph = pipeline.jobGraph({ parallelism });
    const sink = graph.sinks[0]!;
    const view = new MaterializedView({ columns: sink.schema.fields.map((f) => f.name), strict: true });
    const result = await runEmbeddedJob(graph, {
      inputs: new Map([['orders', ORDERS_FILE]]),
      batchSize: 3,
      code: { functions: pipeline.userFunctions },
      observers: new Map([[sink.name, [{ write: (rows: readonly ChangeRow[]) => rows.forEach((r) => view.apply(r)) }]]]),
    });
    const encode = createRowEncoder(sink.schema);
    expect(sortRows(view.rows().map(encode))).toEqual(sortRows(expected()));
    // Hashed: each user id is fetched from MariaDB once in all (NULL keys are never looked up).
    const mysqlMisses = result.operatorMetrics.get('LookupJoin_2')?.get('lookupCacheMisses');
    expect(mysqlMisses).toBe(new Set(expected().map((r) => r.id)).size + 1 /* user 9: no row, cached as missing */);
    expect(result.lookupCache).toBeDefined();
  });

  it('flambda run prints the joined table and the lookup cache summary', async () => {
    const out = tmp.file('enriched.json');
    const r = await runCli(['run', 'examples/lookup/enriched-orders.ts', '--input', 'orders=examples/lookup/orders.jsonl', '-p', '2', '--final', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(sortRows(readJson(out) as Record<string, unknown>[])).toEqual(sortRows(expected()));
    expect(r.stderr).toMatch(/sink 'fs_table': 8 changelog rows; lookup cache: \d+ hits, \d+ misses \(hit rate [\d.]+ %\)$/m);
  });
});
