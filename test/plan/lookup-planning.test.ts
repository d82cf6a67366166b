/**
 * Planning lookup joins: forward (chained into the upstream stage, no Exchange) by default;
 * `Exchange(hash[probe keys])` before the join exactly when the table has `hash: true`
 * ('lookup.enable_hash') or the join `shuffle: true`; the probe's changelog passes through; the
 * job graph carries the operator spec with its source descriptor.
 */
import { describe, expect, it } from 'vitest';
import { Pipeline, col, count, gt } from '../../shared/api/index.ts';
import { formatStages } from '../../shared/cli/explain-command.ts';
import { PlanError } from '../../shared/core/errors.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import { lookupTablesOf, parseJobGraph, serializeJobGraph } from '../../shared/plan/job-graph.ts';
import type { LookupJoinNode } from '../../shared/plan/logical.ts';
import { planPipeline } from '../../shared/plan/planner.ts';

const ORDERS = { user_id: 'INT', order_amount: 'BIGINT', sname: 'STRING', log_ts: 'TIMESTAMP(3)' } as const;
const USER = { id: 'INT NOT NULL', name: 'STRING', description: 'STRING', catalog: 'STRING' } as const;

/** The seed article's pipeline: orders joined to two JDBC tables, the first or second hashed or not. */
function seed(hash2: boolean, hash3: boolean): Pipeline {
  const p = new Pipeline('seed');
  const t2 = p.lookupTable('jdbc_table2', { schema: USER, source: { jdbc: { url: 'jdbc:mysql://localhost:3306/mqTest', table: 'test1' } }, hash: hash2 });
  const t3 = p.lookupTable('jdbc_table3', { schema: USER, source: { jdbc: { url: 'jdbc:postgresql://localhost:5432/mqTest', table: 'test2' } }, hash: hash3 });
  p.source('kafka_table', { schema: ORDERS })
    .lookupJoin(t2, { on: { user_id: 'id' }, columns: ['name', 'description'] })
    .lookupJoin(t3, { on: { user_id: 'id' }, columns: { s3Name: 'name' } })
    .select({ id: 'user_id', name: 'name', s3Name: 's3Name', order_amount: 'order_amount', description: 'description' })
    .sinkTo('fs_table');
  return p;
}

const exchanges = (text: string): string[] => text.split('\n').filter((l) => l.includes('Exchange('));

