/**
 * `PROCTIME()` in views and subqueries (Nexmark q12 and q13 as the benchmark writes them:
 * `SELECT *, PROCTIME() AS p_time FROM bid`): the select item stays a processing-time attribute,
 * so a lookup join `FOR SYSTEM_TIME AS OF v.p_time` and a processing-time window over the view
 * plan exactly as over a table declaring `p_time AS PROCTIME()` (same plan, same job graph: the
 * same operators on both runtimes), and give the references' results (q13 exactly, q12 by its
 * invariants under a controlled clock). Written into a result, the attribute is its
 * TIMESTAMP_LTZ(3) value.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ChangeRow } from '../../shared/core/row.ts';
import { generateTable } from '../../shared/nexmark/generator.ts';
import { nexmarkJob } from '../../shared/nexmark/run.ts';
import type { BidRow } from '../../shared/nexmark/schemas.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { q12Violations } from '../nexmark/more-reference.ts';
import { canonicalRows as canonical } from '../nexmark/reference.ts';
import { SMALL_NEXMARK, nexmarkTestData, runOnDir } from '../nexmark/test-data.ts';
import { example } from './helpers.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const data = nexmarkTestData();

/** A Nexmark example with `p_time AS PROCTIME()` taken out of its bid table's DDL. */
function withoutProctimeColumn(query: string): string {
  const text = example(`nexmark/${query}.sql`);
  const out = text.replace('  p_time AS PROCTIME(),\n', '');
  expect(out).not.toBe(text);
  return out;
}

describe('PROCTIME() in a view or subquery: Nexmark q13 (lookup join)', () => {
  const table = compileSql(example('nexmark/q13.sql')).pipeline;
  const variants: [string, string][] = [
    [
      'a view',
      withoutProctimeColumn('q13').replace('INSERT INTO q13', 'CREATE VIEW B AS SELECT *, PROCTIME() AS p_time FROM bid;\nINSERT INTO q13').replace('FROM bid B', 'FROM B'),
    ],
    ['a subquery', withoutProctimeColumn('q13').replace('FROM bid B', 'FROM (SELECT *, PROCTIME() AS p_time FROM bid) B')],
    [
      'a subquery projecting named columns',
      withoutProctimeColumn('q13').replace('FROM bid B', 'FROM (SELECT auction, bidder, price, date_time, PROCTIME() AS pt FROM bid) B').replace('B.p_time', 'B.pt'),
    ],
  ];
  it.each(variants)('over %s plans like the table-declared attribute and matches the q13 reference', async (_name, text) => {
    const program = compileSql(text);
    const explain = program.pipeline.explain();
    expect(explain).toContain('LookupJoin(table=[side_input]');
    if (_name !== 'a subquery projecting named columns') {
      expect(explain).toBe(table.explain());
      expect(JSON.stringify(program.pipeline.jobGraph({ parallelism: 3 }))).toBe(JSON.stringify(table.jobGraph({ parallelism: 3 })));
    }
    const expected = canonical(data.expected('q13'));
    expect(expected.length).toBeGreaterThan(10);
    expect(canonical(await runOnDir(program.pipeline, data.dir, 1, 1024))).toEqual(expected);
    expect(canonical(await runOnDir(program.pipeline, data.dir, 3, 7))).toEqual(expected);
  });
});

describe('PROCTIME() in a view: Nexmark q12 (processing-time TUMBLE window)', () => {
  const text = withoutProctimeColumn('q12')
    .replace('INSERT INTO q12', 'CREATE VIEW B AS SELECT *, PROCTIME() AS p_time FROM bid;\nINSERT INTO q12')
    .replace('TABLE bid,', 'TABLE B,');

  it('plans like the table-declared attribute', () => {
    const table = compileSql(example('nexmark/q12.sql')).pipeline;
    const view = compileSql(text).pipeline;
    expect(view.explain()).toContain('PROCTIME(p_time)');
    expect(view.explain()).toBe(table.explain());
    expect(JSON.stringify(view.jobGraph({ parallelism: 2 }))).toBe(JSON.stringify(table.jobGraph({ parallelism: 2 })));
  });

  it('holds q12 invariants under a clock that moves 700 ms per read, at parallelism 1 and 3', async () => {
    const bids = [...generateTable(SMALL_NEXMARK, 'bid')] as BidRow[];
    for (const parallelism of [1, 3]) {
      const program = compileSql(text);
      const { graph, generators } = nexmarkJob(program.pipeline, { nexmark: SMALL_NEXMARK, parallelism, blackhole: true });
      const sink = graph.sinks[0]!;
      const view = new MaterializedView({ ...(sink.upsertKey ? { key: sink.upsertKey } : {}), columns: sink.schema.fields.map((f) => f.name), strict: true });
      const firstMs = Date.UTC(2030, 0, 1) + 3_456;
      let now = firstMs - 700;
      await runEmbeddedJob(graph, {
        code: { functions: program.pipeline.userFunctions, generators },
        batchSize: 5,
        clock: () => (now += 700),
        observers: new Map([[sink.name, [{ write: (rows: readonly ChangeRow[]) => rows.forEach((r) => view.apply(r)) }]]]),
      });
      const rows = view.rows().map((r) => ({ ...r }));
      expect(q12Violations(bids, rows, firstMs, now)).toEqual([]);
      expect(new Set(rows.map((r) => r['starttime'])).size).toBeGreaterThan(1);
    }
  });
});

