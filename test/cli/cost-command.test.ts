/**
 * The cost section of `flambda cost` / `flambda explain --cost-rate`: per-stage and per-operator
 * dollars from measured usage, with Managed Flink's figure beside it.
 */
import { describe, expect, it } from 'vitest';
import { Pipeline } from '../../shared/api/pipeline.ts';
import { count } from '../../shared/api/aggregates.ts';
import type { MeasuredJob } from '../../shared/bench/aws-cost.ts';
import { BID_SCHEMA } from '../../shared/bench/bench-input.ts';
import { formatCost } from '../../shared/cli/cost-estimate.ts';

describe('formatCost', () => {
  it('prices each stage and operator at the rate and names Managed Flink with its KPU assumption', () => {
    const p = new Pipeline('cost-test');
    p.source('bid', { schema: BID_SCHEMA }).groupBy('auction').aggregate({ bids: count() }).sinkTo('out', { connector: { type: 'blackhole' }, upsertKey: ['auction'] });
    const graph = p.jobGraph({ parallelism: 1 });
    const [s0, s1] = graph.stages;
    const stage0 = { writeUnits: 8, readUnits: 0, lambdaInvocations: 2, lambdaGbSeconds: 0.5, exchangePutUnits: 2, sqsRequests: 0, exchanges: [{ records: 2, bytes: 40_000 }] };
    const stage1 = { writeUnits: 20, readUnits: 0, lambdaInvocations: 2, lambdaGbSeconds: 1, exchangePutUnits: 0, sqsRequests: 0, exchanges: [] };
    const measured: MeasuredJob = {
      events: 5000,
      usage: { writeUnits: 28, readUnits: 0, lambdaInvocations: 4, lambdaGbSeconds: 1.5, exchangePutUnits: 2, sqsRequests: 0, exchanges: stage0.exchanges },
      stages: [
        { stage: s0!.id, usage: stage0, stateBytesByOperator: new Map() },
        { stage: s1!.id, usage: stage1, stateBytesByOperator: new Map([[s1!.operators[0]!.id, 12_000]]) },
      ],
      rowsOut: 5000,
      stateCommitBytes: 12_000,
      materializations: 0,
      maxColdStartSegments: 0,
      maxCatchUpRecords: 0,
      maxCatchUpMs: 0,
      handlerEventsPerS: 1000,
      writeRequestsPer1000: 20,
      itemsWrittenPer1000: 20,
    };
    const text = formatCost(graph, measured, 1000);
    // 20 write units per 1,000 events at 1,000 events/s: 20 × 2.628e6 thousand-events × $0.625e-6 = $32.85.
    expect(text).toContain(`${s1!.id} (1 shard measured): ${s1!.operators[0]!.id}`);
    expect(text).toContain('DynamoDB 20 write + 0 read units/s: $32.85/month');
    expect(text).toContain(`${s1!.operators[0]!.id}: 100% of the stage's state bytes`);
    expect(text).toMatch(/Managed Service for Apache Flink: \$218\.34\/month \(1 KPU at 5,000 events\/s per KPU \(assumed\) \+ 1 orchestration KPU/);
    expect(text).toMatch(/Flambda total: \$[\d,.]+\/month/);
  });
});
