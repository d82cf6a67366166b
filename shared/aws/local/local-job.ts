/**
 * Runs a job graph the AWS way on one machine: Kinesis streams between stages, one
 * {@link StageHandler} per stage fed by a {@link LocalEventSourceMapping} (as Lambda would feed
 * it), operator state in a DynamoDB table.
 *
 * ```
 *  input files ─► PutRecords (≤ 500 per call, partition key = line number)
 *  generator sources ─► GeneratorProducer (partition key = the row's position, `values_1#3`)
 *     ─► source stream (shards = source stage's parallelism) ─► ESM ─► StageHandler
 *     ─► exchange stream (shards = next stage's parallelism)  ─► ESM ─► StageHandler ─► sink callback
 * ```
 *
 * Endpoints: for each of Kinesis and DynamoDB, the endpoint configured in the environment
 * (`AWS_ENDPOINT_URL_KINESIS` / `AWS_ENDPOINT_URL_DYNAMODB`, else `AWS_ENDPOINT_URL`) is used
 * when there is one; otherwise an emulator (kinesalite, dynalite) is started in-process on
 * 127.0.0.1 and closed at the end. Streams and the table get names unique to the run; on
 * configured endpoints they are deleted again at the end (best effort).
 *
 * Delivery is effectively once, by the stage handler's checkpoint protocol (docs/effectively-once.md);
 * the sink callback gets each batch once. The input files are bounded: after the last record a
 * heartbeat carrying watermark +∞ goes to every source shard, so event-time windows close; and,
 * as on the embedded runtime, processing time ends too: before each stage drains (upstream
 * first), a heartbeat at {@link END_OF_PROCESSING_TIME} goes to every shard of its input, so
 * processing-time windows, sorts and sessions emit their last results.
 * A generator source (VALUES, datagen with `number-of-rows`, a TypeScript `generator`) is put by
 * the producer a deployed pipeline runs (shared/aws/generator/generator-producer.ts), all at
 * once (its `rows-per-second` is for deployed pipelines), and ends the same way; one that never
 * ends (datagen without `number-of-rows`) is refused.
 */
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { CreateStreamCommand, DeleteStreamCommand, DescribeStreamSummaryCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient, PutRecordsRequestEntry } from '@aws-sdk/client-kinesis';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { GeneratorFunction } from '../../api/pipeline.ts';
import { FlambdaError, PlanError } from '../../core/errors.ts';
import { END_OF_PROCESSING_TIME } from '../../core/timestamp.ts';
import type { ChangeRow } from '../../core/row.ts';
import type { UserCode } from '../../operators/registry.ts';
import type { JobGraph, JobSource, JobStage } from '../../plan/job-graph.ts';
import { requireBoundedGenerator } from '../../runtime/generator-rows.ts';
import { createDynamoDbClient } from '../clients.ts';
import { GeneratorProducer } from '../generator/generator-producer.ts';
import { LocalEventSourceMapping } from '../esm/local-event-source-mapping.ts';
import { StageHandler } from '../handler/stage-handler.ts';
import type { StageHandlerOptions } from '../handler/stage-handler.ts';
import type { DynamoDbSender } from '../state/table-io.ts';
import { writeHeartbeats } from '../heartbeat/heartbeat-writer.ts';
import { createKinesisClient } from '../kinesis/client.ts';
import { MAX_RECORD_BYTES, putRecords } from '../kinesis/put-records.ts';
import type { DeadLetter } from '../stage-input/types.ts';
import { createStateTable } from '../state/create-state-table.ts';
import { startDynalite, startKinesalite } from './emulators.ts';
import type { LocalEmulator } from './emulators.ts';

/** Lines read before they are put (putRecords cuts them into PutRecords calls). */
const PUT_RECORDS_MAX = 500;

/** How a stage went, reported when its mapping has drained. */
export interface LocalStageReport {
  readonly stage: JobStage;
  /** Records the stage's handler received (retries included; not the end-of-input markers). */
  readonly records: number;
  /** Rows it sent to its exchange or sink. */
  readonly outputRows: number;
  readonly deadLetters: number;
  /** Invocations that returned a partial batch failure. */
  readonly failedBatches: number;
  /** Records discarded by the mapping after its retries. */
  readonly discardedRecords: number;
  /** Since the job started. */
  readonly elapsedMs: number;
}

