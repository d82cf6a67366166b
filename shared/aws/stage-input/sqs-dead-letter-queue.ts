/**
 * Sends dead letters to an SQS queue with SendMessageBatch.
 *
 * Messages. The body is one JSON object: `kind`, `reason`, `stage`, `stream`, `shardId`,
 * `sequenceNumber` (and `lastSequenceNumber` for a range), `approximateArrivalTimestamp` (epoch ms), `partitionKey`, `dataBytes`,
 * `dataTruncated`, `dataNote` (when truncated) and `data` (base64). `kind`, `stage`, `stream`,
 * `shardId` and `sequenceNumber` are also message attributes, so consumers and redrive tools can
 * filter without parsing bodies. Free text (the reason, the partition key) is only in the body,
 * where JSON escapes every character SQS rejects (it accepts only `#x9 | #xA | #xD | #x20–#xD7FF
 * | #xE000–#xFFFD | #x10000–#x10FFFF`, SendMessage API reference).
 *
 * Size. SQS caps a message — body plus attribute names, types and values — at 256 KiB
 * (262,144 bytes), and also the sum of all messages of one SendMessageBatch call (SendMessage-
 * Batch API reference: "The maximum allowed individual message size and the maximum total
 * payload size (the sum of the individual lengths of all of the batched messages) are both 256
 * KiB"). A letter that would not fit has its `data` cut at a multiple of 4 base64 characters
 * (so it stays valid base64 of the record's first bytes), `dataTruncated: true`, and a
 * `dataNote` saying how many of how many bytes it holds and where the whole record is. Calls
 * carry at most 10 entries (the API's limit) and at most 256 KiB in total.
 *
 * FIFO queues (URL ending in `.fifo`) get `MessageGroupId` = the shard (stream and shard id)
 * and `MessageDeduplicationId` = a hash of stream, shard and sequence number, so a letter
 * re-sent after a batch retry within SQS's 5-minute deduplication interval is stored once.
 * Standard queues may hold such a letter twice: dead letters are at-least-once.
 *
 * Failures. SendMessageBatch reports per-entry failures inside a successful response. Entries
 * that failed through no fault of the sender (`SenderFault: false`: throttling, internal
 * errors) are sent again — alone, the successful ones are not — after exponential backoff with
 * full jitter; a whole call failing with a retryable error (after the SDK's own retries) counts
 * as a failed attempt of each of its entries. After `maxAttempts` failed attempts of one entry,
 * `send` throws a TransientError: the handler fails the batch, Lambda delivers it again, and
 * nothing is lost. An entry rejected as the sender's fault, or a non-retryable call error
 * (queue missing, access denied), throws a FlambdaError with retry hint `fail`: sending it again
 * cannot succeed.
 */
