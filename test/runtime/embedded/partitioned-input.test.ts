/**
 * Partitioned inputs of the embedded runtime: a directory binds one partition per file, read by
 * source shard `i mod parallelism`. Results equal those of the same rows in one file; a shard
 * whose partitions have all ended is finished (+∞), so it does not hold back the stages after
 * it, and a shard without a partition is finished from the start — Flink's finished source
 * readers.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../../shared/api/pipeline.ts';
import type { ChangeRow } from '../../../shared/core/row.ts';
import { runEmbeddedJob } from '../../../shared/runtime/embedded/embedded-runtime.ts';
import { MaterializedView } from '../../../shared/runtime/materialized-view.ts';
import { writeNexmarkFiles } from '../../../shared/nexmark/write-files.ts';
import { makeTempDir } from '../../cli/cli.ts';

const tmp = makeTempDir('partitions');
afterAll(() => tmp.cleanup());

async function q5(): Promise<Pipeline> {
  return ((await import('../../../examples/nexmark/q5.ts')) as { default: Pipeline }).default;
}

async function finalRows(input: string, parallelism: number): Promise<string[]> {
  const pipeline = await q5();
  const graph = pipeline.jobGraph({ parallelism });
  const sink = graph.sinks[0];
  if (sink === undefined) throw new Error('no sink');
  const view = new MaterializedView({ columns: sink.schema.fields.map((f) => f.name) });
  await runEmbeddedJob(graph, { inputs: new Map([['bid', input]]), observers: new Map([[sink.name, [{ write: (rows: readonly ChangeRow[]) => rows.forEach((r) => view.apply(r)) }]]]) });
  return view.rows().map((r) => JSON.stringify(r)).sort();
}

describe('a directory input', () => {
  it('gives the results of the same rows in one file, whatever the partitions and shards', async () => {
    const dir = tmp.file('gen');
    mkdirSync(dir);
    await writeNexmarkFiles(dir, { events: 6000, seed: 3 });
    const lines = readFileSync(join(dir, 'bid.jsonl'), 'utf8').trim().split('\n');
    const expected = await finalRows(join(dir, 'bid.jsonl'), 2);
    expect(expected.length).toBeGreaterThan(0);
    for (const [partitions, parallelism] of [
      [3, 2],
      [2, 4],
      [1, 1],
    ] as const) {
      const parts = tmp.file(`parts-${partitions}-${parallelism}`);
      mkdirSync(parts);
      // Contiguous ranges per partition: each partition is in event-time order, as a topic's are.
      const size = Math.ceil(lines.length / partitions);
      for (let i = 0; i < partitions; i++) writeFileSync(join(parts, `part-${i}.jsonl`), `${lines.slice(i * size, (i + 1) * size).join('\n')}\n`);
      expect(await finalRows(parts, parallelism), `${partitions} partitions, ${parallelism} shards`).toEqual(expected);
    }
  });
});
