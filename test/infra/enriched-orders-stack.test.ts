/**
 * The example app's second stack: the seed's two-dimension-table lookup pipeline
 * (examples/lookup/enriched-orders.ts), one table hashed and one not. Its topology differs from
 * the same pipeline with both tables unhashed by exactly one stream (the exchange before the
 * hashed join); only the lookup stage reads the database secrets; cdk-nag finds nothing
 * unacknowledged. The databases come from the props (the app: CDK context), never from the
 * local defaults of examples/lookup/setup.ts, and a VPC puts the lookup stage into it.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import cdkNag from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import enrichedOrders from '../../examples/lookup/enriched-orders.ts';
import { EnrichedOrdersStack, exampleStacks } from '../../infra/lib/example-stacks.ts';
import { lookupTablesOf } from '../../shared/plan/job-graph.ts';
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
  const databases = { mysqlUrl: 'jdbc:mysql://mariadb.internal:3306/shop?user=app', mysqlTable: 'users', postgresUrl: 'jdbc:postgresql://pg.internal:5432/shop?user=app', postgresTable: 'users' };
  const stack = new EnrichedOrdersStack(stackApp, 'Enriched', { parallelism: 2, databases });
  const template = Template.fromStack(stack);

  it('reads the databases it was given, not the local ones', () => {
    const sources = [...lookupTablesOf(stack.pipeline.jobGraph).values()].map((t) => t.source);
    expect(sources).toEqual([
      { type: 'jdbc', url: databases.mysqlUrl, table: 'users' },
      { type: 'jdbc', url: databases.postgresUrl, table: 'users' },
    ]);
    expect(JSON.stringify(stack.pipeline.jobGraph)).not.toContain('127.0.0.1');
    expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('cannot reach'))).toEqual([]);
  });

  it('warns when a database URL names this machine', () => {
    const local = new EnrichedOrdersStack(app(), 'Local', { databases: { ...databases, mysqlUrl: 'jdbc:mysql://127.0.0.1:3306/test?user=root' } });
    Annotations.fromStack(local).hasWarning('/Local', Match.stringLikeRegexp('jdbc:mysql://127.0.0.1:3306/test\\?user=root names this machine'));
  });

  it('runs the lookup stage in the given VPC, and the source stage outside it', () => {
    const vpcApp = app();
    const network = new Stack(vpcApp, 'Network', { env: { account: '123456789012', region: 'us-east-1' } });
    const vpc = new ec2.Vpc(network, 'Vpc', { maxAzs: 2 });
    const inVpc = new EnrichedOrdersStack(vpcApp, 'InVpc', { databases, vpc, env: { account: '123456789012', region: 'us-east-1' } });
    const t = Template.fromStack(inVpc);
    expect(t.toJSON().Resources[functionOfStage(t, 'stage-1')].Properties.VpcConfig).toBeDefined();
    expect(t.toJSON().Resources[functionOfStage(t, 'stage-0')].Properties.VpcConfig).toBeUndefined();
    const report = new cdkNag.AwsSolutionsChecks(vpcApp).validateScope(inVpc);
    expect(report.violations.filter((v) => v.severity === 'error').map((v) => v.ruleName)).toEqual([]);
  });

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

describe('The example app (infra/bin/flambda-app.ts)', () => {
  const stackNames = (context: Record<string, string>): string[] => {
    const a = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
    exampleStacks(a);
    return a.node.children.filter((c): c is Stack => c instanceof Stack).map((c) => c.stackName);
  };

  it('leaves the lookup example out unless CDK context names its databases', () => {
    expect(stackNames({})).toEqual(['FlambdaTopMerchandise']);
    expect(stackNames({ 'enrichedOrders:mysqlUrl': 'jdbc:mysql://db:3306/shop' })).toEqual(['FlambdaTopMerchandise']);
  });

  it('builds the lookup example from the context: URLs, tables and secret names', () => {
    const a = new App({
      context: {
        'aws:cdk:bundling-stacks': [],
        'enrichedOrders:mysqlUrl': 'jdbc:mysql://db:3306/shop?user=app',
        'enrichedOrders:postgresUrl': 'jdbc:postgresql://pg:5432/shop?user=app',
        'enrichedOrders:postgresTable': 'customers',
        'enrichedOrders:mysqlSecret': 'prod/mysql',
      },
    });
    const { enrichedOrders: stack } = exampleStacks(a);
    const tables = lookupTablesOf(stack!.pipeline.jobGraph);
    expect(tables.get('jdbc_table2')?.source).toEqual({ type: 'jdbc', url: 'jdbc:mysql://db:3306/shop?user=app', table: 'users_mysql' });
    expect(tables.get('jdbc_table3')?.source).toEqual({ type: 'jdbc', url: 'jdbc:postgresql://pg:5432/shop?user=app', table: 'customers' });
    const policies = JSON.stringify(Template.fromStack(stack!).findResources('AWS::IAM::Policy'));
    expect(policies).toContain('secret:prod/mysql-??????');
    expect(policies).toContain('secret:flambda/enriched-orders/postgres-??????');
  });
});
