/**
 * A value that does not fit its sink, on the AWS runtime (the stage handler on kinesalite and
 * dynalite, fed by a LocalEventSourceMapping, writing through the real DynamoDB and Kinesis sink
 * writers): a DynamoDB item over 400 KB, NaN into a DynamoDB number, a Kinesis record over
 * 1 MiB and a NULL into a NOT NULL column, each in the middle of a batch, are data errors of
 * their one record — dead-lettered with the reason, their Kinesis position and the operator
 * (ConstraintEnforcer) on the first attempt — and every other record reaches the sink. Without
 * the enforcer dynalite would reject the whole BatchWriteItem and the shard would stay blocked.
 * Under 'fail' the batch fails on every attempt with the message. Numeric overflow (a CAST beyond
 * INT, a DECIMAL beyond its precision) is a data error of its own record in the Calc before.
 */
import { Buffer } from 'node:buffer';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { KinesisStreamBatchResponse } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { Pipeline, call, cast, col } from '../../shared/api/index.ts';
import { StageHandler } from '../../shared/aws/handler/stage-handler.ts';
import { createAwsSink } from '../../shared/aws/sinks/create-sink.ts';
import type { DeadLetter } from '../../shared/aws/stage-input/types.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import type { ErrorPolicy } from '../../shared/core/errors.ts';
import type { SinkConnector } from '../../shared/plan/logical.ts';
import { scanTable } from './dynamodb-emulator.ts';
import { createStream, readStream } from './kinesis-emulator.ts';
import { drainThroughMapping } from './drain-mapping.ts';
import { useEmulators } from './use-emulators.ts';

let kinesis: KinesisClient;
let dynamoDb: DynamoDBClient;
useEmulators((clients) => ({ kinesis, dynamoDb } = clients));

const N = 24;

interface Shard {
  readonly letters: DeadLetter[];
  readonly sequence: string[];
  readonly responses: KinesisStreamBatchResponse[];
  readonly errors: unknown[];
  readonly handler: StageHandler;
}

/**
 * Runs one source stage over ids 1..N (`payload(id)` gives each record's fields) whose rows go
 * to `connector` through the real AWS sink writer.
 */
async function runShard(name: string, pipeline: Pipeline, payload: (id: number) => Record<string, unknown>, policy: ErrorPolicy = 'dead-letter'): Promise<Shard> {
  const graph = { ...pipeline.jobGraph({ parallelism: 1 }), ...(policy === 'fail' ? { errorPolicy: policy } : {}) };
  const stage = graph.stages[0]!;
  await Promise.all([createStream(kinesis, `${name}-src`, 1), createStateTable(dynamoDb, `${name}-state`)]);
  const put = await kinesis.send(
    new PutRecordsCommand({
      StreamName: `${name}-src`,
      Records: Array.from({ length: N }, (_, i) => ({ PartitionKey: String(i + 1), Data: Buffer.from(JSON.stringify(payload(i + 1)), 'utf8') })),
    }),
  );
  expect(put.FailedRecordCount ?? 0).toBe(0);
  const sequence = (put.Records ?? []).map((r) => r.SequenceNumber as string);
  const write = createAwsSink(graph.sinks[0]!, { dynamoDb, kinesis });
  const letters: DeadLetter[] = [];
  const errors: unknown[] = [];
  const handler = new StageHandler({
    graph,
    stageId: stage.id,
    code: { functions: pipeline.userFunctions },
    dynamoDb,
    tableName: `${name}-state`,
    sink: (rows) => write(rows),
    onDeadLetters: (batch) => void letters.push(...batch),
    onError: (error) => void errors.push(error),
  });
  const responses = await drainThroughMapping(kinesis, `${name}-src`, handler, { batchSize: 8, maximumRetryAttempts: 2 });
  return { letters, sequence, responses, errors, handler };
}

async function createSinkTable(name: string): Promise<void> {
  await dynamoDb.send(
    new CreateTableCommand({ TableName: name, BillingMode: 'PAY_PER_REQUEST', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }] }),
  );
}

const BIG = 'x'.repeat(410 * 1024);

