/**
 * Equivalence with the API versions: the Nexmark queries and the Top-N example in SQL give the
 * same plans and job graphs as examples/nexmark/*.ts and examples/orders/top-merchandise.ts,
 * and the references' results on the project's generated data through the embedded runtime.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Pipeline } from '../../shared/api/pipeline.ts';
import { sum } from '../../shared/api/aggregates.ts';
import { createRowEncoder } from '../../shared/core/codec.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import type { JobGraph } from '../../shared/plan/job-graph.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { generateOrders, ordersSource } from '../../examples/orders/orders.ts';
import { canonicalRows as canonical } from '../nexmark/reference.ts';
import { nexmarkTestData, runOnDir } from '../nexmark/test-data.ts';
import { example, nexmarkExample } from './helpers.ts';

const apiVersion = async (path: string): Promise<Pipeline> => ((await import(path)) as { default: Pipeline }).default;

/** A job graph without what legitimately differs: source connectors (generator vs. file), sink names. */
function normalized(graph: JobGraph): unknown {
  return JSON.parse(JSON.stringify(graph, (k, v: unknown) => (k === 'connector' ? undefined : v)).replaceAll(/"(q\d+|print|leaderboard)"/g, '"sink"'));
}

const data = nexmarkTestData();

const SAME_GRAPH = ['q7', 'q11', 'q18', 'q19'];

