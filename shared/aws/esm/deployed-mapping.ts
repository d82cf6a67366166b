/**
 * The options of a local event source mapping that behaves as a deployed Kinesis mapping is
 * configured: the fields of Lambda's `EventSourceMappingConfiguration` (GetEventSourceMapping /
 * ListEventSourceMappings output) mapped one to one, so a test can run a function's bundle the
 * way its deployed mapping would feed it.
 *
 * Settings the local mapping does not model are refused by name rather than ignored: a
 * `ParallelizationFactor` other than 1 (it processes one batch per shard at a time), bisecting
 * failed batches, tumbling windows, event filtering.
 */
import { FlambdaError } from '../../core/errors.ts';
import type { LocalEventSourceMappingOptions, StartingPosition } from './types.ts';

/** The fields of Lambda's EventSourceMappingConfiguration read here (a structural subset). */
export interface DeployedMappingConfiguration {
  readonly UUID?: string;
  readonly EventSourceArn?: string;
  readonly BatchSize?: number;
  readonly MaximumBatchingWindowInSeconds?: number;
  readonly StartingPosition?: string;
  readonly StartingPositionTimestamp?: Date | number;
  readonly MaximumRetryAttempts?: number;
  readonly MaximumRecordAgeInSeconds?: number;
  readonly FunctionResponseTypes?: readonly string[];
  readonly ParallelizationFactor?: number;
  readonly BisectBatchOnFunctionError?: boolean;
  readonly TumblingWindowInSeconds?: number;
  readonly FilterCriteria?: { readonly Filters?: readonly unknown[] };
  readonly DestinationConfig?: { readonly OnFailure?: { readonly Destination?: string } };
}

/** Local options equivalent to a deployed mapping, and where its discarded batches go. */
export interface DeployedMappingOptions {
  /** Everything but the handler, the client and the on-failure callback. */
  readonly options: Omit<LocalEventSourceMappingOptions, 'handler' | 'client' | 'onFailure'>;
  /** The on-failure destination's ARN (an SQS queue, SNS topic, S3 bucket …), if configured. */
  readonly onFailureDestinationArn: string | undefined;
}

const STARTING_POSITIONS: readonly StartingPosition[] = ['TRIM_HORIZON', 'LATEST', 'AT_TIMESTAMP'];

/**
 * The local mapping options of a deployed Kinesis mapping (see the module header). Absent fields
 * take Lambda's defaults for Kinesis: BatchSize 100, no batching window, MaximumRetryAttempts -1,
 * MaximumRecordAgeInSeconds -1, no partial batch responses.
 *
 * @throws FlambdaError (user, fail) naming the setting the local mapping cannot model, or a
 *   configuration that is not a Kinesis mapping.
 */
export function deployedMappingOptions(config: DeployedMappingConfiguration): DeployedMappingOptions {
  const name = config.UUID ?? config.EventSourceArn ?? 'the mapping';
  const refuse = (what: string): never => {
    throw new FlambdaError(`event source mapping ${name}: ${what}, which the local event source mapping does not model`, 'user', 'fail');
  };
  const arn = config.EventSourceArn;
  if (arn === undefined || !/^arn:[a-z0-9-]+:kinesis:/.test(arn)) throw new FlambdaError(`event source mapping ${name} does not read a Kinesis stream (EventSourceArn ${String(arn)})`, 'user', 'fail');
  const position = config.StartingPosition as StartingPosition | undefined;
  if (position === undefined || !STARTING_POSITIONS.includes(position)) throw new FlambdaError(`event source mapping ${name}: StartingPosition ${String(position)} is not TRIM_HORIZON, LATEST or AT_TIMESTAMP`, 'user', 'fail');
  if ((config.ParallelizationFactor ?? 1) !== 1) refuse(`ParallelizationFactor is ${config.ParallelizationFactor}`);
  if (config.BisectBatchOnFunctionError === true) refuse('BisectBatchOnFunctionError is on');
  if ((config.TumblingWindowInSeconds ?? 0) > 0) refuse(`TumblingWindowInSeconds is ${config.TumblingWindowInSeconds}`);
  if ((config.FilterCriteria?.Filters?.length ?? 0) > 0) refuse('it has FilterCriteria');
  const age = config.MaximumRecordAgeInSeconds ?? -1;
  const at = config.StartingPositionTimestamp;
  return {
    options: {
      streamArn: arn,
      startingPosition: position,
      ...(position === 'AT_TIMESTAMP' && at !== undefined ? { startingPositionTimestamp: at instanceof Date ? at.getTime() : at * 1000 } : {}),
      ...(config.BatchSize !== undefined ? { batchSize: config.BatchSize } : {}),
      maximumBatchingWindowMs: (config.MaximumBatchingWindowInSeconds ?? 0) * 1000,
      reportBatchItemFailures: (config.FunctionResponseTypes ?? []).includes('ReportBatchItemFailures'),
      maximumRetryAttempts: config.MaximumRetryAttempts ?? -1,
      maximumRecordAgeMs: age === -1 ? -1 : age * 1000,
    },
    onFailureDestinationArn: config.DestinationConfig?.OnFailure?.Destination,
  };
}
