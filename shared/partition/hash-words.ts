/**
 * A 128-bit hash key as four unsigned 32-bit words, most significant first: the form the MD5 fast
 * path produces, so range and key-group lookups can compare plain numbers and build a BigInt only
 * in the rare case where the leading bits tie.
 */
import { FlambdaError } from '../core/errors.ts';
import { MAX_HASH_KEY } from './kinesis-hash.ts';

const WORD_MASK = 0xffffffffn;

/** Splits a hash key into four unsigned 32-bit words, most significant first. */
export function hashKeyWords(hash: bigint): [number, number, number, number] {
  if (typeof hash !== 'bigint' || hash < 0n || hash > MAX_HASH_KEY) {
    throw new FlambdaError(`hash key must be a bigint in 0..2^128-1, got ${String(hash)}`, 'internal', 'fail');
  }
  return [
    Number(hash >> 96n),
    Number((hash >> 64n) & WORD_MASK),
    Number((hash >> 32n) & WORD_MASK),
    Number(hash & WORD_MASK),
  ];
}

/** Joins four unsigned 32-bit words, most significant first, into a hash key. */
export function wordsToHashKey(w0: number, w1: number, w2: number, w3: number): bigint {
  return (BigInt(w0) << 96n) | (BigInt(w1) << 64n) | (BigInt(w2) << 32n) | BigInt(w3);
}