/** The id of the record a dead letter carries (its data may be truncated, so read from its start). */
const idOf = (letter: DeadLetter): number => Number(/^\{"id":(\d+)/.exec(Buffer.from(letter.data, 'base64').toString('utf8'))?.[1]);

/** id 7: an item over 400 KB; id 13: NaN into a DOUBLE attribute; the rest fit. */
function dynamoPipeline(name: string, tableName: string): Pipeline {
  const p = new Pipeline(name);
  p.source('ev', { schema: { id: 'INT NOT NULL', v: 'STRING', d: 'DOUBLE' } })
    .select({ id: 'id', v: 'v', d: 'd' })
    .sinkTo('out', { connector: { type: 'dynamodb', tableName } satisfies SinkConnector, upsertKey: ['id'] });
  return p;
}
const dynamoPayload = (id: number): Record<string, unknown> => ({ id, v: id === 7 ? BIG : `v${id}`, d: id === 13 ? 'NaN' : id / 2 });

describe('Sink fit on AWS: DynamoDB', () => {
  it('dead-letters an item over 400 KB and a NaN number with their position and operator; the other 22 items are written', async () => {
    await createSinkTable('fit-ddb-out');
    const { letters, sequence, responses, handler } = await runShard('fit-ddb', dynamoPipeline('fit-ddb', 'fit-ddb-out'), dynamoPayload);
    expect(responses.flatMap((r) => r.batchItemFailures)).toEqual([]);
    const items = await scanTable(dynamoDb, 'fit-ddb-out');
    expect(items.map((i) => Number(i.id?.N)).sort((a, b) => a - b)).toEqual(Array.from({ length: N }, (_, i) => i + 1).filter((id) => id !== 7 && id !== 13));
    expect(items.find((i) => i.id?.N === '8')).toMatchObject({ v: { S: 'v8' }, d: { N: '4' } });
    expect(handler.stats().deadLetters).toBe(2);
    const sorted = [...letters].sort((a, b) => a.sequenceNumber.localeCompare(b.sequenceNumber));
    // The failing rows are derived (a Calc ran first): the executor traces each back to the
    // Kinesis record it came from, so the letter is that record (ids 7 and 13), at its sequence number.
    expect(sorted.map((l) => [l.kind, l.sequenceNumber, l.operator, idOf(l)])).toEqual([
      ['data-error', sequence[6], 'ConstraintEnforcer_out', 7],
      ['data-error', sequence[12], 'ConstraintEnforcer_out', 13],
    ]);
    expect(sorted[0]!.reason).toBe(`shardId-000000000000@${sequence[6]}: the item of sink 'out' is ${/is (\d+) bytes/.exec(sorted[0]!.reason)?.[1]} bytes; DynamoDB takes at most 409600 (400 KB), in operator ConstraintEnforcer_out`);
    expect(sorted[0]!.reason).toMatch(/ is 4198\d\d bytes; /);
    expect(sorted[1]!.reason).toContain("column 'd' of sink 'out': NaN is not a number DynamoDB can hold");
  }, 90_000);

  it("fails the batch on every attempt under 'fail', with the message; nothing of it is written", async () => {
    await createSinkTable('fit-ddb-fail-out');
    const { errors, responses, sequence } = await runShard('fit-ddb-fail', dynamoPipeline('fit-ddb-fail', 'fit-ddb-fail-out'), dynamoPayload, 'fail');
    expect(responses.flatMap((r) => r.batchItemFailures).length).toBeGreaterThanOrEqual(3);
    // The message names the record of id 7 the oversized item was derived from.
    expect((errors[0] as Error).message).toContain(
      `DynamoDB takes at most 409600 (400 KB) (fit-ddb-fail-src/shardId-000000000000@${sequence[6]}, stage-0 shardId-000000000000, operator ConstraintEnforcer_out); pipeline.error-policy is 'fail'`,
    );
    const ids = (await scanTable(dynamoDb, 'fit-ddb-fail-out')).map((i) => Number(i.id?.N));
    expect(ids).not.toContain(7);
    expect(ids.every((id) => id < 7 || id > 8)).toBe(true);
  }, 90_000);
});

describe('Sink fit on AWS: Kinesis', () => {
  it('dead-letters a record over 1 MiB and a NULL into a NOT NULL column; the other 22 records reach the stream in order', async () => {
    await createStream(kinesis, 'fit-kin-out', 1);
    const half = 'y'.repeat(600 * 1024);
    const p = new Pipeline('fit-kin');
    // id 5: v || v is 1.2 MB; id 19: n is NULL (CAST of ''), and the sink column is NOT NULL.
    const rows = p
      .source('ev', { schema: { id: 'INT NOT NULL', v: 'STRING' } })
      .select({ id: 'id', w: call('||', col('v'), col('v')), n: cast(call('CHAR_LENGTH', col('v')), 'INT') })
      .select({ id: 'id', w: 'w', n: call('NULLIF', col('n'), 0) });
    rows.sinkTo('out', { connector: { type: 'kinesis', streamName: 'fit-kin-out' }, upsertKey: ['id'] });
    // The sink's schema: n NOT NULL, as a declared sink table gives it.
    const graph = p.jobGraph({ parallelism: 1 });
    const sink = graph.sinks[0]!;
    const notNullSink = { ...sink, schema: { fields: sink.schema.fields.map((f) => (f.name === 'n' ? { ...f, type: { ...f.type, nullable: false } } : f)) } };
    const declared = { jobGraph: () => ({ ...graph, sinks: [notNullSink], stages: graph.stages.map((s) => ({ ...s, operators: s.operators.map((o) => (o.type === 'ConstraintEnforcer' ? { ...o, spec: { ...o.spec, schema: notNullSink.schema, notNull: ['n'] } } : o)) })) }), userFunctions: p.userFunctions } as unknown as Pipeline;
    const { letters, sequence, responses } = await runShard('fit-kin', declared, (id) => ({ id, v: id === 5 ? half : id === 19 ? '' : `v${id}` }));
    expect(responses.flatMap((r) => r.batchItemFailures)).toEqual([]);
    const written = [...(await readStream(kinesis, 'fit-kin-out')).values()].flat().map((r) => JSON.parse(Buffer.from(r.data).toString('utf8')) as { op: string; id: number; w: string; n: number });
    expect(written.map((r) => r.id)).toEqual(Array.from({ length: N }, (_, i) => i + 1).filter((id) => id !== 5 && id !== 19));
    expect(written[0]).toEqual({ op: '+I', id: 1, w: 'v1v1', n: 2 });
    const sorted = [...letters].sort((a, b) => a.sequenceNumber.localeCompare(b.sequenceNumber));
    // Through two Calcs, each letter is the exact record (ids 5 and 19) its failing row came from.
    expect(sorted.map((l) => [l.sequenceNumber, l.operator, idOf(l)])).toEqual([
      [sequence[4], 'ConstraintEnforcer_out', 5],
      [sequence[18], 'ConstraintEnforcer_out', 19],
    ]);
    expect(sorted[1]!.reason).toBe(`shardId-000000000000@${sequence[18]}: column 'n' of sink 'out' is NOT NULL, but the row has a NULL there, in operator ConstraintEnforcer_out`);
    expect(sorted[0]!.reason).toMatch(/the record of sink 'out' is 12288\d\d bytes with its partition key; Kinesis takes at most 1048576 \(1 MiB\)/);
    expect(sorted[1]!.reason).toContain("column 'n' of sink 'out' is NOT NULL, but the row has a NULL there");
  }, 90_000);
});

describe('Numeric overflow on AWS', () => {
  it('dead-letters a CAST beyond INT and a DECIMAL overflow at their own Kinesis record; the other 22 items are written', async () => {
    await createSinkTable('fit-num-out');
    const p = new Pipeline('fit-num');
    p.source('ev', { schema: { id: 'INT NOT NULL', v: 'STRING' } })
      .select({ id: 'id', n: cast(col('v'), 'INT'), d: cast(col('v'), 'DECIMAL(4, 1)') })
      .sinkTo('out', { connector: { type: 'dynamodb', tableName: 'fit-num-out' }, upsertKey: ['id'] });
    // id 4: 3,000,000,000 is beyond INT; id 21: 12345 is beyond DECIMAL(4, 1) (but an INT).
    const { letters, sequence, responses } = await runShard('fit-num', p, (id) => ({ id, v: id === 4 ? '3000000000' : id === 21 ? '12345' : String(id) }));
    expect(responses.flatMap((r) => r.batchItemFailures)).toEqual([]);
    const items = await scanTable(dynamoDb, 'fit-num-out');
    expect(items.map((i) => Number(i.id?.N)).sort((a, b) => a - b)).toEqual(Array.from({ length: N }, (_, i) => i + 1).filter((id) => id !== 4 && id !== 21));
    // A DECIMAL is written as its exact text, as the JSON codec renders it.
    expect(items.find((i) => i.id?.N === '5')).toMatchObject({ n: { N: '5' }, d: { S: '5.0' } });
    const sorted = [...letters].sort((a, b) => a.sequenceNumber.localeCompare(b.sequenceNumber));
    // The Calc is the chain's first operator: each letter is the failing record itself.
    expect(sorted.map((l) => [l.kind, l.sequenceNumber, Buffer.from(l.data, 'base64').toString('utf8')])).toEqual([
      ['data-error', sequence[3], '{"id":4,"v":"3000000000"}'],
      ['data-error', sequence[20], '{"id":21,"v":"12345"}'],
    ]);
    expect(sorted[0]!.reason).toContain("cannot cast '3000000000' to INT");
    expect(sorted[1]!.reason).toContain("cannot cast '12345' to DECIMAL(4, 1)");
    expect(sorted.every((l) => /^Calc_\d+$/.test(l.operator ?? ''))).toBe(true);
  }, 90_000);
});
