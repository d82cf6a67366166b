/**
 * The stage handler's failure path on emulators: a user function that throws once in the middle
 * of a batch (after a run of rows and a dead letter) and a sink that throws once while a batch
 * is committed. The first must commit the records before the failing step and return the failing
 * step's first record; the second must retry the whole batch. Either way the final counts are
 * exact (no loss, no double counting) and the dead letter is handed over once.
 */
import { Buffer } from 'node:buffer';
import { PutRecordCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KinesisStreamBatchResponse } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { Pipeline, count } from '../../shared/api/index.ts';
import { LocalEventSourceMapping } from '../../shared/aws/esm/local-event-source-mapping.ts';
import { StageHandler } from '../../shared/aws/handler/stage-handler.ts';
import type { DeadLetter } from '../../shared/aws/stage-input/types.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { MaterializedView } from '../../shared/runtime/materialized-view.ts';
import { createStream } from './kinesis-emulator.ts';
import { useEmulators } from './use-emulators.ts';

let kinesis: KinesisClient;
let dynamoDb: DynamoDBClient;
useEmulators((clients) => ({ kinesis, dynamoDb } = clients));

const POISON_ID = 12;

describe('StageHandler: failures', () => {
  it('commits the records before a failing step, retries from it, and retries a batch whose commit failed', async () => {
    let mapThrew = false;
    const p = new Pipeline('failures');
    p.source('ev', { schema: { id: 'INT NOT NULL', k: 'INT NOT NULL' } })
      .map(
        { id: 'INT NOT NULL', k: 'INT NOT NULL' },
        (r) => {
          if (r.id === POISON_ID && !mapThrew) {
            mapThrew = true;
            throw new Error('injected map failure');
          }
          return r;
        },
        'flaky',
      )
      .groupBy('k')
      .aggregate({ n: count() })
      .sinkTo('out', { upsertKey: ['k'] });
    const planned = p.jobGraph({ parallelism: 2 });
    // One source shard, read by one stage-0 shard, so the batches are known in advance.
    const graph = { ...planned, stages: planned.stages.map((s) => (s.input.type === 'source' ? { ...s, parallelism: 1 } : s)) };
    const [stage0, stage1] = graph.stages as [(typeof graph.stages)[number], (typeof graph.stages)[number]];
    await Promise.all([createStream(kinesis, 'fail-src', 1), createStream(kinesis, 'fail-exchange', 2), createStateTable(dynamoDb, 'fail-state')]);

    // Records 1..30 in order, with an undecodable record between 9 and 10. Batches of 7: the
    // second batch is [8, 9, bad, 10, 11, 12, 13] → steps rows(8, 9), dead letter, rows(10..13).
    const payloads: string[] = [];
    for (let id = 1; id <= 30; id++) {
      if (id === 10) payloads.push('not json');
      payloads.push(JSON.stringify({ id, k: id % 3 }));
    }
    const sequence: string[] = [];
    for (const [i, data] of payloads.entries()) {
      const out = await kinesis.send(new PutRecordCommand({ StreamName: 'fail-src', PartitionKey: String(i + 1), Data: Buffer.from(data, 'utf8') }));
      sequence.push(out.SequenceNumber as string);
    }

    const view = new MaterializedView({ key: ['k'], columns: ['k', 'n'], strict: true });
    const deadLetters: DeadLetter[] = [];
    const errors: unknown[] = [];
    let sinkThrew = false;
    const common = {
      graph,
      code: { functions: p.userFunctions },
      dynamoDb,
      tableName: 'fail-state',
      onDeadLetters: (letters: readonly DeadLetter[]) => void deadLetters.push(...letters),
      onError: (error: unknown) => void errors.push(error),
    };
    const handler0 = new StageHandler({ ...common, stageId: stage0.id, kinesis, outputStreams: new Map([[stage1.id, 'fail-exchange']]) });
    const handler1 = new StageHandler({
      ...common,
      stageId: stage1.id,
      kinesis,
      sink: (rows: readonly ChangeRow[]) => {
        if (!sinkThrew) {
          sinkThrew = true;
          throw new Error('injected sink failure');
        }
        rows.forEach((r) => view.apply(r));
      },
    });
    const responses0: KinesisStreamBatchResponse[] = [];
    const esm = (streamName: string, handle: StageHandler['handle'], record?: KinesisStreamBatchResponse[]) =>
      new LocalEventSourceMapping({
        client: kinesis,
        streamName,
        startingPosition: 'TRIM_HORIZON',
        batchSize: 7,
        pollIntervalMs: 10,
        shardDiscoveryIntervalMs: 50,
        retryDelayMs: 1,
        handler: async (event) => {
          const response = await handle(event);
          record?.push(response);
          return response;
        },
      });
    const esm0 = esm('fail-src', (e) => handler0.handle(e), responses0);
    const esm1 = esm('fail-exchange', (e) => handler1.handle(e));
    try {
      await Promise.all([esm0.start(), esm1.start()]);
      await esm0.drain({ timeoutMs: 20_000 });
      await esm1.drain({ timeoutMs: 20_000 });
    } finally {
      await Promise.all([esm0.stop(), esm1.stop()]);
    }

    // Stage 0 failed once, at record 10 (index 10: after 9 rows and the bad record).
    const failures = responses0.flatMap((r) => r.batchItemFailures);
    expect(failures).toEqual([{ itemIdentifier: sequence[10] }]);
    expect(handler0.stats().failedBatches).toBe(1);
    expect(handler1.stats().failedBatches).toBe(1);
    expect(errors.map((e) => (e as Error).message).sort()).toEqual(['injected map failure', 'injected sink failure']);
    expect(deadLetters.map((l) => [l.kind, l.sequenceNumber])).toEqual([['undecodable', sequence[9]]]);
    // Exactly 10 rows per key: the committed prefix was not replayed, the failed commit not kept.
    expect(view.rows().sort((a, b) => Number(a.k) - Number(b.k))).toEqual([
      { k: 0, n: 10 },
      { k: 1, n: 10 },
      { k: 2, n: 10 },
    ]);
  });
});
