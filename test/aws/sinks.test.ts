/**
 * The AWS sink writers of sink stages on emulators: the DynamoDB upsert sink (last change per
 * key wins, -U skipped, -D deletes, a replayed batch leaves the same table) and the Kinesis
 * changelog sink (JSON lines, order per key kept even when Kinesis throttles some entries), plus
 * the connector dispatch and the FLAMBDA_SINK_TARGETS variable.
 */
import { Buffer } from 'node:buffer';
import type { KinesisClient, PutRecordsCommandOutput } from '@aws-sdk/client-kinesis';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { readStageEnvironment } from '../../shared/aws/env.ts';
import { createAwsSink } from '../../shared/aws/sinks/create-sink.ts';
import { DynamoDbUpsertSink } from '../../shared/aws/sinks/dynamodb-upsert-sink.ts';
import { KinesisChangelogSink } from '../../shared/aws/sinks/kinesis-changelog-sink.ts';
import { PlanError } from '../../shared/core/errors.ts';
import { createChangeDecoder } from '../../shared/core/formats.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import type { JobSink } from '../../shared/plan/job-graph.ts';
import { scanTable } from './dynamodb-emulator.ts';
import { createStream, readStream } from './kinesis-emulator.ts';
import { useEmulators } from './use-emulators.ts';

let kinesis: KinesisClient;
let dynamoDb: DynamoDBClient;
useEmulators((clients) => ({ kinesis, dynamoDb } = clients));

const schema = schemaOf({ k: 'STRING NOT NULL', n: 'BIGINT NOT NULL', at: 'TIMESTAMP(3)', ok: 'BOOLEAN' });
const T = Date.parse('2026-11-29T12:00:00Z');
const row = (kind: ChangeRow['kind'], k: string, n: number, at: number | null = T, ok: boolean | null = true): ChangeRow => ({ kind, row: { k, n, at, ok } });

async function createSinkTable(name: string): Promise<void> {
  await dynamoDb.send(
    new CreateTableCommand({ TableName: name, BillingMode: 'PAY_PER_REQUEST', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }] }),
  );
}