describe('PROCTIME() written into a result: its TIMESTAMP_LTZ(3) value, as Flink materializes it', () => {
  const files = inputDir('proctime-result');
  afterAll(() => files.cleanup());
  const path = files.file('bids', [{ auction: 1, price: 10 }, { auction: 2, price: 20 }]);
  const bid = (extra = ''): string => `CREATE TABLE bid (auction BIGINT, price BIGINT${extra}) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');\n`;
  const scripts: [string, string, string[]][] = [
    ['a PROCTIME() select item', `${bid()}SELECT auction, PROCTIME() AS p FROM bid;`, ['auction', 'p']],
    ["a view's PROCTIME() attribute, at its place in the select list", `${bid()}CREATE VIEW v AS SELECT *, PROCTIME() AS p_time FROM bid;\nSELECT p_time AS p, auction FROM v;`, ['p', 'auction']],
    ["a table's PROCTIME() column read through *", `${bid(', p AS PROCTIME()')}SELECT * FROM bid;`, ['auction', 'price', 'p']],
    ['PROCTIME() inside an expression', `${bid()}SELECT auction, CAST(PROCTIME() AS TIMESTAMP_LTZ(3)) AS p FROM bid;`, ['auction', 'p']],
  ];

  it.each(scripts)('%s is a TIMESTAMP_LTZ(3) column of the time the row was processed (embedded and AWS runtimes)', async (_what, script, columns) => {
    const sink = compileSql(script).pipeline.jobGraph({ parallelism: 1 }).sinks[0]!;
    expect(sink.schema.fields.map((f) => f.name)).toEqual(columns);
    expect(sink.schema.fields.find((f) => f.name === 'p')?.type).toEqual({ root: 'TIMESTAMP_LTZ', nullable: false, precision: 3 });
    for (const run of [runEmbeddedSql, runLocalSql]) {
      const before = Date.now();
      const { changes } = await run(script);
      const after = Date.now();
      expect(changes.map((c) => c.row.auction).sort()).toEqual([1, 2]);
      for (const c of changes) {
        expect(c.row.p).toBeGreaterThanOrEqual(before);
        expect(c.row.p).toBeLessThanOrEqual(after);
      }
    }
  }, 120_000);
});

describe('SELECT * keeps a PROCTIME() attribute at its declared place, as Flink expands the star', () => {
  const files = inputDir('proctime-star');
  afterAll(() => files.cleanup());
  const path = files.file('bids', [{ auction: 1, price: 10 }, { auction: 2, price: 20 }]);
  const bid = (columns = 'auction BIGINT, price BIGINT'): string => `CREATE TABLE bid (${columns}) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');\n`;
  const view = `${bid()}CREATE VIEW v AS SELECT auction, PROCTIME() AS pt, price FROM bid;\n`;
  // 2024-01-01 10:07:30 UTC: every read of the clock, so the materialized attribute is exact
  // (a TIMESTAMP_LTZ(3) column, written as its instant).
  const T = Date.UTC(2024, 0, 1, 10, 7, 30);
  const TS = '2024-01-01 10:07:30.000Z';
  const rows = (keys: readonly string[], value: (auction: number) => Record<string, unknown>): string[] =>
    [1, 2].map((auction) => JSON.stringify(Object.fromEntries(keys.map((k) => [k, value(auction)[k]])))).sort();
  const viewRow = (a: number): Record<string, unknown> => ({ auction: a, pt: TS, price: a * 10 });
  const scripts: [string, string, string[], (auction: number) => Record<string, unknown>][] = [
    ['a view', `${view}SELECT * FROM v;`, ['auction', 'pt', 'price'], viewRow],
    ['a subquery over the view', `${view}SELECT * FROM (SELECT * FROM v) s;`, ['auction', 'pt', 'price'], viewRow],
    ["the view's qualified star", `${view}SELECT v.* FROM v;`, ['auction', 'pt', 'price'], viewRow],
    ['a WITH query', `${bid()}WITH w AS (SELECT auction, PROCTIME() AS pt, price FROM bid) SELECT * FROM w;`, ['auction', 'pt', 'price'], viewRow],
    ['a subquery', `${bid()}SELECT * FROM (SELECT auction, PROCTIME() AS pt, price FROM bid) s;`, ['auction', 'pt', 'price'], viewRow],
    [
      "a view's column list, which names the attribute at its place",
      `${bid()}CREATE VIEW v (a, p, b) AS SELECT auction, PROCTIME() AS pt, price FROM bid;\nSELECT * FROM v;`,
      ['a', 'p', 'b'],
      (a) => ({ a, p: TS, b: a * 10 }),
    ],
    [
      'a table declaring the attribute and a computed column between its physical columns',
      `${bid('auction BIGINT, pt AS PROCTIME(), next_auction AS auction + 1, price BIGINT')}SELECT * FROM bid;`,
      ['auction', 'pt', 'next_auction', 'price'],
      (a) => ({ auction: a, pt: TS, next_auction: a + 1, price: a * 10 }),
    ],
    [
      'a view over that table',
      `${bid('auction BIGINT, pt AS PROCTIME(), next_auction AS auction + 1, price BIGINT')}CREATE VIEW t AS SELECT * FROM bid;\nWITH w AS (SELECT * FROM t) SELECT * FROM w;`,
      ['auction', 'pt', 'next_auction', 'price'],
      (a) => ({ auction: a, pt: TS, next_auction: a + 1, price: a * 10 }),
    ],
  ];

  it.each(scripts)('through %s (embedded and AWS runtimes)', async (_what, script, columns, row) => {
    const sink = compileSql(script).pipeline.jobGraph({ parallelism: 1 }).sinks[0]!;
    expect(sink.schema.fields.map((f) => f.name)).toEqual(columns);
    for (const run of [runEmbeddedSql, runLocalSql]) {
      const result = await run(script, { clock: () => T });
      expect(result.rows).toEqual(rows(columns, row));
    }
  }, 120_000);
});