describe('lookup join planning: forward vs hashed', () => {
  it('without hashing the joins run in the source stage: no Exchange, one stage', () => {
    const p = seed(false, false);
    expect(p.explain()).toBe(
      [
        'Sink(table=[fs_table], fields=[id, name, s3Name, order_amount, description])',
        '+- Calc(select=[user_id AS id, name, s3Name, order_amount, description])',
        '   +- LookupJoin(table=[jdbc_table3], joinType=[InnerJoin], lookup=[id=user_id], select=[user_id, order_amount, sname, log_ts, name, description, s3Name])',
        '      +- LookupJoin(table=[jdbc_table2], joinType=[InnerJoin], lookup=[id=user_id], select=[user_id, order_amount, sname, log_ts, name, description])',
        '         +- Source(table=[kafka_table], fields=[user_id, order_amount, sname, log_ts])',
      ].join('\n'),
    );
    expect(formatStages(p.jobGraph({ parallelism: 4 }))).toBe('stage-0 (parallelism 4): source kafka_table => LookupJoin_2 -> LookupJoin_3 -> Calc_4 => sink fs_table');
  });

  it("one table with 'lookup.enable_hash' (hash: true): exactly one Exchange hash[user_id], below that join only", () => {
    const p = seed(true, false);
    const text = p.explain();
    expect(exchanges(text)).toEqual(['         +- Exchange(distribution=[hash[user_id]])']);
    const lines = text.split('\n');
    expect(lines[lines.findIndex((l) => l.includes('LookupJoin(table=[jdbc_table2]')) + 1]).toContain('Exchange(distribution=[hash[user_id]])');
    expect(formatStages(p.jobGraph({ parallelism: 4 }))).toBe(
      [
        'stage-0 (parallelism 4): source kafka_table => (no operators) => stage-1 via hash[user_id]',
        'stage-1 (parallelism 4): stage-0 via hash[user_id] => LookupJoin_2 -> LookupJoin_3 -> Calc_4 => sink fs_table',
      ].join('\n'),
    );
  });

  it('the hashed join second: the forward join stays in the source stage, the Exchange sits between them', () => {
    const p = seed(false, true);
    expect(exchanges(p.explain())).toHaveLength(1);
    expect(formatStages(p.jobGraph({ parallelism: 2 }))).toBe(
      [
        'stage-0 (parallelism 2): source kafka_table => LookupJoin_2 => stage-1 via hash[user_id]',
        'stage-1 (parallelism 2): stage-0 via hash[user_id] => LookupJoin_3 -> Calc_4 => sink fs_table',
      ].join('\n'),
    );
  });

  it('both tables hashed by the same key: the second join reuses the first Exchange (the distribution survives the join)', () => {
    const p = seed(true, true);
    expect(exchanges(p.explain())).toHaveLength(1);
    expect(p.jobGraph().stages).toHaveLength(2);
  });

  it("per-join shuffle: true (Flink's LOOKUP('shuffle'='true')) hashes too; composite keys hash in key order", () => {
    const p = new Pipeline('hint');
    const dim = p.lookupTable('dim', { schema: { region: 'STRING NOT NULL', sku: 'INT NOT NULL', title: 'STRING' }, source: { jsonl: {} } });
    p.source('orders', { schema: { sku: 'INT', region: 'STRING', qty: 'INT' } })
      .lookupJoin(dim, { on: { sku: 'sku', region: 'region' }, columns: ['title'], shuffle: true })
      .sinkTo('out');
    expect(p.explain()).toContain(
      [
        '+- LookupJoin(table=[dim], joinType=[InnerJoin], lookup=[sku=sku, region=region], select=[sku, region, qty, title])',
        '   +- Exchange(distribution=[hash[sku, region]])',
      ].join('\n'),
    );
  });

  it('the distribution follows a renamed key column; a join hashed by another column gets its own Exchange', () => {
    const p = new Pipeline('renamed');
    const a = p.lookupTable('a', { schema: { id: 'INT NOT NULL', x: 'INT' }, source: { jsonl: {} }, hash: true });
    const b = p.lookupTable('b', { schema: { id: 'INT NOT NULL', y: 'STRING' }, source: { jsonl: {} }, hash: true });
    const c = p.lookupTable('c', { schema: { id: 'INT NOT NULL', z: 'STRING' }, source: { jsonl: {} }, hash: true });
    p.source('s', { schema: { k: 'INT', v: 'INT' } })
      .lookupJoin(a, { on: { k: 'id' }, output: [{ side: 'probe', column: 'k', as: 'key' }, { side: 'lookup', column: 'x' }] })
      // Rows are still spread by the values of k, now called key: no second Exchange.
      .lookupJoin(b, { on: { key: 'id' }, columns: ['y'] })
      .lookupJoin(c, { on: { x: 'id' }, columns: ['z'] })
      .sinkTo('out');
    expect(exchanges(p.explain()).map((l) => l.trim())).toEqual(['+- Exchange(distribution=[hash[x]])', '+- Exchange(distribution=[hash[k]])']);
  });

  it('explain: LEFT joins print LeftOuterJoin, the extra condition as where', () => {
    const p = new Pipeline('left');
    const dim = p.lookupTable('dim', { schema: { id: 'BIGINT NOT NULL', price: 'INT' }, source: { jsonl: {} } });
    p.source('orders', { schema: { product_id: 'BIGINT', qty: 'INT' } })
      .lookupJoin(dim, { on: { product_id: 'id' }, type: 'left', columns: ['price'], condition: gt(col('price'), col('qty')) })
      .sinkTo('out');
    expect(p.explain()).toContain('LookupJoin(table=[dim], joinType=[LeftOuterJoin], lookup=[id=product_id], where=[>(price, qty)], select=[product_id, qty, price])');
  });
});

