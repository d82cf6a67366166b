/**
 * The generator producer on kinesalite and dynalite: every row reaches the source stream once,
 * keyed by its position, then one +∞ heartbeat per shard; a crash after a range was (partly) put
 * and before its commit leaves the next invocation to put exactly the missing rows; an
 * invocation finding another one at work steps aside; a paced (datagen) source puts the rows
 * due at its rows-per-second, resuming where it stopped with the rows a run from the start gives.
 */
import { Buffer } from 'node:buffer';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { Pipeline } from '../../shared/api/index.ts';
import type { GeneratorFunction } from '../../shared/api/pipeline.ts';
import { GeneratorProducer } from '../../shared/aws/generator/generator-producer.ts';
import type { GeneratorProducerOptions } from '../../shared/aws/generator/generator-producer.ts';
import { BundleCodec } from '../../shared/aws/kinesis/bundle-codec.ts';
import { createStateTable } from '../../shared/aws/state/create-state-table.ts';
import { encodeRowToJson } from '../../shared/core/codec.ts';
import type { Row } from '../../shared/core/types.ts';
import type { JobGraph, JobSource } from '../../shared/plan/job-graph.ts';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { createStream, readStream } from './kinesis-emulator.ts';
import type { ReadRecord } from './kinesis-emulator.ts';
import { useEmulators } from './use-emulators.ts';

let kinesis: KinesisClient;
let dynamoDb: DynamoDBClient;
useEmulators((clients) => ({ kinesis, dynamoDb } = clients));

const SCHEMA = { id: 'INT NOT NULL', name: 'STRING', ts: 'TIMESTAMP(3) NOT NULL' } as const;

/** Row i of the test generator. */
const rowAt = (i: number): Row => ({ id: i, name: `n${i}`, ts: Date.UTC(2024, 0, 1) + i * 1000 });

/** A pipeline with one generator source of `rows` rows (not seekable: resuming skips rows). */
function generatorSource(rows: number): { graph: JobGraph; source: JobSource; generator: GeneratorFunction } {
  const p = new Pipeline('gen');
  const generator: GeneratorFunction = function* events() {
    for (let i = 0; i < rows; i++) yield rowAt(i);
  };
  p.source('events', { schema: SCHEMA, generator }).sinkTo('out');
  const graph = p.jobGraph({ parallelism: 2 });
  return { graph, source: graph.sources[0]!, generator: p.generators.get('gen_1')! };
}

let run = 0;
/** A fresh stream and state table; the producer's options for them. */
async function setup(source: JobSource, generator: GeneratorFunction, shards = 2): Promise<GeneratorProducerOptions> {
  run++;
  const streamName = `gen-${run}`;
  const tableName = `gen-state-${run}`;
  await createStream(kinesis, streamName, shards);
  await createStateTable(dynamoDb, tableName);
  return { kinesis, dynamoDb, tableName, streamName, source, generator, rangeRows: 4 };
}

/** Every record of the stream: rows by partition key (how often each) and +∞ heartbeats per shard. */
async function contents(streamName: string): Promise<{ rows: Map<string, string[]>; ends: Map<string, number>; lastIsEnd: boolean }> {
  const codec = new BundleCodec({ fields: [] });
  const rows = new Map<string, string[]>();
  const ends = new Map<string, number>();
  let lastIsEnd = true;
  for (const [shardId, records] of await readStream(kinesis, streamName)) {
    const text = (r: ReadRecord): string => Buffer.from(r.data).toString('utf8');
    for (const r of records) {
      if (r.partitionKey === 'heartbeat') {
        const hb = codec.decode(text(r), 'test') as { watermark: number; targetShard: string };
        expect(hb.targetShard).toBe(shardId);
        if (hb.watermark === Infinity) ends.set(shardId, (ends.get(shardId) ?? 0) + 1);
      } else {
        rows.set(r.partitionKey, [...(rows.get(r.partitionKey) ?? []), text(r)]);
      }
    }
    if (records.length > 0 && records[records.length - 1]?.partitionKey !== 'heartbeat') lastIsEnd = false;
  }
  return { rows, ends, lastIsEnd };
}

const expectedRows = (from: number, to: number, source: JobSource): Map<string, string[]> =>
  new Map(Array.from({ length: to - from }, (_, k) => [`events#${from + k + 1}`, [encodeRowToJson(rowAt(from + k), source.schema)]]));

