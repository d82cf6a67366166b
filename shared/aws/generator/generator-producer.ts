/**
 * The producer of a generator source (VALUES, datagen, a TypeScript `generator`) on the AWS
 * runtime: it puts the generator's rows into the source's Kinesis stream, one JSON record per
 * row as an input file's line is put, with the row's position (`values_1#3`,
 * `datagen:orders#17`) as partition key, so the stage reads them as any source and a dead letter
 * names the row. `flambda local` runs it to the end before the job starts; a deployed pipeline
 * runs it from a producer function on a schedule (functions/generator-producer.ts).
 *
 * Effectively once: every row reaches the stream once, across crashes, timeouts and overlapping
 * invocations. The producer keeps its position in the pipeline's state table with the same
 * conditional writes as a stage's checkpoint (shared/aws/checkpoint/checkpoint-store.ts, stage
 * `generator`, shard = the source's name; docs/effectively-once.md):
 *
 * ```
 *  fence        epoch += 1, lease = deadline                   (an invocation holding it: "busy")
 *  pending a..b? read every shard after its last known record; the positions of a..b found there
 *               were put by the crashed invocation: put the others, commit next = b + 1
 *  range        generate rows next..; announce pending = next..b; PutRecords; commit next = b + 1
 *               (repeated while rows are due and the lease lasts)
 *  end          a bounded generator exhausted: a +∞ heartbeat to every shard (end of input, as
 *               after an input file), commit done
 *  release      lease = 0
 * ```
 *
 * Rows come due at the source's `rowsPerSecond` counted from the first invocation (one second
 * ahead); without a pace, or when not paced (local runs), they are all due at once. A generator
 * must give the same rows every time (the crashed range is generated again); a seekable one
 * (datagen) starts at the position, any other is read from its start and the rows before it
 * skipped.
 */
import { Buffer } from 'node:buffer';
import type { KinesisClient, PutRecordsRequestEntry } from '@aws-sdk/client-kinesis';
import type { GeneratorFunction } from '../../api/pipeline.ts';
import { encodeRowToJson } from '../../core/codec.ts';
import { FlambdaError, PlanError } from '../../core/errors.ts';
import type { Row } from '../../core/types.ts';
import type { JobSource } from '../../plan/job-graph.ts';
import { generatedRows, generatorIndex, generatorLabel, generatorPosition } from '../../runtime/generator-rows.ts';
import { CheckpointStore, FencedError, LeaseHeldError } from '../checkpoint/checkpoint-store.ts';
import { writeHeartbeats } from '../heartbeat/heartbeat-writer.ts';
import { listShardsOf } from '../kinesis/kinesis-writer.ts';
import { MAX_RECORD_BYTES, putRecords } from '../kinesis/put-records.ts';
import type { PutRecordResult } from '../kinesis/put-records.ts';
import { compareSequenceNumbers } from '../stage-input/kinesis-records.ts';
import { readToTip } from '../stage-input/shard-reread.ts';
import type { DynamoDbSender } from '../state/table-io.ts';

/** The checkpoint "stage" of every producer; its "shard" is the source's name. */
export const PRODUCER_STAGE = 'generator';

/** Options of {@link GeneratorProducer}. */
export interface GeneratorProducerOptions {
  readonly kinesis: Pick<KinesisClient, 'send'>;
  readonly dynamoDb: DynamoDbSender;
  /** The pipeline's state table (the producer's position lives there). */
  readonly tableName: string;
  /** The source's stream. */
  readonly streamName: string;
  /** The generator source, as the job graph has it. */
  readonly source: JobSource;
  readonly generator: GeneratorFunction;
  /** Rows per announced range (per commit). @default 5000 */
  readonly rangeRows?: number;
  /** Lease slice, ms: how long a dead invocation blocks the next one (plus the grace). @default 30000 */
  readonly leaseMs?: number;
  /** Clock, epoch ms. @default Date.now */
  readonly now?: () => number;
  /** Called after a range's rows were put and before its commit (tests crash here). */
  readonly afterPut?: (from: number, to: number) => void | Promise<void>;
}

/** Options of one {@link GeneratorProducer.produce} call. */
export interface ProduceOptions {
  /** The invocation's end, epoch ms (Lambda: now + remaining time): no write after it. */
  readonly deadline: number;
  /** Put rows as they come due at the source's `rowsPerSecond`. @default true */
  readonly paced?: boolean;
}

