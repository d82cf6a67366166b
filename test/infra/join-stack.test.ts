/**
 * The CDK stack of a join pipeline (Nexmark q3: auctions joined with their sellers): each source
 * stage writes into the one exchange stream of the two-input join stage, which one event source
 * mapping reads; only the producers may write it, only the join stage reads it.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { StreamPipeline } from '../../infra/lib/stream-pipeline.ts';
import { compileSqlFile } from '../../shared/sql/compile-sql.ts';
import { functionOfStage, idsOfType, policyTargetsOfType, referencedIds, resourcesOf, statementsOfFunction } from './template-helpers.ts';

process.env.CDK_VALIDATION = 'false';

describe('StreamPipeline with a two-input (join) stage', () => {
  const program = compileSqlFile(fileURLToPath(new URL('../../examples/sql/nexmark/q3.sql', import.meta.url)));
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Q3');
  const pipeline = new StreamPipeline(stack, 'P', { jobGraph: program.pipeline.jobGraph({ parallelism: 2 }), sinkConnectors: { q3: 'kinesis' } });
  const template = Template.fromStack(stack);
  const graph = pipeline.jobGraph;

  it('plans two source stages feeding the join stage', () => {
    expect(graph.stages.map((s) => [s.id, s.input.type, s.output.type === 'exchange' ? s.output.toStage : 'sink'])).toEqual([
      ['stage-0', 'source', 'stage-2'],
      ['stage-1', 'source', 'stage-2'],
      ['stage-2', 'twoInput', 'sink'],
    ]);
  });

  it('creates one exchange stream for the join stage, written by both producers and read by the join stage only', () => {
    // Two source streams, the join's exchange, the sink stream.
    template.resourceCountIs('AWS::Kinesis::Stream', 4);
    const exchange = pipeline.exchangeStreams.get('stage-2');
    expect(exchange).toBeDefined();
    const exchangeId = stack.getLogicalId(exchange!.node.defaultChild as never);
    expect(policyTargetsOfType(template, functionOfStage(template, 'stage-2'), 'AWS::Kinesis::Stream').has(exchangeId)).toBe(true);
    const actionsOn = (stage: string): string[] =>
      statementsOfFunction(template, functionOfStage(template, stage))
        .filter((st) => referencedIds(st.Resource).has(exchangeId))
        .flatMap((st) => (Array.isArray(st.Action) ? st.Action : [st.Action]));
    expect(actionsOn('stage-0')).toContain('kinesis:PutRecords');
    expect(actionsOn('stage-1')).toContain('kinesis:PutRecords');
    expect(actionsOn('stage-2')).toContain('kinesis:GetRecords');
    expect(actionsOn('stage-2')).not.toContain('kinesis:PutRecords');
    const mappings = idsOfType(template, 'AWS::Lambda::EventSourceMapping').map((id) => resourcesOf(template)[id]?.Properties ?? {});
    const readers = mappings.filter((m) => JSON.stringify(m.EventSourceArn).includes(exchangeId));
    expect(readers).toHaveLength(1);
    expect(JSON.stringify(readers[0]?.FunctionName)).toContain(functionOfStage(template, 'stage-2'));
  });
});