describe('Class: GeneratorProducer', () => {
  it('puts every row once keyed by its position, then a +∞ heartbeat after the rows of every shard', async () => {
    const { source, generator } = generatorSource(10);
    const options = await setup(source, generator);
    const report = await new GeneratorProducer(options).produce({ deadline: Date.now() + 60_000 });
    expect(report).toEqual({ status: 'produced', rows: 10, recovered: 0, alreadyPut: 0, next: 10, ended: true, endMarkers: 2 });
    const stream = await contents(options.streamName);
    expect(new Map([...stream.rows].sort())).toEqual(new Map([...expectedRows(0, 10, source)].sort()));
    expect(stream.ends).toEqual(new Map([...stream.ends.keys()].map((k) => [k, 1])));
    expect(stream.ends.size).toBe(2);
    expect(stream.lastIsEnd).toBe(true);
    // It has ended: a later invocation puts nothing.
    expect(await new GeneratorProducer(options).produce({ deadline: Date.now() + 60_000 })).toEqual({ status: 'done', rows: 0, recovered: 0, alreadyPut: 0, next: 10, ended: true, endMarkers: 0 });
    expect((await contents(options.streamName)).rows.size).toBe(10);
  });

  it('after a crash between the put and the commit, puts only the rows of the range the stream lacks', async () => {
    const { source, generator } = generatorSource(11);
    const options = await setup(source, generator);
    // The second range (rows 5..8) reaches the stream only in part: PutRecords stores the first
    // two entries, then the call fails as a timeout would, and the invocation dies before its commit.
    let calls = 0;
    const flaky = {
      send: async (command: unknown) => {
        if (command instanceof PutRecordsCommand && command.input.Records?.[0]?.PartitionKey !== 'heartbeat' && ++calls === 2) {
          await kinesis.send(new PutRecordsCommand({ ...command.input, Records: command.input.Records?.slice(0, 2) }));
          throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
        }
        return kinesis.send(command as PutRecordsCommand);
      },
    } as unknown as KinesisClient;
    await expect(new GeneratorProducer({ ...options, kinesis: flaky }).produce({ deadline: Date.now() + 60_000 })).rejects.toThrow(/socket hang up/);
    const partial = await contents(options.streamName);
    expect([...partial.rows.keys()].sort()).toEqual(['events#1', 'events#2', 'events#3', 'events#4', 'events#5', 'events#6']);

    const report = await new GeneratorProducer(options).produce({ deadline: Date.now() + 60_000 });
    expect(report).toEqual({ status: 'produced', rows: 5, recovered: 2, alreadyPut: 2, next: 11, ended: true, endMarkers: 2 });
    const stream = await contents(options.streamName);
    expect(new Map([...stream.rows].sort())).toEqual(new Map([...expectedRows(0, 11, source)].sort()));
  });

  it('after a crash once the whole range was put, puts none of it again', async () => {
    const { source, generator } = generatorSource(6);
    const options = await setup(source, generator);
    let crashed = false;
    const crashAfterFirstRange = (): void => {
      if (!crashed) {
        crashed = true;
        throw new Error('killed');
      }
    };
    await expect(new GeneratorProducer({ ...options, afterPut: crashAfterFirstRange }).produce({ deadline: Date.now() + 60_000 })).rejects.toThrow('killed');
    expect((await contents(options.streamName)).rows.size).toBe(4);
    const report = await new GeneratorProducer(options).produce({ deadline: Date.now() + 60_000 });
    expect(report).toEqual({ status: 'produced', rows: 2, recovered: 0, alreadyPut: 4, next: 6, ended: true, endMarkers: 2 });
    expect(new Map([...(await contents(options.streamName)).rows].sort())).toEqual(new Map([...expectedRows(0, 6, source)].sort()));
  });

  it('steps aside while another invocation holds the producer', async () => {
    const { source, generator } = generatorSource(6);
    const options = await setup(source, generator);
    let resume: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (resume = resolve));
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const first = new GeneratorProducer({
      ...options,
      afterPut: async () => {
        entered();
        await held;
      },
    }).produce({ deadline: Date.now() + 60_000 });
    await inside;
    expect(await new GeneratorProducer(options).produce({ deadline: Date.now() + 60_000 })).toEqual({ status: 'busy', rows: 0, recovered: 0, alreadyPut: 0, next: 0, ended: false, endMarkers: 0 });
    resume();
    expect((await first).rows).toBe(6);
    expect((await contents(options.streamName)).rows.size).toBe(6);
  });

  it('puts a paced datagen table at its rows-per-second, resuming at its position with the rows of a run from the start', async () => {
    const program = compileSql(`CREATE TABLE clicks (id BIGINT, user_name STRING, score DOUBLE, ts TIMESTAMP(3)) WITH ('connector' = 'datagen', 'rows-per-second' = '10');
      CREATE TABLE out (id BIGINT, user_name STRING, score DOUBLE, ts TIMESTAMP(3)) WITH ('connector' = 'blackhole');
      INSERT INTO out SELECT * FROM clicks;`);
    const graph = program.pipeline.jobGraph({ parallelism: 1 });
    const source = graph.sources[0]!;
    expect(source.connector).toMatchObject({ type: 'generator', display: 'datagen', rowsPerSecond: 10, unbounded: true });
    const generator = program.pipeline.generators.get((source.connector as { ref: string }).ref)!;
    let clock = Date.UTC(2026, 4, 1, 12);
    const options = { ...(await setup(source, generator, 1)), rangeRows: 1000, now: () => clock };
    // The first invocation puts the first second's rows; five seconds later, the next 50.
    expect(await new GeneratorProducer(options).produce({ deadline: clock + 60_000 })).toMatchObject({ status: 'produced', rows: 10, next: 10, ended: false, endMarkers: 0 });
    clock += 5_000;
    expect(await new GeneratorProducer(options).produce({ deadline: clock + 60_000 })).toMatchObject({ status: 'produced', rows: 50, next: 60, ended: false });
    expect(await new GeneratorProducer(options).produce({ deadline: clock + 60_000 })).toMatchObject({ status: 'produced', rows: 0, next: 60 });
    const stream = await contents(options.streamName);
    const fromStart: Row[] = [];
    for (const row of generator({ shard: 0, parallelism: 1 })) {
      if (fromStart.push(row) === 60) break;
    }
    expect(new Map([...stream.rows].sort())).toEqual(new Map(fromStart.map((row, i): [string, string[]] => [`datagen:clicks#${i + 1}`, [encodeRowToJson(row, source.schema)]]).sort()));
    expect(stream.ends.size).toBe(0);
    // Unpaced, an unbounded table would never end.
    await expect(new GeneratorProducer(options).produce({ deadline: clock + 60_000, paced: false })).rejects.toThrow("source 'clicks': an unbounded generator is produced at its rowsPerSecond only");
  });
});