/** What one {@link GeneratorProducer.produce} call did. */
export interface ProduceReport {
  /** `busy`: another invocation held the producer; `done`: it had ended before this call. */
  readonly status: 'produced' | 'busy' | 'done';
  /** Rows this call put, the recovered ones included. */
  readonly rows: number;
  /** Rows of a crashed invocation's range this call put (those it had not put). */
  readonly recovered: number;
  /** Rows of the crashed range found in the stream already (not put again). */
  readonly alreadyPut: number;
  /** Rows committed so far, over every call (0 when `busy`: not read). */
  readonly next: number;
  /** Whether the generator has ended and its end-of-input heartbeats are written. */
  readonly ended: boolean;
  /** End-of-input heartbeats this call wrote (one per open shard). */
  readonly endMarkers: number;
}

/** What the producer commits: its position and where it last wrote in every shard. */
interface ProducerData {
  /** Rows put so far (the next row's index). */
  readonly next: number;
  /** When rows started coming due, epoch ms. */
  readonly started: number;
  /** The last sequence number this producer put into each shard. */
  readonly seq: Readonly<Record<string, string>>;
  /** The generator ended and the end-of-input heartbeats went out. */
  readonly ended?: true;
}

/** See the module documentation. One instance per generator source and process. */
export class GeneratorProducer {
  private readonly options: GeneratorProducerOptions;
  private readonly label: string;
  private readonly now: () => number;

  /** @throws PlanError for a source that is not a generator, or whose positions cannot be partition keys. */
  constructor(options: GeneratorProducerOptions) {
    if (options.source.connector.type !== 'generator') throw new PlanError(`source '${options.source.name}' is not a generator source`);
    this.options = options;
    this.label = generatorLabel(options.source);
    // A partition key holds at most 256 characters; room for '#' and the row number.
    if (this.label.length > 230) throw new PlanError(`generator source '${options.source.name}': its name is too long to name its rows in Kinesis partition keys (at most 230 characters)`);
    this.now = options.now ?? Date.now;
  }

