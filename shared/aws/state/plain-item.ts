/**
 * State items as plain JSON: strings and numbers as DynamoDB writes them, binary chunk data as
 * `{ "B64": base64 }`. One form for every place that stores items inside another item's text —
 * the redo log of a commit (checkpoint/redo-codec.ts) and the changelog segments and key-group
 * pages (shard-state.ts) — so the two can never read each other's items differently.
 */
import { Buffer } from 'node:buffer';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { FlambdaError } from '../../core/errors.ts';

/** A state item with its binary attributes in base64. */
export type PlainItem = Record<string, { S: string } | { N: string } | { B64: string }>;

/**
 * The plain form of `item`; `what` names the stored text in the error (e.g. `redo log`).
 *
 * @throws FlambdaError (internal) for an attribute type state items never use.
 */
export function toPlainItem(item: Record<string, AttributeValue>, what: string): PlainItem {
  const out: PlainItem = {};
  for (const [name, value] of Object.entries(item)) {
    if (value.S !== undefined) out[name] = { S: value.S };
    else if (value.N !== undefined) out[name] = { N: value.N };
    else if (value.B !== undefined) out[name] = { B64: Buffer.from(value.B).toString('base64') };
    else throw new FlambdaError(`${what}: attribute '${name}' has a type the state items never use`, 'internal', 'fail');
  }
  return out;
}

/** The DynamoDB item of a plain one. */
export function fromPlainItem(plain: PlainItem): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [name, value] of Object.entries(plain)) {
    if ('S' in value) out[name] = { S: value.S };
    else if ('N' in value) out[name] = { N: value.N };
    else out[name] = { B: new Uint8Array(Buffer.from(value.B64, 'base64')) };
  }
  return out;
}