/** What the cost benchmark changes in the stage handlers: client wrappers (meters), settings, an invocation timer. */
export interface LocalHandlerSetup {
  /** Wraps the DynamoDB client of a stage's handler. */
  readonly dynamoDb?: (client: DynamoDBClient, stageId: string) => DynamoDbSender;
  /** Wraps the Kinesis client of a stage's handler (exchange output, shard lookups). */
  readonly kinesis?: (client: KinesisClient, stageId: string) => KinesisClient;
  /** Extra handler settings (`clock`: the processing-time clock of every stage, as tests control it). */
  readonly options?: Pick<StageHandlerOptions, 'stateStore' | 'checkpoint' | 'commit' | 'clock'>;
  /** Called after every invocation with its measured duration. */
  readonly onInvocation?: (stageId: string, records: number, durationMs: number) => void;
  /**
   * Start each stage's mapping only once the stage upstream drained, so stages run one at a
   * time: on one thread, a stage's invocations would otherwise count the other stages' work in
   * their durations. @default false
   */
  readonly sequentialStages?: boolean;
  /** With `sequentialStages`: each stage's BatchSize, asked when the stage starts. @default the job's batchSize */
  readonly batchSizeFor?: (stage: JobStage) => number;
}

/** Options of {@link runLocalJob}. */
export interface LocalJobOptions {
  readonly graph: JobGraph;
  /** User functions, lookup sources and the generators of the generator sources. */
  readonly code: UserCode & { readonly generators?: ReadonlyMap<string, GeneratorFunction> };
  /** The JSON-lines file of every source, by source name; a generator source without one is produced by its generator. */
  readonly inputs: ReadonlyMap<string, string>;
  /** Receives every sink batch once (a batch re-sent after a failure is recognised by its id and dropped). */
  readonly sink: (sink: string, rows: readonly ChangeRow[]) => void;
  /** Receives dead letters; `source` is the source name for a source stage's input, else undefined. */
  readonly onDeadLetters?: (letters: readonly DeadLetter[], source: string | undefined) => void;
  /** Called once per stage, upstream first, when its mapping has drained. */
  readonly onStageDrained?: (report: LocalStageReport) => void;
  /** Called when the emulators are up / the endpoints are chosen. */
  readonly onEndpoints?: (endpoints: { kinesis: string; dynamoDb: string }) => void;
  /** The environment endpoints are read from. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Records per handler invocation (BatchSize). @default 500 */
  readonly batchSize?: number;
  /** Retries of a failed batch before the mapping discards it. @default 3 */
  readonly maximumRetryAttempts?: number;
  /** Fail when one stage does not drain within this many ms. @default 600000 */
  readonly drainTimeoutMs?: number;
  /** Called once the stage handlers exist, by stage id (the job page builds its probe on them). */
  readonly onHandlers?: (handlers: ReadonlyMap<string, StageHandler>) => void;
  /** Stops the job (while it drains): it rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Handler client wrappers and settings. @default the plain clients */
  readonly handlerSetup?: LocalHandlerSetup;
}

/** What {@link runLocalJob} did. */
export interface LocalJobResult {
  /** Input lines (and generated rows) put, over all sources. */
  readonly recordsRead: number;
  /** Input lines (and generated rows) put per source. */
  readonly recordsBySource: ReadonlyMap<string, number>;
  readonly elapsedMs: number;
  readonly stages: readonly LocalStageReport[];
  /** Rows written per sink. */
  readonly sinks: ReadonlyMap<string, { readonly rowsWritten: number }>;
  /** Handler failures (each was retried by the mapping), first few. */
  readonly errors: readonly unknown[];
}