  /**
   * Puts the rows that are due (all of them when not paced) until they are put or the deadline
   * nears; ends a bounded generator. Safe to call concurrently and after any crash.
   *
   * @throws PlanError when an unbounded generator is not paced; TransientError / FlambdaError
   *   when Kinesis or DynamoDB keep failing (the next call goes on from the last commit).
   */
  async produce(options: ProduceOptions): Promise<ProduceReport> {
    const connector = this.options.source.connector as Extract<JobSource['connector'], { type: 'generator' }>;
    const paced = (options.paced ?? true) && connector.rowsPerSecond !== undefined;
    if (connector.unbounded === true && !paced) throw new PlanError(`source '${this.options.source.name}': an unbounded generator is produced at its rowsPerSecond only`);
    const store = new CheckpointStore({
      client: this.options.dynamoDb,
      tableName: this.options.tableName,
      stage: PRODUCER_STAGE,
      shardId: this.options.source.name.replace(/#/g, '_'),
      now: this.now,
      maxWaitMs: 0,
    });
    const start = this.now();
    let checkpoint;
    try {
      checkpoint = await store.fence(Math.min(options.deadline, start + (this.options.leaseMs ?? 30_000)), options.deadline);
    } catch (error) {
      if (error instanceof LeaseHeldError) return { status: 'busy', rows: 0, recovered: 0, alreadyPut: 0, next: 0, ended: false, endMarkers: 0 };
      throw error;
    }
    let data = (checkpoint.data as ProducerData | undefined) ?? { next: 0, started: start, seq: {} };
    let version = checkpoint.version;
    const report = { rows: 0, recovered: 0, alreadyPut: 0, endMarkers: 0 };
    try {
      if (data.ended === true) return { status: 'done', ...report, next: data.next, ended: true };
      const commit = async (next: ProducerData): Promise<void> => {
        await store.keepLease();
        version += 1;
        await store.commit(version, next, undefined);
        data = next;
      };
      if (checkpoint.pending !== undefined) {
        // A crashed invocation announced this range: put what of it is not in the stream.
        const from = Number(checkpoint.pending.first);
        const to = Number(checkpoint.pending.last) + 1;
        const { present, seq } = await this.positionsInStream(data.seq, from, to);
        const rows = take(generatedRows(this.options.generator, from)[Symbol.iterator](), to - from);
        const missing = rows.map((row, i) => ({ row, index: from + i })).filter((r) => !present.has(r.index));
        await store.keepLease();
        const put = await this.put(missing);
        report.rows += missing.length;
        report.recovered += missing.length;
        report.alreadyPut += present.size;
        await commit({ ...data, next: to, seq: latest(seq, put) });
      }
      const rows = generatedRows(this.options.generator, data.next)[Symbol.iterator]();
      let exhausted = false;
      const rangeRows = this.options.rangeRows ?? 5_000;
      for (;;) {
        // Rows due so far, one second ahead (the first invocation puts the first second's rows).
        const due = paced ? Math.floor(((this.now() - data.started + 1_000) * (connector.rowsPerSecond as number)) / 1_000) : Infinity;
        const count = Math.min(rangeRows, due - data.next);
        if (count <= 0) break;
        const batch = take(rows, count);
        if (batch.length < count) exhausted = true;
        if (batch.length === 0) break;
        const from = data.next;
        const to = from + batch.length;
        await store.keepLease();
        await store.announce({ first: String(from), last: String(to - 1) });
        const put = await this.put(batch.map((row, i) => ({ row, index: from + i })));
        await this.options.afterPut?.(from, to);
        report.rows += batch.length;
        await commit({ ...data, next: to, seq: latest(data.seq, put) });
        if (exhausted) break;
      }
      if (exhausted && connector.unbounded !== true) {
        // End of a bounded input, as after the last line of an input file: +∞ on every shard.
        await store.keepLease();
        const ends = await writeHeartbeats(this.options.kinesis, [this.options.streamName], this.now(), {}, Infinity);
        report.endMarkers = ends.shards[this.options.streamName] ?? 0;
        await commit({ ...data, ended: true });
      }
      return { status: 'produced', ...report, next: data.next, ended: data.ended === true };
    } catch (error) {
      // Out of time or fenced out: what is committed stays; the next call goes on from there.
      if (error instanceof FencedError) return { status: 'produced', ...report, next: data.next, ended: false };
      throw error;
    } finally {
      await store.release(undefined);
    }
  }

  /** Puts rows as records keyed by their positions; returns where each landed. */
  private async put(rows: readonly { readonly row: Row; readonly index: number }[]): Promise<PutRecordResult[]> {
    const entries: PutRecordsRequestEntry[] = rows.map(({ row, index }) => {
      const position = generatorPosition(this.label, index);
      const data = Buffer.from(encodeRowToJson(row, this.options.source.schema), 'utf8');
      if (data.length > MAX_RECORD_BYTES) throw new PlanError(`${position}: the row is ${data.length} bytes as JSON; a Kinesis record holds at most ${MAX_RECORD_BYTES}`);
      return { PartitionKey: position, Data: data };
    });
    return entries.length === 0 ? [] : putRecords(this.options.kinesis, this.options.streamName, entries);
  }

  /**
   * The indices in `from..to` whose records are in the stream: every shard read after the last
   * record this producer knows it put there (from the oldest record for a shard it never put to,
   * such as a child after a reshard). Also the last sequence number read in each shard.
   */
  private async positionsInStream(seq: Readonly<Record<string, string>>, from: number, to: number): Promise<{ present: Set<number>; seq: Record<string, string> }> {
    const present = new Set<number>();
    const last: Record<string, string> = { ...seq };
    for (const shard of await listShardsOf(this.options.kinesis, this.options.streamName)) {
      const shardId = shard.ShardId;
      if (shardId === undefined) throw new FlambdaError(`ListShards on stream '${this.options.streamName}' returned a shard without id`, 'external', 'fail');
      for (const record of await readToTip(this.options.kinesis, this.options.streamName, shardId, seq[shardId])) {
        const index = generatorIndex(this.label, record.PartitionKey ?? '');
        if (index !== undefined && index >= from && index < to) present.add(index);
        if (record.SequenceNumber !== undefined) last[shardId] = record.SequenceNumber;
      }
    }
    return { present, seq: last };
  }
}

/** Up to `n` rows from `rows`. */
function take(rows: Iterator<Row>, n: number): Row[] {
  const out: Row[] = [];
  while (out.length < n) {
    const next = rows.next();
    if (next.done === true) break;
    out.push(next.value);
  }
  return out;
}

/** `seq` with each shard's sequence number raised to the largest of `put`. */
function latest(seq: Readonly<Record<string, string>>, put: readonly PutRecordResult[]): Record<string, string> {
  const out: Record<string, string> = { ...seq };
  for (const r of put) {
    const known = out[r.shardId];
    if (known === undefined || compareSequenceNumbers(r.sequenceNumber, known) > 0) out[r.shardId] = r.sequenceNumber;
  }
  return out;
}
