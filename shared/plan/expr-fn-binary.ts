/**
 * The built-ins over binary values (BYTES, VARBINARY(n), BINARY(n), held as lower-case hex; see
 * shared/core/types.ts), as Flink computes them:
 *
 * - `UNHEX(s)`: the bytes of hexadecimal text (either case); an odd length reads as if a `0`
 *   led it (the result is left padded with a zero byte); text that is not hexadecimal gives NULL.
 * - `ENCODE(s, charset)` / `DECODE(b, charset)`: text into and out of bytes in one of the
 *   character sets Flink names — 'US-ASCII', 'ISO-8859-1', 'UTF-8', 'UTF-16BE', 'UTF-16LE',
 *   'UTF-16' (case-insensitive) — as Java's `String.getBytes` and `new String(bytes, charset)`
 *   do: a character the set cannot hold is written as `?`, bytes that are not a character read
 *   as U+FFFD, and 'UTF-16' writes a big-endian byte-order mark and reads one if present. Another
 *   character set is a data error naming it.
 */
import { RecordError } from '../core/errors.ts';
import type { LogicalType } from '../core/types.ts';
import { type Builtin, checkArgs, nullableIf, requireRoots, strict, STRING, STRINGS } from './expr-fn.ts';

/** Flink's BYTES: VARBINARY of the maximum length. */
const BYTES: LogicalType = { root: 'VARBINARY', nullable: false };
const BINARIES = ['VARBINARY'];
const HEX_TEXT = /^[0-9a-fA-F]*$/;

type Charset = 'US-ASCII' | 'ISO-8859-1' | 'UTF-8' | 'UTF-16BE' | 'UTF-16LE' | 'UTF-16';
const CHARSETS: readonly Charset[] = ['US-ASCII', 'ISO-8859-1', 'UTF-8', 'UTF-16BE', 'UTF-16LE', 'UTF-16'];

function charsetOf(name: string, where: string): Charset {
  const upper = name.trim().toUpperCase();
  const found = CHARSETS.find((c) => c === upper);
  if (found === undefined) throw new RecordError(`unsupported character set '${name}' in ${where} (use ${CHARSETS.map((c) => `'${c}'`).join(', ')})`);
  return found;
}

/** UTF-16 code units of `text` as bytes, big- or little-endian. */
function utf16Bytes(text: string, littleEndian: boolean): Buffer {
  const out = Buffer.alloc(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    if (littleEndian) out.writeUInt16LE(text.charCodeAt(i), i * 2);
    else out.writeUInt16BE(text.charCodeAt(i), i * 2);
  }
  return out;
}

/** Characters up to `max` as one byte each, any other character (a surrogate pair once) as `?`. */
function singleByte(text: string, max: number): Buffer {
  const bytes: number[] = [];
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    bytes.push(code <= max ? code : 0x3f);
  }
  return Buffer.from(bytes);
}

function encode(text: string, charset: Charset): Buffer {
  switch (charset) {
    case 'US-ASCII':
      return singleByte(text, 0x7f);
    case 'ISO-8859-1':
      return singleByte(text, 0xff);
    case 'UTF-8':
      return Buffer.from(text, 'utf8');
    case 'UTF-16BE':
      return utf16Bytes(text, false);
    case 'UTF-16LE':
      return utf16Bytes(text, true);
    case 'UTF-16':
      return Buffer.concat([Buffer.from([0xfe, 0xff]), utf16Bytes(text, false)]);
  }
}

function utf16Text(bytes: Buffer, littleEndian: boolean): string {
  let text = '';
  const whole = bytes.length - (bytes.length % 2);
  for (let i = 0; i < whole; i += 2) text += String.fromCharCode(littleEndian ? bytes.readUInt16LE(i) : bytes.readUInt16BE(i));
  // A trailing odd byte is no character.
  return whole < bytes.length ? `${text}\uFFFD` : text;
}

function decode(bytes: Buffer, charset: Charset): string {
  switch (charset) {
    case 'US-ASCII':
      return Array.from(bytes, (b) => (b <= 0x7f ? String.fromCharCode(b) : '\uFFFD')).join('');
    case 'ISO-8859-1':
      return bytes.toString('latin1');
    case 'UTF-8':
      return bytes.toString('utf8');
    case 'UTF-16BE':
      return utf16Text(bytes, false);
    case 'UTF-16LE':
      return utf16Text(bytes, true);
    case 'UTF-16': {
      // A byte-order mark decides and is dropped; without one, big-endian.
      if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return utf16Text(bytes.subarray(2), true);
      if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return utf16Text(bytes.subarray(2), false);
      return utf16Text(bytes, false);
    }
  }
}

/** The binary built-ins by name. */
export const BINARY_FUNCTIONS: Readonly<Record<string, Builtin>> = {
  UNHEX: {
    type: (call, types) => {
      checkArgs(call, 1, 1);
      requireRoots(call, types, STRINGS);
      // NULL for text that is not hexadecimal, whatever the operand's nullability.
      return { ...BYTES, nullable: true };
    },
    evaluator: ({ args }) =>
      strict(args, ([s]) => {
        const text = s as string;
        if (!HEX_TEXT.test(text)) return null;
        return (text.length % 2 === 1 ? `0${text}` : text).toLowerCase();
      }),
  },
  ENCODE: {
    type: (call, types) => {
      checkArgs(call, 2, 2);
      requireRoots(call, types, STRINGS, STRINGS);
      return nullableIf(BYTES, types);
    },
    evaluator: ({ args, where }) => strict(args, ([s, c]) => encode(s as string, charsetOf(c as string, where)).toString('hex')),
  },
  DECODE: {
    type: (call, types) => {
      checkArgs(call, 2, 2);
      requireRoots(call, types, BINARIES, STRINGS);
      return nullableIf(STRING, types);
    },
    evaluator: ({ args, where }) => strict(args, ([b, c]) => decode(Buffer.from(b as string, 'hex'), charsetOf(c as string, where))),
  },
};
