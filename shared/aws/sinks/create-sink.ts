/**
 * The sink writer of a sink stage on AWS, chosen by the job graph's sink connector:
 *
 * | connector   | on AWS                                                              |
 * |-------------|---------------------------------------------------------------------|
 * | `dynamodb`  | {@link DynamoDbUpsertSink} on the table (needs an upsert key)       |
 * | `kinesis`   | {@link KinesisChangelogSink} on the stream                          |
 * | `print`     | one line per row in Flink's print format, to the function's log     |
 * | `blackhole` | nothing                                                             |
 *
 * `collect` and `jsonl` write to the local process or disk and have no meaning in a Lambda
 * function: they are refused with the sink's name. The table or stream name comes from the
 * connector or, as the CDK stack deploys it, from the stage's `FLAMBDA_SINK_TARGETS`.
 */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { PlanError } from '../../core/errors.ts';
import { createRowEncoder } from '../../core/codec.ts';
import { timeZoneOf } from '../../core/time-zone.ts';
import { formatPrintRow } from '../../runtime/embedded/sinks.ts';
import type { ChangeRow } from '../../core/row.ts';
import type { JobSink } from '../../plan/job-graph.ts';
import type { DynamoDbSender } from '../state/table-io.ts';
import { DynamoDbUpsertSink } from './dynamodb-upsert-sink.ts';
import { KinesisChangelogSink } from './kinesis-changelog-sink.ts';

/** Writes one batch of a sink's changelog. */
export type SinkWriter = (rows: readonly ChangeRow[]) => Promise<void>;

/** What {@link createAwsSink} may use. */
export interface AwsSinkContext {
  readonly dynamoDb: DynamoDbSender;
  readonly kinesis: Pick<KinesisClient, 'send'>;
  /** Table or stream name per sink name, overriding the connector's. */
  readonly targets?: ReadonlyMap<string, string>;
  /** Where `print` lines go. @default console.log */
  readonly log?: (line: string) => void;
}

/** The writer of `sink`. @throws PlanError for a connector that cannot run on AWS or a missing name. */
export function createAwsSink(sink: JobSink, context: AwsSinkContext): SinkWriter {
  const connector = sink.connector;
  const target = context.targets?.get(sink.name);
  switch (connector.type) {
    case 'dynamodb': {
      const tableName = target ?? connector.tableName;
      if (tableName === undefined) throw new PlanError(`sink '${sink.name}' writes a DynamoDB table: give its name (connector tableName or FLAMBDA_SINK_TARGETS)`);
      const writer = new DynamoDbUpsertSink({ client: context.dynamoDb, tableName, schema: sink.schema, upsertKey: sink.upsertKey ?? [] });
      return configurationChecked((rows) => writer.write(rows), sink.name, { service: 'DynamoDB table', name: tableName, actions: 'dynamodb:BatchWriteItem' });
    }
    case 'kinesis': {
      const streamName = target ?? connector.streamName;
      if (streamName === undefined) throw new PlanError(`sink '${sink.name}' writes a Kinesis stream: give its name (connector streamName or FLAMBDA_SINK_TARGETS)`);
      const writer = new KinesisChangelogSink({ client: context.kinesis, streamName, schema: sink.schema, upsertKey: sink.upsertKey, ...(connector.format ? { format: connector.format } : {}) });
      return configurationChecked((rows) => writer.write(rows), sink.name, { service: 'Kinesis stream', name: streamName, actions: 'kinesis:PutRecords' });
    }
    case 'print': {
      const encode = createRowEncoder(sink.schema);
      const zone = timeZoneOf(connector.timeZone ?? 'UTC');
      const log = context.log ?? ((line: string) => console.log(line));
      return (rows) => {
        for (const r of rows) log(`${sink.name}> ${formatPrintRow(r, encode, sink.schema, zone)}`);
        return Promise.resolve();
      };
    }
    case 'blackhole':
      return () => Promise.resolve();
    case 'collect':
    case 'jsonl':
      throw new PlanError(`sink '${sink.name}' uses the '${connector.type}' connector, which only the embedded runtime has; on AWS use dynamodb, kinesis, print or blackhole`);
  }
}

/** AWS error names that mean the sink's target is missing: no retry will help. */
const MISSING = new Set(['ResourceNotFoundException', 'TableNotFoundException']);
/** AWS error names that mean the function may not write the target. */
const DENIED = new Set(['AccessDeniedException', 'UnrecognizedClientException', 'KMSAccessDeniedException', 'InvalidSignatureException']);

/**
 * A fatal error of the error policy: a sink whose table or stream does not exist, or that the
 * function may not write, fails every record the same way, so it is not a record's data error
 * and retrying does not help; the writer stops with a {@link PlanError} saying what to fix.
 * Other failures (throttling: TransientError) pass unchanged.
 */
function configurationChecked(write: SinkWriter, sink: string, target: { service: string; name: string; actions: string }): SinkWriter {
  return async (rows) => {
    try {
      await write(rows);
    } catch (error) {
      const name = awsErrorName(error);
      if (name !== undefined && MISSING.has(name)) {
        throw new PlanError(`sink '${sink}': the ${target.service} '${target.name}' does not exist (${name}); create it (the CDK stack does) or fix the sink's name (connector option or FLAMBDA_SINK_TARGETS)`, { cause: error });
      }
      if (name !== undefined && DENIED.has(name)) {
        throw new PlanError(`sink '${sink}': access to the ${target.service} '${target.name}' is denied (${name}); allow ${target.actions} on it to the function's role`, { cause: error });
      }
      throw error;
    }
  };
}

/** The AWS SDK error name of an error or of any error in its cause chain. */
function awsErrorName(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const name = (e as { name?: unknown }).name;
    if (typeof name === 'string' && (MISSING.has(name) || DENIED.has(name))) return name;
  }
  return undefined;
}
