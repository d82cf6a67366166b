/**
 * How Lambda reads a Kinesis function's result with ReportBatchItemFailures on (Lambda
 * developer guide, "Configuring partial batch response with Kinesis Data Streams and Lambda"):
 *
 * - Complete success: the handler returns nothing, null, an object without `batchItemFailures`,
 *   or a null or empty `batchItemFailures` list. Lambda checkpoints the batch's last record.
 * - Partial success: `batchItemFailures: [{ itemIdentifier: "<SequenceNumber>" }, …]`. "If the
 *   batchItemFailures array contains multiple items, Lambda uses the record with the lowest
 *   sequence number as the checkpoint. Lambda then retries all records starting from that
 *   checkpoint." Records before it count as processed.
 * - Complete failure: an `itemIdentifier` that is an empty string or null, or an entry whose
 *   key is misspelt; or the handler throws. The whole batch is retried.
 *
 * An identifier that names no record of the batch is not covered by the guide; it is treated
 * as a complete failure here (retrying from an unknown position could skip records).
 */
import type { KinesisStreamRecord } from 'aws-lambda';

/** The outcome of one invocation, as the mapping acts on it. */
export type BatchOutcome =
  | { readonly kind: 'success' }
  /** Records before `index` succeeded; retry from `index` (0: nothing succeeded). */
  | { readonly kind: 'partial'; readonly index: number }
  /** Retry the whole batch; `reason` says why the response was rejected. */
  | { readonly kind: 'failure'; readonly reason: string };

const SUCCESS: BatchOutcome = { kind: 'success' };

/**
 * Classifies a handler's return value for `batch`. With `reportBatchItemFailures` off,
 * whatever was returned is a success: Lambda ignores the response then.
 */
export function interpretBatchResponse(
  response: unknown,
  batch: readonly KinesisStreamRecord[],
  reportBatchItemFailures: boolean,
): BatchOutcome {
  if (!reportBatchItemFailures) return SUCCESS;
  if (typeof response !== 'object' || response === null) return SUCCESS;
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return SUCCESS;
  if (!Array.isArray(failures)) {
    return { kind: 'failure', reason: `batchItemFailures must be a list (got ${describe(failures)})` };
  }
  if (failures.length === 0) return SUCCESS;

  let lowest = Number.POSITIVE_INFINITY;
  let positions: Map<string, number> | undefined;
  for (const entry of failures as unknown[]) {
    const id = typeof entry === 'object' && entry !== null ? (entry as { itemIdentifier?: unknown }).itemIdentifier : undefined;
    if (typeof id !== 'string' || id.length === 0) {
      return { kind: 'failure', reason: `batchItemFailures entry without a valid itemIdentifier: ${describe(entry)}` };
    }
    // Built lazily: a successful batch never pays for the map.
    positions ??= new Map(batch.map((r, i) => [r.kinesis.sequenceNumber, i]));
    const index = positions.get(id);
    if (index === undefined) {
      return { kind: 'failure', reason: `itemIdentifier ${id} is not a sequence number of this batch` };
    }
    // Records of one shard are in sequence-number order, so the lowest index is the lowest
    // sequence number.
    if (index < lowest) lowest = index;
  }
  return { kind: 'partial', index: lowest };
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