describe('Class: DynamoDbUpsertSink', () => {
  it('upserts by key: the last change of a key wins, -U is skipped, -D deletes; a replay leaves the same table', async () => {
    await createSinkTable('sink-upsert');
    const sink = new DynamoDbUpsertSink({ client: dynamoDb, tableName: 'sink-upsert', schema, upsertKey: ['k'] });
    const batch = [row('+I', 'a', 1), row('+I', 'b', 1, null, null), row('-U', 'a', 1), row('+U', 'a', 2), row('+I', 'c', 7), row('-D', 'c', 7)];
    await sink.write(batch);
    const first = await scanTable(dynamoDb, 'sink-upsert');
    await sink.write(batch);
    const again = await scanTable(dynamoDb, 'sink-upsert');
    const byKey = (items: typeof first) => [...items].sort((x, y) => (x.pk!.S! < y.pk!.S! ? -1 : 1));
    expect(byKey(again)).toEqual(byKey(first));
    expect(byKey(first)).toEqual([
      { pk: { S: '["a"]' }, k: { S: 'a' }, n: { N: '2' }, at: { S: '2026-11-29 12:00:00.000' }, ok: { BOOL: true } },
      { pk: { S: '["b"]' }, k: { S: 'b' }, n: { N: '1' }, at: { NULL: true }, ok: { NULL: true } },
    ]);
    await sink.write([row('-D', 'a', 2)]);
    expect((await scanTable(dynamoDb, 'sink-upsert')).map((i) => i.pk?.S)).toEqual(['["b"]']);
  });

  it('needs an upsert key of the schema', () => {
    expect(() => new DynamoDbUpsertSink({ client: dynamoDb, tableName: 't', schema, upsertKey: [] })).toThrow(/needs an upsert key/);
    expect(() => new DynamoDbUpsertSink({ client: dynamoDb, tableName: 't', schema, upsertKey: ['nope'] })).toThrow(/upsert key column 'nope' is not in the sink's schema/);
  });
});

describe('Class: KinesisChangelogSink', () => {
  it('writes one JSON line per change and keeps each key in order while entries are throttled', async () => {
    await createStream(kinesis, 'sink-changes', 2);
    // Kinesis throttles every other entry of the first two calls (a per-entry ErrorCode).
    let calls = 0;
    let throttled = 0;
    const flaky = Object.create(kinesis) as KinesisClient;
    (flaky as unknown as { send: (c: { input: { Records: unknown[] } }) => Promise<unknown> }).send = async (command) => {
      if (calls++ >= 2) return kinesis.send(command as never);
      const records = command.input.Records;
      const kept = Object.assign(Object.create(Object.getPrototypeOf(command) as object) as object, command, { input: { ...command.input, Records: records.filter((_, i) => i % 2 === 0) } });
      const out = (await kinesis.send(kept as never)) as PutRecordsCommandOutput;
      let j = 0;
      throttled += records.length - Math.ceil(records.length / 2);
      return { ...out, Records: records.map((_, i) => (i % 2 === 0 ? out.Records![j++] : { ErrorCode: 'ProvisionedThroughputExceededException', ErrorMessage: 'slow down' })) };
    };
    const sink = new KinesisChangelogSink({ client: flaky, streamName: 'sink-changes', schema, upsertKey: ['k'], retry: { baseDelayMs: 1 } });
    const changes: ChangeRow[] = [];
    for (let i = 0; i < 30; i++) changes.push(row(i === 0 ? '+I' : '+U', `key${i % 4}`, i));
    await sink.write(changes);
    expect(throttled).toBeGreaterThan(0);
    const lines = [...(await readStream(kinesis, 'sink-changes')).values()].flat().map((r) => JSON.parse(Buffer.from(r.data).toString('utf8')) as { op: string; k: string; n: number });
    expect(lines).toHaveLength(30);
    for (let key = 0; key < 4; key++) {
      const ns = lines.filter((l) => l.k === `key${key}`).map((l) => l.n);
      expect(ns).toEqual(changes.filter((c) => c.row.k === `key${key}`).map((c) => c.row.n));
    }
    expect(lines.find((l) => l.n === 0)).toEqual({ op: '+I', k: 'key0', n: 0, at: '2026-11-29 12:00:00.000', ok: true });
  });
});

describe('Class: KinesisChangelogSink in a format', () => {
  it("writes csv lines, Debezium change events and json rows (Flink's encodings) that their decoders read back", async () => {
    const changes = [row('+I', 'a', 1), row('+I', 'b, c', 2, null, null), row('-U', 'a', 1), row('+U', 'a', 3), row('-D', 'b, c', 2, null, null)];
    await createStream(kinesis, 'sink-debezium', 1);
    await createAwsSink({ name: 'out', schema, connector: { type: 'kinesis', streamName: 'sink-debezium', format: { type: 'debezium-json' } }, upsertKey: ['k'] } as unknown as JobSink, { dynamoDb, kinesis })(changes);
    const events = [...(await readStream(kinesis, 'sink-debezium')).values()].flat().map((r) => Buffer.from(r.data).toString('utf8'));
    // One record per key per PutRecords round (order is kept per key, not across keys).
    expect(events).toEqual([
      '{"before":null,"after":{"k":"a","n":1,"at":"2026-11-29 12:00:00","ok":true},"op":"c"}',
      '{"before":null,"after":{"k":"b, c","n":2,"at":null,"ok":null},"op":"c"}',
      '{"before":{"k":"a","n":1,"at":"2026-11-29 12:00:00","ok":true},"after":null,"op":"d"}',
      '{"before":{"k":"b, c","n":2,"at":null,"ok":null},"after":null,"op":"d"}',
      '{"before":null,"after":{"k":"a","n":3,"at":"2026-11-29 12:00:00","ok":true},"op":"c"}',
    ]);
    const decode = createChangeDecoder(schema, { type: 'debezium-json' });
    expect(events.flatMap((e) => decode(e))).toEqual([row('+I', 'a', 1), row('+I', 'b, c', 2, null, null), row('-D', 'a', 1), row('-D', 'b, c', 2, null, null), row('+I', 'a', 3)]);

    await createStream(kinesis, 'sink-csv', 1);
    const inserts = changes.filter((c) => c.kind === '+I' || c.kind === '+U');
    await createAwsSink({ name: 'out', schema, connector: { type: 'kinesis', streamName: 'sink-csv', format: { type: 'csv' } } } as unknown as JobSink, { dynamoDb, kinesis })(inserts);
    const csv = [...(await readStream(kinesis, 'sink-csv')).values()].flat().map((r) => Buffer.from(r.data).toString('utf8'));
    expect(csv).toEqual(['a,1,"2026-11-29 12:00:00",true', '"b, c",2,,', 'a,3,"2026-11-29 12:00:00",true']);
    const read = createChangeDecoder(schema, { type: 'csv' });
    expect(csv.flatMap((line) => read(line))).toEqual([row('+I', 'a', 1), row('+I', 'b, c', 2, null, null), row('+I', 'a', 3)]);

    // A SQL json table: Flink's rows, the sink's columns only, 'SQL' timestamps.
    await createStream(kinesis, 'sink-json', 1);
    await createAwsSink({ name: 'out', schema, connector: { type: 'kinesis', streamName: 'sink-json', format: { type: 'json' } } } as unknown as JobSink, { dynamoDb, kinesis })(inserts);
    const json = [...(await readStream(kinesis, 'sink-json')).values()].flat().map((r) => Buffer.from(r.data).toString('utf8'));
    expect(json).toEqual(['{"k":"a","n":1,"at":"2026-11-29 12:00:00","ok":true}', '{"k":"b, c","n":2,"at":null,"ok":null}', '{"k":"a","n":3,"at":"2026-11-29 12:00:00","ok":true}']);
    expect(json.flatMap((line) => createChangeDecoder(schema)(line))).toEqual([row('+I', 'a', 1), row('+I', 'b, c', 2, null, null), row('+I', 'a', 3)]);
  });
});

describe('Function: createAwsSink', () => {
  const sinkOf = (connector: JobSink['connector'], upsertKey?: string[]): JobSink => ({ name: 'out', schema, connector, upsertKey, changelogMode: 'upsert' } as unknown as JobSink);

  it('prints rows in Flink print format to the log, and drops them for blackhole', async () => {
    const lines: string[] = [];
    await createAwsSink(sinkOf({ type: 'print' }), { dynamoDb, kinesis, log: (l) => lines.push(l) })([row('+I', 'a', 1), row('-D', 'b', 2, null)]);
    expect(lines).toEqual(['out> +I[a, 1, 2026-11-29 12:00:00.000, true]', 'out> -D[b, 2, NULL, true]']);
    await expect(createAwsSink(sinkOf({ type: 'blackhole' }), { dynamoDb, kinesis })([row('+I', 'a', 1)])).resolves.toBeUndefined();
  });

  it('takes the table name from the targets, and refuses local-only connectors or a missing name by the sink name', async () => {
    await createSinkTable('sink-target');
    await createAwsSink(sinkOf({ type: 'dynamodb' }, ['k']), { dynamoDb, kinesis, targets: new Map([['out', 'sink-target']]) })([row('+I', 'z', 9)]);
    expect((await scanTable(dynamoDb, 'sink-target')).map((i) => i.k?.S)).toEqual(['z']);
    expect(() => createAwsSink(sinkOf({ type: 'collect' }), { dynamoDb, kinesis })).toThrow(PlanError);
    expect(() => createAwsSink(sinkOf({ type: 'jsonl', path: 'x' }), { dynamoDb, kinesis })).toThrow(/sink 'out' uses the 'jsonl' connector, which only the embedded runtime has/);
    expect(() => createAwsSink(sinkOf({ type: 'kinesis' }), { dynamoDb, kinesis })).toThrow(/sink 'out' writes a Kinesis stream: give its name/);
  });

  it('stops with what to fix when the table or stream does not exist or may not be written (fatal, not retried)', async () => {
    const missingTable = createAwsSink(sinkOf({ type: 'dynamodb', tableName: 'no-such-table' }, ['k']), { dynamoDb, kinesis });
    const tableError = await missingTable([row('+I', 'a', 1)]).then(() => undefined, (e: unknown) => e);
    expect(tableError).toBeInstanceOf(PlanError);
    expect((tableError as Error).message).toBe(
      "sink 'out': the DynamoDB table 'no-such-table' does not exist (ResourceNotFoundException); create it (the CDK stack does) or fix the sink's name (connector option or FLAMBDA_SINK_TARGETS)",
    );
    const missingStream = createAwsSink(sinkOf({ type: 'kinesis', streamName: 'no-such-stream' }, ['k']), { dynamoDb, kinesis });
    await expect(missingStream([row('+I', 'a', 1)])).rejects.toThrow(/^sink 'out': the Kinesis stream 'no-such-stream' does not exist \(ResourceNotFoundException\)/);
    const denied = Object.assign(new Error('User is not authorized to perform: kinesis:PutRecords'), { name: 'AccessDeniedException' });
    const deniedKinesis = { send: () => Promise.reject(denied) } as unknown as KinesisClient;
    const write = createAwsSink(sinkOf({ type: 'kinesis', streamName: 'out-stream' }, ['k']), { dynamoDb, kinesis: deniedKinesis });
    await expect(write([row('+I', 'a', 1)])).rejects.toThrow(
      new PlanError("sink 'out': access to the Kinesis stream 'out-stream' is denied (AccessDeniedException); allow kinesis:PutRecords on it to the function's role"),
    );
  });

  it('reads sink targets from FLAMBDA_SINK_TARGETS and names a bad value', () => {
    const base = { FLAMBDA_STAGE_ID: 'stage-1', FLAMBDA_STATE_TABLE: 'state' };
    expect(readStageEnvironment({ ...base, FLAMBDA_SINK_TARGETS: '{"out":"table-1"}' }).sinkTargets).toEqual(new Map([['out', 'table-1']]));
    expect(() => readStageEnvironment({ ...base, FLAMBDA_SINK_TARGETS: '{"out":3}' })).toThrow(/FLAMBDA_SINK_TARGETS: the name for 'out' must be a non-empty string \(given 3\)/);
  });
});