describe.each(['q5', 'q7', 'q11', 'q13', 'q15', 'q18', 'q19'])('Nexmark %s in SQL', (query) => {
  it('matches the reference on generated data at two parallelisms', async () => {
    const program = compileSql(example(nexmarkExample(query)));
    const expected = data.expected(query);
    expect(canonical(await runOnDir(program.pipeline, data.dir, 1, 1024))).toEqual(canonical(expected));
    expect(canonical(await runOnDir(program.pipeline, data.dir, 3, 7))).toEqual(canonical(expected));
  });

  if (SAME_GRAPH.includes(query)) {
    it('has the same plan and job graph as the API version', async () => {
      const api = await apiVersion(`../../examples/nexmark/${query}.ts`);
      const sql = compileSql(example(nexmarkExample(query)), { name: `nexmark-${query}` }).pipeline;
      const strip = (t: string): string => t.replace(/^Sink\(table=\[\w+\]/, 'Sink(');
      expect(strip(sql.explain())).toBe(strip(api.explain()));
      expect(normalized(sql.jobGraph({ parallelism: 4 }))).toEqual(normalized(api.jobGraph({ parallelism: 4 })));
    });
  }
});

describe('Nexmark q11 with the legacy SESSION group window', () => {
  it('matches the q11 reference and plans like the TVF version', async () => {
    const text = example('nexmark/q11.sql').replace(
      /INSERT INTO q11[\s\S]*$/,
      `INSERT INTO q11
       SELECT B.bidder, count(*) AS bid_count, SESSION_START(B.date_time, INTERVAL '10' SECOND) AS starttime, SESSION_END(B.date_time, INTERVAL '10' SECOND) AS endtime
       FROM bid B GROUP BY B.bidder, SESSION(B.date_time, INTERVAL '10' SECOND);`,
    );
    const legacy = compileSql(text).pipeline;
    expect(legacy.explain()).toBe(compileSql(example('nexmark/q11.sql')).pipeline.explain());
    expect(canonical(await runOnDir(legacy, data.dir, 2, 5))).toEqual(canonical(data.expected('q11')));
  });
});

describe('q15 and q5 against the API plans', () => {
  it('q15: same aggregate calls and $f projections as the API version', async () => {
    const api = (await apiVersion('../../examples/nexmark/q15.ts')).explain();
    const sql = compileSql(example('nexmark/q15.sql')).pipeline.explain();
    const aggregate = (t: string): string | undefined => t.split('\n').find((l) => l.includes('GroupAggregate'));
    expect(aggregate(sql)).toBe(aggregate(api));
  });

  it('q5: the same WindowAggregate and WindowRank', async () => {
    const api = (await apiVersion('../../examples/nexmark/q5.ts')).explain();
    const sql = compileSql(example('q5.sql')).pipeline.explain();
    const line = (t: string, what: string): string | undefined => t.split('\n').find((l) => l.includes(what))?.replace(/^[ +-]*/, '').replace(/, select=.*$/, '');
    expect(line(sql, 'WindowAggregate(')).toBe(line(api, 'WindowAggregate('));
    expect(line(sql, 'WindowRank(')).toBe(line(api, 'WindowRank('));
  });
});

describe('examples/orders/top-merchandise in SQL', () => {
  it('has the same optimized plan and job graph as the API version', async () => {
    const api = await apiVersion('../../examples/orders/top-merchandise.ts');
    const sql = compileSql(example('top-merchandise.sql'), { name: 'top-merchandise' }).pipeline;
    expect(sql.explain()).toBe(api.explain());
    // The SQL sink declares totalQuantity NOT NULL, which SUM's result type does not promise:
    // its stage ends in the enforcer of that column; otherwise the graphs are the same.
    const graph = sql.jobGraph({ parallelism: 4 });
    const last = graph.stages.at(-1)!;
    expect(last.operators.at(-1)?.description).toBe('ConstraintEnforcer(sink=[leaderboard], notNull=[totalQuantity])');
    const declaredNullable = { ...graph.sinks[0]!, schema: { fields: graph.sinks[0]!.schema.fields.map((f) => (f.name === 'totalQuantity' ? { ...f, type: { ...f.type, nullable: true } } : f)) } };
    const withoutEnforcer = { ...graph, sinks: [declaredNullable], stages: graph.stages.map((s) => (s === last ? { ...s, operators: s.operators.slice(0, -1) } : s)) };
    expect(normalized(withoutEnforcer)).toEqual(normalized(api.jobGraph({ parallelism: 4 })));
  });

  it('gives the same final leaderboard on the same orders', async () => {
    const options = { orders: 3000, merchandise: 25, seed: 11 };
    const dir = mkdtempSync(join(tmpdir(), 'flambda-sql-'));
    const file = join(dir, 'orders.jsonl');
    const rows = [...generateOrders(options)({ shard: 0, parallelism: 1 })];
    writeFileSync(file, rows.map((r) => JSON.stringify({ ...r, log_ts: new Date(r['log_ts'] as number).toISOString().replace('T', ' ').replace('Z', '') })).join('\n'));
    const api = new Pipeline('top-merchandise');
    ordersSource(api, options).groupBy('merchandiseId').aggregate({ totalQuantity: sum('quantity') }).topN(10, { orderBy: ['totalQuantity DESC'], rankNumber: 'ranking' }).print('leaderboard', { upsertKey: ['ranking'] });
    const sql = compileSql(example('top-merchandise.sql'), { inputs: new Map([['orders', file]]) }).pipeline;
    const apiRows = await finalRows(api, new Map());
    expect(apiRows).toHaveLength(10);
    expect(await finalRows(sql, new Map([['orders', file]]))).toEqual(apiRows);
  });
});

async function finalRows(pipeline: Pipeline, inputs: ReadonlyMap<string, string>): Promise<string[]> {
  const graph = pipeline.jobGraph({ parallelism: 2 });
  const sink = graph.sinks[0]!;
  const view = new MaterializedView({ ...(sink.upsertKey ? { key: sink.upsertKey } : {}), columns: sink.schema.fields.map((f) => f.name), strict: true });
  await runEmbeddedJob(graph, {
    inputs,
    code: { functions: pipeline.userFunctions, generators: pipeline.generators },
    batchSize: 256,
    observers: new Map([[sink.name, [{ write: (rows: readonly ChangeRow[]) => rows.forEach((r) => view.apply(r)) }]]]),
  });
  return canonical(view.rows().map(createRowEncoder(sink.schema)));
}
