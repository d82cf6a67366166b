/**
 * A SQL pipeline with a user function on AWS: `StreamPipeline.fromSql` with Nexmark q14 and its
 * `count_char` (examples/sql/nexmark/) points every stage function at a generated pipeline
 * module; that module, bundled by the stage bundling's own esbuild command, gives the user
 * functions the synthesized job graph names, and the job graph runs with them (exact rows).
 */
import { execSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { loadUserCode } from '../../shared/aws/env.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { sqlUserFunctions } from '../../shared/cli/load-pipeline.ts';
import { serializeJobGraph } from '../../shared/plan/job-graph.ts';
import { runEmbeddedJob } from '../../shared/runtime/embedded/embedded-runtime.ts';
import { PIPELINE_MODULE_FILE, stageBundling } from '../../infra/lib/stage-bundling.ts';
import { writeSqlPipelineModule } from '../../infra/lib/sql-pipeline-module.ts';
import { StreamPipeline } from '../../infra/lib/stream-pipeline.ts';
import { resourcesOf } from './template-helpers.ts';

const Q14 = new URL('../../examples/sql/nexmark/q14.sql', import.meta.url).pathname;
const DIR = new URL('../../examples/sql/nexmark/', import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), 'flambda-sql-udf-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('StreamPipeline.fromSql with CREATE FUNCTION (Nexmark q14)', () => {
  it('bundles the function modules into the stage functions and runs count_char from the bundle', async () => {
    const sql = readFileSync(Q14, 'utf8');
    const functions = await sqlUserFunctions(Q14);
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Q14');
    const pipeline = StreamPipeline.fromSql(stack, 'Q14', sql, { name: 'q14', functions, scriptDir: DIR });
    const template = Template.fromStack(stack);
    const stageFunctions = Object.values(resourcesOf(template)).filter((r) => r.Type === 'AWS::Lambda::Function' && (r.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.FLAMBDA_STAGE_ID !== undefined);
    expect(stageFunctions.length).toBe(pipeline.jobGraph.stages.length);
    for (const fn of stageFunctions) expect((fn.Properties?.Environment as { Variables: Record<string, unknown> }).Variables.FLAMBDA_PIPELINE_MODULE).toBe(`./${PIPELINE_MODULE_FILE}`);

    // The generated module, bundled by the stage bundling's esbuild command.
    const module = writeSqlPipelineModule(sql, 'q14', DIR);
    expect(module).toBeDefined();
    const hooks = stageBundling('{}', module).commandHooks!;
    for (const command of hooks.afterBundling('', out)) execSync(command, { stdio: 'pipe' });
    expect(readdirSync(out).sort()).toEqual(['job-graph.json', PIPELINE_MODULE_FILE]);
    const code = await loadUserCode(join(out, PIPELINE_MODULE_FILE));
    // The references the synthesized job graph calls are the bundle's.
    const refs = [...serializeJobGraph(pipeline.jobGraph).matchAll(/"ref": ?"(udf_\d+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(typeof code.functions.get(ref as string)).toBe('function');

    // The synthesized job graph, run with the bundle's functions over a few bids.
    const bids = [
      { auction: 1, bidder: 7, price: 2_000_000, channel: 'c', url: 'u', date_time: '2024-01-01 09:00:00.000', extra: 'cccabc' },
      { auction: 2, bidder: 8, price: 10, channel: 'c', url: 'u', date_time: '2024-01-01 09:00:01.000', extra: 'c' },
      { auction: 3, bidder: 9, price: 3_000_000, channel: 'c', url: 'u', date_time: '2024-01-01 23:00:00.000', extra: 'xyz' },
    ];
    const input = join(out, 'bid.jsonl');
    writeFileSync(input, bids.map((b) => JSON.stringify(b)).join('\n') + '\n');
    const rows: [unknown, unknown, unknown][] = [];
    await runEmbeddedJob(pipeline.jobGraph, {
      code,
      inputs: new Map([['bid', input]]),
      sinkSetup: { quiet: true },
      observers: new Map([['q14', [{ write: (changes: readonly ChangeRow[]) => changes.forEach((c) => rows.push([c.row.auction, c.row.bidTimeType, c.row.c_counts])) }]]]),
    });
    expect(rows.sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
      [1, 'dayTime', 4],
      [3, 'nightTime', 0],
    ]);
  });
});