/** Runs the job over the input files until every stage has drained; see the module header. */
export async function runLocalJob(options: LocalJobOptions): Promise<LocalJobResult> {
  const { graph } = options;
  const env = options.env ?? process.env;
  const started = Date.now();
  const generators = new Map<string, GeneratorFunction>();
  for (const source of graph.sources) {
    const c = source.connector;
    if (c.type === 'generator' && !options.inputs.has(source.name)) {
      const generator = options.code.generators?.get(c.ref);
      if (generator === undefined) throw new PlanError(`source '${source.name}': generator ${c.display} is not in the pipeline module`);
      requireBoundedGenerator(source, 'flambda local');
      generators.set(source.name, generator);
    } else if (!options.inputs.has(source.name)) {
      throw new PlanError(`source '${source.name}' needs an input: pass --input ${source.name}=<file.jsonl>`);
    }
  }
  const emulators: LocalEmulator[] = [];
  const mappings: LocalEventSourceMapping[] = [];
  let kinesis: KinesisClient | undefined;
  let dynamoDb: DynamoDBClient | undefined;
  const external = { kinesis: false, dynamoDb: false };
  const prefix = `flambda-${graph.name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 60)}-${randomBytes(4).toString('hex')}`;
  const tableName = `${prefix}-state`;
  const createdStreams: string[] = [];
  let tableCreated = false;
  try {
    // ── endpoints and clients ──
    const kinesisEnv = env.AWS_ENDPOINT_URL_KINESIS || env.AWS_ENDPOINT_URL;
    const dynamoEnv = env.AWS_ENDPOINT_URL_DYNAMODB || env.AWS_ENDPOINT_URL;
    const region = env.AWS_REGION || 'us-east-1';
    const dummy = { accessKeyId: 'local', secretAccessKey: 'local' };
    let kinesisEndpoint: string;
    if (kinesisEnv) {
      external.kinesis = true;
      kinesisEndpoint = kinesisEnv;
      kinesis = createKinesisClient({ region });
    } else {
      const emulator = await startKinesalite();
      emulators.push(emulator);
      kinesisEndpoint = emulator.endpoint;
      kinesis = createKinesisClient({ endpoint: emulator.endpoint, region, credentials: dummy });
    }
    let dynamoEndpoint: string;
    if (dynamoEnv) {
      external.dynamoDb = true;
      dynamoEndpoint = dynamoEnv;
      dynamoDb = createDynamoDbClient({ region });
    } else {
      const emulator = await startDynalite();
      emulators.push(emulator);
      dynamoEndpoint = emulator.endpoint;
      dynamoDb = createDynamoDbClient({ endpoint: emulator.endpoint, region, credentials: dummy });
    }
    options.onEndpoints?.({ kinesis: kinesisEndpoint, dynamoDb: dynamoEndpoint });
    const kinesisClient = kinesis;
    const dynamoClient = dynamoDb;

    // ── streams and table ──
    const sourceStreams = new Map<string, string>();
    const inputStreams = new Map<string, string>();
    const sourceOfStage = new Map<string, string>();
    const creations: Promise<void>[] = [];
    const addStream = (name: string, shards: number): void => {
      createdStreams.push(name);
      creations.push(createStream(kinesisClient, name, shards));
    };
    for (const stage of graph.stages) {
      if (stage.input.type === 'source') {
        const source = stage.input.source;
        sourceOfStage.set(stage.id, source);
        let stream = sourceStreams.get(source);
        if (stream === undefined) {
          stream = `${prefix}-source-${sanitize(source)}`;
          sourceStreams.set(source, stream);
          addStream(stream, stage.parallelism);
        }
        inputStreams.set(stage.id, stream);
      } else {
        const stream = `${prefix}-exchange-${sanitize(stage.id)}`;
        inputStreams.set(stage.id, stream);
        addStream(stream, stage.parallelism);
      }
    }
    for (const source of graph.sources) {
      if (!sourceStreams.has(source.name)) throw new PlanError(`source '${source.name}' feeds no stage`);
    }
    creations.push(createStateTable(dynamoClient, tableName).then(() => void (tableCreated = true)));
    await settleAll(creations);

    // ── input ──
    const recordsBySource = new Map<string, number>();
    const endMarkers = new Map<string, number>();
    for (const [source, stream] of sourceStreams) {
      const generator = generators.get(source);
      if (generator !== undefined) {
        const produced = await produceAll(new GeneratorProducer({ kinesis: kinesisClient, dynamoDb: dynamoClient, tableName, streamName: stream, source: graph.sources.find((s) => s.name === source) as JobSource, generator }));
        recordsBySource.set(source, produced.rows);
        endMarkers.set(stream, produced.endMarkers);
        continue;
      }
      recordsBySource.set(source, await putFile(kinesisClient, stream, options.inputs.get(source) as string));
      // The files are bounded: a +∞ heartbeat after the last record of every shard ends them,
      // so event-time windows close as on the embedded runtime.
      const ends = await writeHeartbeats(kinesisClient, [stream], Date.now(), {}, Infinity);
      endMarkers.set(stream, ends.shards[stream] ?? 0);
    }

    // ── one handler and one mapping per stage ──
    const errors: unknown[] = [];
    const discarded = new Map<string, number>();
    const sinkRows = new Map<string, number>(graph.sinks.map((s) => [s.name, 0]));
    const appliedBatches = new Set<string>();
    const handlers = new Map<string, StageHandler>();
    const mappingFactories: (() => LocalEventSourceMapping)[] = [];
    // An idempotent sink: a replayed batch carries the id (and rows) it had before.
    const deliver = (rows: readonly ChangeRow[], info: { sink: string; id: string }): void => {
      if (appliedBatches.has(info.id)) return;
      appliedBatches.add(info.id);
      sinkRows.set(info.sink, (sinkRows.get(info.sink) ?? 0) + rows.length);
      options.sink(info.sink, rows);
    };
    for (const stage of graph.stages) {
      const output = stage.output;
      const source = sourceOfStage.get(stage.id);
      const setup = options.handlerSetup;
      const handler = new StageHandler({
        ...setup?.options,
        graph,
        stageId: stage.id,
        code: options.code,
        dynamoDb: setup?.dynamoDb?.(dynamoClient, stage.id) ?? dynamoClient,
        tableName,
        // Every stage lists its input shards (timers are loaded by shard hash range).
        kinesis: setup?.kinesis?.(kinesisClient, stage.id) ?? kinesisClient,
        ...(output.type === 'exchange' ? { outputStreams: new Map([[output.toStage, inputStreams.get(output.toStage) as string]]) } : { sink: deliver }),
        // Late rows and other side outputs go to the sinks the job graph routes them to.
        sideSink: deliver,
        onDeadLetters: (letters) => options.onDeadLetters?.(letters, source),
        onError: (error) => {
          if (errors.length < 10) errors.push(error);
        },
      });
      handlers.set(stage.id, handler);
      const makeMapping = (): LocalEventSourceMapping =>
        new LocalEventSourceMapping({
          client: kinesisClient,
          streamName: inputStreams.get(stage.id) as string,
          startingPosition: 'TRIM_HORIZON',
          batchSize: setup?.sequentialStages === true && setup.batchSizeFor !== undefined ? setup.batchSizeFor(stage) : (options.batchSize ?? 500),
          pollIntervalMs: 20,
          shardDiscoveryIntervalMs: 1_000,
          retryDelayMs: 50,
          maximumRetryAttempts: options.maximumRetryAttempts ?? 3,
          functionName: `${prefix}-${sanitize(stage.id)}`.slice(0, 64),
          onFailure: (record) => {
            discarded.set(stage.id, (discarded.get(stage.id) ?? 0) + record.KinesisBatchInfo.batchSize);
          },
          handler: async (event) => {
            const started = performance.now();
            try {
              return await handler.handle(event);
            } finally {
              setup?.onInvocation?.(stage.id, event.Records.length, performance.now() - started);
            }
          },
        });
      // Sequential stages get their mapping when they start (its batch size may depend on what ran upstream).
      mappings.push(setup?.sequentialStages === true ? (undefined as unknown as LocalEventSourceMapping) : makeMapping());
      mappingFactories.push(makeMapping);
    }
    // Sequential stages start one at a time below, each after the one upstream drained.
    if (options.handlerSetup?.sequentialStages !== true) await settleAll(mappings.map((m) => m.start()));
    options.onHandlers?.(handlers);
    const stopped = new Promise<never>((_resolve, reject) => {
      if (options.signal?.aborted) reject(options.signal.reason);
      options.signal?.addEventListener('abort', () => reject(options.signal?.reason), { once: true });
    });
    stopped.catch(() => undefined);

    // ── drain upstream first: once a stage drained, all it wrote is in the next stream ──
    const reports: LocalStageReport[] = [];
    for (const [i, stage] of graph.stages.entries()) {
      if (options.handlerSetup?.sequentialStages === true) {
        mappings[i] = (mappingFactories[i] as () => LocalEventSourceMapping)();
        await (mappings[i] as LocalEventSourceMapping).start();
      }
      const mapping = mappings[i] as LocalEventSourceMapping;
      // Everything upstream has drained into this stage's input: end its processing time after it.
      const input = inputStreams.get(stage.id) as string;
      const ends = await writeHeartbeats(kinesisClient, [input], END_OF_PROCESSING_TIME);
      endMarkers.set(input, (endMarkers.get(input) ?? 0) + (ends.shards[input] ?? 0));
      await Promise.race([mapping.drain({ timeoutMs: options.drainTimeoutMs ?? 600_000 }), stopped]);
      const stats = (handlers.get(stage.id) as StageHandler).stats();
      const report: LocalStageReport = {
        stage,
        // Not counting the end-of-input markers, which are not input records.
        records: stats.records - (endMarkers.get(inputStreams.get(stage.id) as string) ?? 0),
        outputRows: stats.outputRows,
        deadLetters: stats.deadLetters,
        failedBatches: stats.failedBatches,
        discardedRecords: discarded.get(stage.id) ?? 0,
        elapsedMs: Date.now() - started,
      };
      reports.push(report);
      options.onStageDrained?.(report);
    }
    const discardedTotal = [...discarded.values()].reduce((a, b) => a + b, 0);
    if (discardedTotal > 0) {
      const first = errors[0] instanceof Error ? `; first error: ${errors[0].message}` : '';
      throw new FlambdaError(
        `${discardedTotal} records were discarded after ${options.maximumRetryAttempts ?? 3} retries ` +
          `(${[...discarded].map(([s, n]) => `${s}: ${n}`).join(', ')})${first}`,
        'internal',
        'fail',
      );
    }
    return {
      recordsRead: [...recordsBySource.values()].reduce((a, b) => a + b, 0),
      recordsBySource,
      elapsedMs: Date.now() - started,
      stages: reports,
      sinks: new Map([...sinkRows].map(([name, rowsWritten]) => [name, { rowsWritten }])),
      errors,
    };
  } finally {
    await Promise.allSettled(mappings.filter((m) => m !== undefined).map((m) => m.stop()));
    if (external.kinesis && kinesis !== undefined) {
      const client = kinesis;
      await Promise.allSettled(createdStreams.map((s) => client.send(new DeleteStreamCommand({ StreamName: s, EnforceConsumerDeletion: true }))));
    }
    if (external.dynamoDb && dynamoDb !== undefined && tableCreated) {
      await Promise.allSettled([dynamoDb.send(new DeleteTableCommand({ TableName: tableName }))]);
    }
    kinesis?.destroy();
    dynamoDb?.destroy();
    await Promise.allSettled(emulators.map((e) => e.close()));
  }
}

