/**
 * The example app's second stack: the seed's two-dimension-table lookup pipeline
 * (examples/lookup/enriched-orders.ts), one table hashed and one not. Its topology differs from
 * the same pipeline with both tables unhashed by exactly one stream (the exchange before the
 * hashed join); only the lookup stage reads the database secrets; cdk-nag finds nothing
 * unacknowledged.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import cdkNag from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import enrichedOrders from '../../examples/lookup/enriched-orders.ts';
import { EnrichedOrdersStack } from '../../infra/lib/example-stacks.ts';
import { StreamPipeline } from '../../infra/lib/stream-pipeline.ts';
import type { JobGraph } from '../../shared/plan/job-graph.ts';
import { environmentOf, functionOfStage, statementsOfFunction } from './template-helpers.ts';

process.env.CDK_VALIDATION = 'false';

/** No bundling: these tests look at the template, not the function code. */
const app = (): App => new App({ context: { 'aws:cdk:bundling-stacks': [] } });

/** The job graph with every lookup join unhashed: what the pipeline would be without lookup.enable_hash. */
function unhashed(graph: JobGraph): JobGraph {
  const [source, lookup] = graph.stages;
  if (source === undefined || lookup === undefined) throw new Error('expected two stages');
  return {
    ...graph,
    stages: [{ ...source, operators: [...source.operators, ...lookup.operators], output: lookup.output }],
  };
}

describe('EnrichedOrdersStack (the seed lookup pipeline)', () => {
  const stackApp = app();
  const stack = new EnrichedOrdersStack(stackApp, 'Enriched', { parallelism: 2 });
  const template = Template.fromStack(stack);

  it('hashes the MariaDB lookup by user id: one exchange stream, the PostgreSQL lookup in the same stage', () => {
    const graph = stack.pipeline.jobGraph;
    expect(graph.stages.map((s) => s.operators.map((o) => o.type))).toEqual([[], ['LookupJoin', 'LookupJoin', 'Calc']]);
    expect(graph.stages[1]?.input).toMatchObject({ type: 'exchange', distribution: { type: 'hash', keys: ['user_id'] } });
    // Source, exchange, sink.
    template.resourceCountIs('AWS::Kinesis::Stream', 3);
  });

  it('differs from the unhashed topology by exactly one stream', () => {
    const other = new Stack(app(), 'Unhashed');
    new StreamPipeline(other, 'P', { jobGraph: unhashed(enrichedOrders.jobGraph({ parallelism: 2 })), sinkConnectors: { fs_table: 'kinesis' } });
    Template.fromStack(other).resourceCountIs('AWS::Kinesis::Stream', 2);
  });

  it('passes the secrets by ARN to the lookup stage only, and grants only it to read them', () => {
    const lookupFn = functionOfStage(template, 'stage-1');
    const sourceFn = functionOfStage(template, 'stage-0');
    expect(Object.keys(JSON.parse(JSON.stringify(environmentOf(template, lookupFn).FLAMBDA_LOOKUP_SECRETS ?? '{}')) as object).length).toBeGreaterThan(0);
    expect(environmentOf(template, sourceFn).FLAMBDA_LOOKUP_SECRETS).toBeUndefined();
    const reads = (fn: string) => statementsOfFunction(template, fn).filter((s) => JSON.stringify(s.Action).includes('secretsmanager:GetSecretValue'));
    expect(reads(lookupFn).length).toBeGreaterThan(0);
    expect(reads(sourceFn)).toEqual([]);
  });

  it('passes cdk-nag AwsSolutionsChecks', () => {
    const report = new cdkNag.AwsSolutionsChecks(stackApp).validateScope(stack);
    const errors = report.violations.filter((v) => v.severity === 'error' || v.severity === 'fatal');
    expect(errors.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
  });
});
