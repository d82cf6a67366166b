/**
 * The redo log of one commit as text: the state item writes of a batch (three ordered phases of
 * BatchWriteItem requests, see DynamoDbStateStore.prepareFlush), made durable before they are
 * applied so that a crash in the middle of applying them can be finished by the next invocation
 * (docs/effectively-once.md).
 *
 * Items hold strings, numbers and binary chunk data; the text is the value codec's JSON with
 * each binary attribute as `{ "B64": base64 }`, so it can be stored as one string attribute.
 */
import type { WriteRequest } from '@aws-sdk/client-dynamodb';
import { FlambdaError } from '../../core/errors.ts';
import { fromPlainItem, toPlainItem, type PlainItem } from '../state/plain-item.ts';
import { decodeValue, encodeValue } from '../state/value-codec.ts';

/** The ordered write phases of a commit. */
export type RedoPhases = readonly (readonly WriteRequest[])[];

type PlainRequest = { put: PlainItem } | { del: PlainItem };

/** Encodes write phases as text. */
export function encodeRedo(phases: RedoPhases): string {
  const plain: PlainRequest[][] = phases.map((phase) =>
    phase.map((request) => {
      if (request.PutRequest?.Item !== undefined) return { put: toPlainItem(request.PutRequest.Item, 'redo log') };
      if (request.DeleteRequest?.Key !== undefined) return { del: toPlainItem(request.DeleteRequest.Key, 'redo log') };
      throw new FlambdaError('redo log: a write request is neither a put nor a delete', 'internal', 'fail');
    }),
  );
  return encodeValue(plain);
}

/** Decodes what {@link encodeRedo} wrote. @throws FlambdaError for text it did not write. */
export function decodeRedo(text: string): WriteRequest[][] {
  let plain: unknown;
  try {
    plain = decodeValue(text);
  } catch (error) {
    throw new FlambdaError(`redo log is corrupt: ${(error as Error).message}`, 'internal', 'fail', { cause: error });
  }
  if (!Array.isArray(plain)) throw new FlambdaError('redo log is corrupt: not a list of phases', 'internal', 'fail');
  return (plain as PlainRequest[][]).map((phase) =>
    phase.map((request) => ('put' in request ? { PutRequest: { Item: fromPlainItem(request.put) } } : { DeleteRequest: { Key: fromPlainItem(request.del) } })),
  );
}

/** Number of write requests in the phases. */
export function countWrites(phases: RedoPhases): number {
  let n = 0;
  for (const phase of phases) n += phase.length;
  return n;
}