describe('lookup join changelog', () => {
  it("passes the probe's changelog through: retract after an aggregate, upsert for a keyed sink", () => {
    const build = (upsert: boolean): Pipeline => {
      const p = new Pipeline('cl');
      const dim = p.lookupTable('dim', { schema: { id: 'INT NOT NULL', title: 'STRING' }, source: { jsonl: {} } });
      p.source('orders', { schema: { user_id: 'INT', amount: 'BIGINT' } })
        .groupBy('user_id')
        .aggregate({ n: count() })
        .lookupJoin(dim, { on: { user_id: 'id' }, columns: ['title'] })
        .sinkTo('out', upsert ? { upsertKey: ['user_id'] } : {});
      return p;
    };
    expect(build(false).explain({ changelogMode: true })).toMatch(/LookupJoin\(.*changelogMode=\[I,UB,UA,D\]\)/);
    expect(build(true).explain({ changelogMode: true })).toMatch(/LookupJoin\(.*changelogMode=\[I,UA,D\]\)/);
    expect(build(true).jobGraph().sinks[0]?.changelogMode).toEqual(['+I', '+U', '-D']);
    expect(seed(true, false).explain({ changelogMode: true })).toMatch(/LookupJoin\(table=\[jdbc_table2\].*changelogMode=\[I\]\)/);
  });
});

describe('the LookupJoin job-graph operator', () => {
  it('carries the LookupJoinSpec plus the source descriptor, and survives JSON', () => {
    const p = seed(true, false);
    const graph = p.jobGraph({ parallelism: 2 });
    const op = graph.stages[1]?.operators[0];
    expect(op).toMatchObject({
      id: 'LookupJoin_2',
      type: 'LookupJoin',
      description: 'LookupJoin(table=[jdbc_table2], joinType=[InnerJoin], lookup=[id=user_id], select=[user_id, order_amount, sname, log_ts, name, description])',
      spec: {
        table: 'jdbc_table2',
        joinType: 'INNER',
        keys: [{ probe: 'user_id', lookup: 'id' }],
        dimensionSchema: schemaOf(USER),
        output: [
          { side: 'probe', column: 'user_id' },
          { side: 'probe', column: 'order_amount' },
          { side: 'probe', column: 'sname' },
          { side: 'probe', column: 'log_ts' },
          { side: 'lookup', column: 'name' },
          { side: 'lookup', column: 'description' },
        ],
        source: { type: 'jdbc', url: 'jdbc:mysql://localhost:3306/mqTest', table: 'test1' },
      },
    });
    expect(parseJobGraph(serializeJobGraph(graph))).toEqual(graph);
    expect([...lookupTablesOf(graph).values()]).toEqual([
      { table: 'jdbc_table2', source: { type: 'jdbc', url: 'jdbc:mysql://localhost:3306/mqTest', table: 'test1' }, operators: ['LookupJoin_2'] },
      { table: 'jdbc_table3', source: { type: 'jdbc', url: 'jdbc:postgresql://localhost:5432/mqTest', table: 'test2' }, operators: ['LookupJoin_3'] },
    ]);
  });

  it('a LookupJoin node without a dimension schema or source (as a front end may build it) plans and explains, but is no job-graph operator', () => {
    const p = new Pipeline('bare');
    const orders = p.source('orders', { schema: { user_id: 'INT' } });
    const node: LookupJoinNode = {
      type: 'LookupJoin',
      id: p.nextId(),
      input: orders.node,
      table: 'dim',
      joinType: 'INNER',
      keys: [{ probe: 'user_id', lookup: 'id' }],
      shuffle: true,
      schema: orders.schema,
    };
    const sink = { type: 'Sink' as const, id: p.nextId(), input: node, name: 'out', connector: { type: 'collect' as const }, schema: node.schema };
    const planned = planPipeline('bare', [sink], () => p.nextId());
    expect((planned.sinks[0]?.input as LookupJoinNode).input.type).toBe('Exchange');
    p.addSink(sink);
    expect(() => p.jobGraph()).toThrow(PlanError);
    expect(() => p.jobGraph()).toThrow("LookupJoin #2 with 'dim' has no dimension schema: declare the table with pipeline.lookupTable(name, { schema, source })");
  });
});