import { packCalls } from '../batching.ts';
import { retryPolicy, type RetryOptions, type RetryPolicy } from '../../core/retry.ts';
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { MessageAttributeValue, SQSClient, SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import { FlambdaError, PlanError, TransientError } from '../../core/errors.ts';
import { checkIntegerOption } from './input-reader.ts';
import type { DeadLetter } from './types.ts';

/** SQS's largest message and largest SendMessageBatch payload: 256 KiB. */
export const MAX_SQS_MESSAGE_BYTES = 262_144;

/** SendMessageBatch accepts at most 10 entries. */
export const MAX_SQS_BATCH_ENTRIES = 10;

/** Smallest `maxMessageBytes` accepted: room for the envelope with a maximal reason. */
const MIN_MESSAGE_BYTES = 16_384;

/** Longest reason kept in a message; reasons quote at most short excerpts, so this only guards the size budget. */
const MAX_REASON_CHARS = 2_000;

/** Whole-call errors worth another attempt (the SDK has already retried these itself). */
const RETRYABLE_CALL_ERRORS: ReadonlySet<string> = new Set([
  'ThrottlingException',
  'RequestThrottled',
  'KmsThrottled',
  'ServiceUnavailable',
  'InternalError',
  'InternalFailure',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

/** Network error codes worth another attempt. */
const RETRYABLE_NETWORK_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN']);

/** A dead letter as an SQS message. */
export interface DeadLetterMessage {
  /** The JSON body. */
  readonly body: string;
  readonly attributes: Record<string, MessageAttributeValue>;
  /** Body plus attribute names, types and values, in bytes: what SQS counts against its limit. */
  readonly bytes: number;
  /** True when `data` holds fewer bytes than the record had (cut by the reader or to fit here). */
  readonly dataTruncated: boolean;
  /** True when this function had to cut `data` further to fit `maxMessageBytes`. */
  readonly cutToFit: boolean;
}

/** Options of {@link SqsDeadLetterQueue}. */
export interface SqsDeadLetterQueueOptions extends RetryOptions {
  /** A client, e.g. from `createSqsClient`. */
  readonly client: SQSClient;
  /** The queue's URL. */
  readonly queueUrl: string;
  /**
   * Largest message in bytes, body plus attributes (16384..262144).
   * @default MAX_SQS_MESSAGE_BYTES (262144)
   */
  readonly maxMessageBytes?: number;
}

/** What one {@link SqsDeadLetterQueue.send} did. */
export interface DeadLetterSendStats {
  /** Messages delivered. */
  messages: number;
  /** SendMessageBatch calls made. */
  calls: number;
  /** Entries sent again after a retryable failure. */
  retriedEntries: number;
  /** Messages whose data was cut to fit the message size limit. */
  cutToFit: number;
}

/** One message on its way. */
interface Outgoing {
  readonly id: string;
  readonly message: DeadLetterMessage;
  readonly letter: DeadLetter;
  failures: number;
}

/** UTF-8 size of a string. */
function utf8(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** SHA-256 hex of the parts, joined unambiguously. */
function digest(parts: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(parts), 'utf8').digest('hex');
}

/**
 * The SQS message for a letter, within `maxMessageBytes`; see the module header.
 *
 * @throws FlambdaError (internal, fail) when even the envelope without data does not fit, which
 *   the option's lower bound rules out.
 */
export function deadLetterMessage(letter: DeadLetter, maxMessageBytes: number = MAX_SQS_MESSAGE_BYTES): DeadLetterMessage {
  const attributes: Record<string, MessageAttributeValue> = {};
  let attributeBytes = 0;
  const entries: [string, string][] = [
    ['kind', letter.kind],
    ['stage', letter.stage],
    ['stream', letter.stream],
    ['shardId', letter.shardId],
    ['sequenceNumber', letter.sequenceNumber],
    ['lastSequenceNumber', letter.lastSequenceNumber ?? ''],
    ['operator', letter.operator ?? ''],
  ];
  for (const [name, value] of entries) {
    // SQS rejects empty attribute values.
    if (value.length === 0) continue;
    attributes[name] = { DataType: 'String', StringValue: value };
    attributeBytes += utf8(name) + utf8('String') + utf8(value);
  }
  const reason = letter.reason.length > MAX_REASON_CHARS ? `${letter.reason.slice(0, MAX_REASON_CHARS)}…` : letter.reason;
  const build = (data: string, truncated: boolean, shown = Buffer.byteLength(data, 'base64')): string =>
     JSON.stringify({
      kind: letter.kind,
      reason,
      stage: letter.stage,
      stream: letter.stream,
      shardId: letter.shardId,
      sequenceNumber: letter.sequenceNumber,
      ...(letter.lastSequenceNumber !== undefined ? { lastSequenceNumber: letter.lastSequenceNumber } : {}),
      ...(letter.operator !== undefined ? { operator: letter.operator } : {}),
      approximateArrivalTimestamp: letter.approximateArrivalTimestamp,
      partitionKey: letter.partitionKey,
      dataBytes: letter.dataBytes,
      dataTruncated: truncated,
      ...(truncated
        ? {
            dataNote:
              `data holds the first ${shown} of the record's ${letter.dataBytes} bytes (base64), cut to fit the dead-letter message; ` +
              `the whole record is in stream ${letter.stream}, shard ${letter.shardId}, at sequence number ${letter.sequenceNumber} ` +
              `until the stream's retention period ends`,
          }
        : {}),
      data,
    });

  let body = build(letter.data, letter.truncated);
  let cutToFit = false;
  if (utf8(body) + attributeBytes > maxMessageBytes) {
    // The envelope with the widest note (all `dataBytes` shown) bounds the room left for data;
    // base64 characters are one byte each and JSON leaves them unescaped.
    const envelope = utf8(build('', true, letter.dataBytes));
    const room = maxMessageBytes - attributeBytes - envelope;
    if (room < 0) {
      throw new FlambdaError(`a dead-letter envelope of ${envelope + attributeBytes} bytes does not fit ${maxMessageBytes}-byte messages`, 'internal', 'fail');
    }
    body = build(letter.data.slice(0, Math.floor(room / 4) * 4), true);
    cutToFit = true;
  }
  const bytes = utf8(body) + attributeBytes;
  if (bytes > maxMessageBytes) {
    throw new FlambdaError(`dead-letter message is ${bytes} bytes, over the ${maxMessageBytes} it was cut for`, 'internal', 'fail');
  }
  return { body, attributes, bytes, dataTruncated: letter.truncated || cutToFit, cutToFit };
}

/** Name, message and retryability of an error thrown by `client.send`. */
function describeCallError(err: unknown): { readonly text: string; readonly retryable: boolean } {
  if (!(err instanceof Error)) return { text: String(err), retryable: false };
  const e = err as Error & { code?: unknown; $fault?: unknown; $retryable?: unknown; $metadata?: { httpStatusCode?: unknown } };
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;
  const retryable =
    RETRYABLE_CALL_ERRORS.has(e.name) ||
    (typeof e.code === 'string' && RETRYABLE_NETWORK_CODES.has(e.code)) ||
    e.$retryable !== undefined ||
    e.$fault === 'server' ||
    (status !== undefined && (status >= 500 || status === 429));
  return { text: `${e.name}: ${e.message}`, retryable };
}

/** Sends dead letters to one SQS queue; see the module header. */
export class SqsDeadLetterQueue {
  /** The queue's URL. */
  readonly queueUrl: string;
  private readonly client: SQSClient;
  private readonly fifo: boolean;
  private readonly maxMessageBytes: number;
  private readonly retry: RetryPolicy;

  /** @throws PlanError for bad options. */
  constructor(options: SqsDeadLetterQueueOptions) {
    if (typeof options.queueUrl !== 'string' || options.queueUrl.length === 0) throw new PlanError('queueUrl must be a non-empty string');
    this.client = options.client;
    this.queueUrl = options.queueUrl;
    this.fifo = options.queueUrl.endsWith('.fifo');
    this.maxMessageBytes = checkIntegerOption('maxMessageBytes', options.maxMessageBytes ?? MAX_SQS_MESSAGE_BYTES, MIN_MESSAGE_BYTES, MAX_SQS_MESSAGE_BYTES);
    this.retry = retryPolicy(options, { maxAttempts: 8, baseDelayMs: 100 });
  }

  /**
   * Sends the letters, 10 per call and at most 256 KiB per call, retrying failed entries.
   *
   * @throws TransientError when an entry still fails after `maxAttempts` attempts (or a
   *   retryable call error persists): letters sent so far stay in the queue, and the handler
   *   should fail its batch so the records are read, and dead-lettered, again.
   * @throws FlambdaError (retry hint `fail`) for an entry SQS rejects as the sender's fault or a
   *   non-retryable call error.
   */
  async send(letters: readonly DeadLetter[]): Promise<DeadLetterSendStats> {
    const stats: DeadLetterSendStats = { messages: 0, calls: 0, retriedEntries: 0, cutToFit: 0 };
    let pending: Outgoing[] = letters.map((letter, i) => {
      const message = deadLetterMessage(letter, this.maxMessageBytes);
      if (message.cutToFit) stats.cutToFit++;
      return { id: `m${i}`, message, letter, failures: 0 };
    });
    while (pending.length > 0) {
      const failed: Outgoing[] = [];
      let lastError = '';
      for (const call of this.packCalls(pending)) {
        const errors = await this.sendBatch(call, stats);
        for (const entry of call) {
          const error = errors.get(entry.id);
          if (error === undefined) {
            stats.messages++;
          } else {
            entry.failures++;
            failed.push(entry);
            lastError = error;
          }
        }
      }
      if (failed.length === 0) break;
      const worst = failed.reduce((a, b) => (b.failures > a.failures ? b : a));
      if (worst.failures >= this.retry.maxAttempts) {
        throw new TransientError(
          `SendMessageBatch to ${this.queueUrl}: the dead letter of ${worst.letter.shardId}@${worst.letter.sequenceNumber} failed ` +
            `${worst.failures} times (last: ${lastError}); ${stats.messages} of ${letters.length} letters were sent before giving up`,
        );
      }
      stats.retriedEntries += failed.length;
      await this.retry.sleep(this.retry.delay(worst.failures));
      pending = failed;
    }
    return stats;
  }

  /** Splits messages into calls of at most 10 entries and 256 KiB. */
  private packCalls(pending: readonly Outgoing[]): Outgoing[][] {
    return packCalls(pending, MAX_SQS_BATCH_ENTRIES, MAX_SQS_MESSAGE_BYTES, (entry) => entry.message.bytes);
  }

  /** One SendMessageBatch call; the error text of each entry that failed retryably, by id. */
  private async sendBatch(call: readonly Outgoing[], stats: DeadLetterSendStats): Promise<Map<string, string>> {
    const entries: SendMessageBatchRequestEntry[] = call.map((entry) => ({
      Id: entry.id,
      MessageBody: entry.message.body,
      MessageAttributes: entry.message.attributes,
      ...(this.fifo
        ? {
            MessageGroupId: this.groupId(entry.letter),
            MessageDeduplicationId: digest([entry.letter.stream, entry.letter.shardId, entry.letter.sequenceNumber]),
          }
        : {}),
    }));
    stats.calls++;
    const errors = new Map<string, string>();
    let output;
    try {
      output = await this.client.send(new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: entries }));
    } catch (err) {
      const { text, retryable } = describeCallError(err);
      if (!retryable) throw new FlambdaError(`SendMessageBatch to ${this.queueUrl} failed: ${text}`, 'external', 'fail', { cause: err });
      for (const entry of call) errors.set(entry.id, text);
      return errors;
    }
    for (const failure of output.Failed ?? []) {
      const text = `${failure.Code ?? 'unknown'}: ${failure.Message ?? ''}`;
      if (failure.SenderFault === true) {
        throw new FlambdaError(`SendMessageBatch to ${this.queueUrl} rejected a dead letter as the sender's fault: ${text}`, 'internal', 'fail');
      }
      if (failure.Id !== undefined) errors.set(failure.Id, text);
    }
    // An entry reported neither way did not verifiably arrive: send it again.
    const succeeded = new Set((output.Successful ?? []).map((s) => s.Id));
    for (const entry of call) {
      if (!succeeded.has(entry.id) && !errors.has(entry.id)) errors.set(entry.id, 'not reported in the response');
    }
    return errors;
  }

  /** The FIFO message group: one per shard, within SQS's 128 characters. */
  private groupId(letter: DeadLetter): string {
    const id = `${letter.stream}/${letter.shardId}`;
    return id.length <= 128 && /^[\x21-\x7e]+$/.test(id) ? id : digest([letter.stream, letter.shardId]);
  }

}
