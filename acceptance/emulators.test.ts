/**
 * Nexmark q15 and q19 on the external fixture through kinesalite streams and a dynalite state
 * table, each stage a StageHandler fed by a local event source mapping, at downstream
 * parallelism 1 and 4: the sink's materialized final result equals the fixture's.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { describe, expect, it } from 'vitest';
import { asRecords, nexmarkJob } from '../test/aws/faults/nexmark-jobs.ts';
import type { NexmarkQuery } from '../test/aws/faults/nexmark-jobs.ts';
import { runJobOnEmulators } from '../test/aws/faults/pipeline-driver.ts';
import { useEmulators } from '../test/aws/use-emulators.ts';
import { canonicalRows } from '../test/nexmark/reference.ts';
import { expectedResult, fixtureBidLines } from './fixture.ts';

let kinesis: KinesisClient;
let dynamoDb: DynamoDBClient;
useEmulators((clients) => ({ kinesis, dynamoDb } = clients));

describe.each<NexmarkQuery>(['q15', 'q19'])('Nexmark %s on the emulators', (query) => {
  it.each([1, 4])('equals the fixture at parallelism %i', async (parallelism) => {
    const job = await nexmarkJob(query, parallelism, 2);
    const lines = fixtureBidLines();
    const result = await runJobOnEmulators({
      clients: { kinesis, dynamoDb },
      graph: job.graph,
      code: job.code,
      name: `acc-${query}-p${parallelism}`,
      batchSize: 7,
      phases: [{ put: new Map([['bid', asRecords(lines)]]) }],
    });
    expect(result.errors).toEqual([]);
    expect(result.deadLetters).toEqual([]);
    const sink = [...result.sinks.values()][0]!;
    expect(sink.violations).toEqual([]);
    expect(canonicalRows(sink.rows())).toEqual(canonicalRows(expectedResult(query)));
  });
});