/** Waits for every promise, then throws the first failure (so none is left running unobserved). */
async function settleAll(promises: readonly Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}

function sanitize(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** Creates a stream and waits until it is ACTIVE. */
async function createStream(client: KinesisClient, streamName: string, shardCount: number): Promise<void> {
  await client.send(new CreateStreamCommand({ StreamName: streamName, ShardCount: shardCount }));
  const deadline = Date.now() + 120_000;
  for (;;) {
    const out = await client.send(new DescribeStreamSummaryCommand({ StreamName: streamName }));
    if (out.StreamDescriptionSummary?.StreamStatus === 'ACTIVE') return;
    if (Date.now() > deadline) throw new FlambdaError(`stream ${streamName} did not become ACTIVE`, 'external', 'fail');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs a producer, unpaced, until its generator has ended; returns what it put. */
async function produceAll(producer: GeneratorProducer): Promise<{ rows: number; endMarkers: number }> {
  let rows = 0;
  let endMarkers = 0;
  for (;;) {
    const report = await producer.produce({ deadline: Date.now() + 600_000, paced: false });
    rows += report.rows;
    endMarkers += report.endMarkers;
    if (report.ended) return { rows, endMarkers };
    // Unpaced, a call ends its generator or runs out of time having put rows; nobody else holds it here.
    if (report.rows === 0) throw new FlambdaError(`the producer of a generator source put no row and did not end (${report.status})`, 'internal', 'fail');
  }
}

/**
 * Puts every non-blank line of `file` as one record (partition key = its 1-based line number),
 * in chunks of at most 500 records (putRecords retries what Kinesis rejects). Returns the
 * number of records put.
 */
async function putFile(client: KinesisClient, streamName: string, file: string): Promise<number> {
  let lineNumber = 0;
  let count = 0;
  let chunk: PutRecordsRequestEntry[] = [];
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === '') continue;
    const data = Buffer.from(line, 'utf8');
    if (data.length > MAX_RECORD_BYTES) {
      throw new PlanError(`${file}:${lineNumber}: the line is ${data.length} bytes; a Kinesis record holds at most ${MAX_RECORD_BYTES}`);
    }
    chunk.push({ PartitionKey: String(lineNumber), Data: data });
    count++;
    if (chunk.length >= PUT_RECORDS_MAX) {
      await putRecords(client, streamName, chunk);
      chunk = [];
    }
  }
  if (chunk.length > 0) await putRecords(client, streamName, chunk);
  return count;
}
