/**
 * More string built-ins of Flink's function tables, with its semantics (NULL in, NULL out unless
 * noted):
 *
 * - `INSTR(s, sub)`: the 1-based position of the first `sub` in `s`, 0 when absent.
 * - `STARTSWITH(s, prefix)`, `ENDSWITH(s, suffix)`: BOOLEAN; an empty prefix or suffix matches.
 * - `TRANSLATE(s, from, to)`: each character of `from` replaced by the one at the same position
 *   in `to`, removed when `to` is shorter (the first mapping of a repeated character wins); an
 *   empty or NULL `s` or `from` gives `s` unchanged, a NULL `to` removes (Flink's
 *   TranslateFunction).
 * - `ELT(n, s1, s2, …)`: the n-th string, NULL for an index out of range.
 * - `IS_DECIMAL(s)`: whether `s` reads as a number as Java parses an int, a long or a double
 *   (`1.5`, `-2e3`, ` 7 `, `NaN`, `1d`, but not `0x1F` or `10L`); FALSE for NULL and ''.
 * - `SPLIT(s, delimiter)`: ARRAY<STRING> of the parts between every occurrence of the delimiter,
 *   empty parts kept; an empty delimiter splits into characters; the empty string gives an empty
 *   array.
 * - `STR_TO_MAP(s [, pairDelimiter, keyValueDelimiter])`: MAP<STRING, STRING> from `k=v,k2=v2`;
 *   both delimiters are Java regular expressions (`,` and `=` by default), a pair without the
 *   key-value delimiter maps its text to NULL, a later key wins; the empty string gives an empty
 *   map.
 * - `URL_ENCODE(s)` / `URL_DECODE(s)`: Java's URLEncoder / URLDecoder in UTF-8
 *   (application/x-www-form-urlencoded: a space is `+`); an invalid escape gives NULL.
 * - `PARSE_URL(url, part [, key])`: the HOST, PATH, QUERY, REF, PROTOCOL, AUTHORITY, FILE or
 *   USERINFO of the URL as `java.net.URL` parses it (http, https, ftp, file, jar and mailto; NULL
 *   for anything else or a part the URL lacks), or with a key the value of that query parameter.
 * - `PRINTF(format, args…)`: Java's String.format (java-format.ts); NULL for a NULL format.
 * - `SHA224`, `SHA384`, `SHA512`, `SHA2(s, bits)`: lower-case hex digests of the UTF-8 bytes.
 * - `CURRENT_DATABASE()`: `default_database`, the database Flink's default catalog starts in.
 */
import { createHash } from 'node:crypto';
import { PlanError, RecordError } from '../core/errors.ts';
import type { LogicalType, Row, Value } from '../core/types.ts';
import type { Call } from './expr.ts';
import { printExpr } from './expr-print.ts';
import { BOOLEAN, type Builtin, checkArgs, type FnArg, INT, INTEGERS, nullableIf, requireRoots, strict, STRING, STRINGS } from './expr-fn.ts';
import { compileRegExp } from './expr-strings.ts';
import { commonTypeOfOperands } from './expr-type-rules.ts';
import { checkJavaFormat, type FormatArg, javaFormat, JavaFormatError } from './java-format.ts';

/** A function of strings: `arity` STRING operands (the last ones optional from `min`), NULL in, NULL out. */
function stringFn(min: number, max: number, result: LogicalType, op: (...args: string[]) => Value): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, min, max);
      requireRoots(call, types, STRINGS);
      return nullableIf(result, types);
    },
    evaluator: ({ args }) => strict(args, (vs) => op(...(vs as string[]))),
  };
}

/** TRANSLATE's map from a character of `from` to its replacement ('' to remove it). */
function translation(from: string, to: string): Map<string, string> {
  const dict = new Map<string, string>();
  const target = [...to];
  [...from].forEach((c, i) => {
    if (!dict.has(c)) dict.set(c, target[i] ?? '');
  });
  return dict;
}

/**
 * What Java's `Double.parseDouble` reads (after trimming): a decimal number with an optional
 * exponent and `d`/`f` suffix, a hexadecimal floating-point number (`0x1.8p1`), NaN, Infinity.
 * Flink's IS_DECIMAL accepts a string `Integer.parseInt`, `Long.parseLong` or this reads.
 */
const JAVA_DOUBLE = /^[+-]?(?:NaN|Infinity|(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+)[dDfF]?)$/;

/** `SPLIT`: Apache Commons' splitByWholeSeparatorPreserveAllTokens, or code points for an empty delimiter. */
function split(s: string, delimiter: string): string[] {
  if (s === '') return [];
  return delimiter === '' ? [...s] : s.split(delimiter);
}

/**
 * Java's `String.split(regex, limit)`: the parts between matches; a zero-width match at the start
 * adds no empty first part; with limit 0 trailing empty parts are dropped, with a positive limit
 * there are at most that many parts.
 */
function javaSplit(s: string, regex: RegExp, limit = 0): string[] {
  const re = new RegExp(regex.source, 'g');
  const parts: string[] = [];
  let start = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    if (m[0] === '') {
      re.lastIndex++;
      if (m.index === 0 || m.index >= s.length) continue;
    }
    if (limit > 0 && parts.length === limit - 1) break;
    parts.push(s.slice(start, m.index));
    start = m.index + m[0].length;
  }
  parts.push(s.slice(start));
  if (limit === 0) while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (limit === 0 && parts.length === 1 && parts[0] === '' && s !== '') return [];
  return parts;
}

/** STR_TO_MAP of one row. */
function strToMap(text: string, pairs: RegExp, keyValue: RegExp): Record<string, Value> {
  const out: Record<string, Value> = {};
  if (text === '') return out;
  for (const pair of javaSplit(text, pairs)) {
    const kv = javaSplit(pair, keyValue, 2);
    const [key, value] = kv.length < 2 ? [pair, null] : [kv[0]!, kv[1]!];
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Java's URLEncoder.encode(s, UTF-8): letters, digits and `.-*_` kept, space as `+`, the rest as %XX of the UTF-8 bytes. */
function urlEncode(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9.\-*_]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Java's URLDecoder.decode(s, UTF-8); null for an incomplete or non-hex escape (Flink returns NULL). */
function urlDecode(s: string): string | null {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '+') {
      out += ' ';
      i++;
    } else if (c === '%') {
      // A run of escapes is one UTF-8 byte sequence (invalid bytes decode to U+FFFD, as in Java).
      const bytes: number[] = [];
      while (i < s.length && s[i] === '%') {
        const hex = s.slice(i + 1, i + 3);
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) return null;
        bytes.push(parseInt(hex, 16));
        i += 3;
      }
      out += Buffer.from(bytes).toString('utf8');
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The protocols `java.net.URL` has handlers for (any other is a MalformedURLException: NULL). */
const URL_PROTOCOLS = new Set(['http', 'https', 'ftp', 'file', 'jar', 'mailto']);

/** The parts of a URL as `java.net.URL` reports them (`undefined` where Java returns null). */
interface UrlParts {
  protocol: string;
  host: string;
  path: string;
  query?: string;
  ref?: string;
  authority?: string;
  userInfo?: string;
}

/** `String.trim()`: the characters up to U+0020 removed from both ends. */
function javaTrim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 0x20) a++;
  while (b > a && s.charCodeAt(b - 1) <= 0x20) b--;
  return s.slice(a, b);
}

/** Parses a URL the way `java.net.URL(String)` does (without resolving or normalizing anything); undefined when Java rejects it. */
function parseJavaUrl(text: string): UrlParts | undefined {
  // Java trims the characters up to U+0020 from both ends first.
  let spec = javaTrim(text);
  if (/^url:/i.test(spec)) spec = spec.slice(4);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(spec);
  if (!scheme) return undefined;
  const protocol = scheme[1]!.toLowerCase();
  if (!URL_PROTOCOLS.has(protocol)) return undefined;
  let rest = spec.slice(scheme[0].length);
  const parts: UrlParts = { protocol, host: '', path: '' };
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    parts.ref = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/?]/);
    const authority = end < 0 ? rest.slice(2) : rest.slice(2, end + 2);
    rest = end < 0 ? '' : rest.slice(end + 2);
    parts.authority = authority;
    let hostPort = authority;
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      parts.userInfo = authority.slice(0, at);
      hostPort = authority.slice(at + 1);
    }
    const bracket = hostPort.startsWith('[') ? hostPort.indexOf(']') : -1;
    if (hostPort.startsWith('[') && bracket < 0) return undefined;
    const colon = hostPort.indexOf(':', bracket < 0 ? 0 : bracket);
    parts.host = colon < 0 ? hostPort : hostPort.slice(0, colon);
    // A port that is not a number is a MalformedURLException.
    if (colon >= 0 && !/^\d*$/.test(hostPort.slice(colon + 1))) return undefined;
  }
  const question = rest.indexOf('?');
  if (question >= 0) {
    parts.query = rest.slice(question + 1);
    rest = rest.slice(0, question);
  }
  parts.path = rest;
  return parts;
}

/** PARSE_URL's part of a URL, or null. */
function urlPart(url: string, part: string): string | null {
  const u = parseJavaUrl(url);
  if (u === undefined) return null;
  switch (part) {
    case 'HOST':
      return u.host;
    case 'PATH':
      return u.path;
    case 'QUERY':
      return u.query ?? null;
    case 'REF':
      return u.ref ?? null;
    case 'PROTOCOL':
      return u.protocol;
    case 'FILE':
      return u.query === undefined ? u.path : `${u.path}?${u.query}`;
    case 'AUTHORITY':
      return u.authority ?? null;
    case 'USERINFO':
      return u.userInfo ?? null;
    default:
      return null;
  }
}

/** PARSE_URL(url, 'QUERY', key): the first `key=value` of the query (Flink's `(&|^)key=([^&]*)`). */
function queryParameter(url: string, key: string): string | null {
  const query = urlPart(url, 'QUERY');
  if (query === null) return null;
  for (const pair of query.split('&')) {
    if (pair.startsWith(`${key}=`)) return pair.slice(key.length + 1);
  }
  return null;
}

/** A regular expression operand: compiled once for a constant, per row otherwise; null when it does not compile. */
function regexOf(arg: FnArg | undefined, fallback: string): (row: Row) => RegExp | null | undefined {
  if (arg === undefined) {
    const re = compileRegExp(fallback)!;
    return () => re;
  }
  if (arg.constant !== undefined) {
    const source = arg.constant.value;
    const re = source === null ? undefined : (compileRegExp(source as string) ?? null);
    return () => re;
  }
  const f = arg.fn;
  return (row) => {
    const source = f(row);
    return source === null ? undefined : (compileRegExp(source as string) ?? null);
  };
}

/** The bit length of SHA2: 224, 256, 384 or 512. */
const SHA2_BITS = [224, 256, 384, 512];

function digest(algorithm: string): Builtin {
  return stringFn(1, 1, STRING, (s) => createHash(algorithm).update(s, 'utf8').digest('hex'));
}

/** The format of a PRINTF call when it is a literal (checked against the argument types when the query is planned). */
function literalFormat(call: Call): string | undefined {
  const f = call.args[0];
  return f?.kind === 'literal' && typeof f.value === 'string' ? f.value : undefined;
}

/** The text built-ins by name. */
export const TEXT_FUNCTIONS: Readonly<Record<string, Builtin>> = {
  INSTR: stringFn(2, 2, INT, (s, sub) => s.indexOf(sub) + 1),
  STARTSWITH: stringFn(2, 2, BOOLEAN, (s, prefix) => s.startsWith(prefix)),
  ENDSWITH: stringFn(2, 2, BOOLEAN, (s, suffix) => s.endsWith(suffix)),
  TRANSLATE: {
    type: (call, types) => {
      checkArgs(call, 3, 3);
      requireRoots(call, types, STRINGS);
      return nullableIf(STRING, types.slice(0, 1));
    },
    evaluator: ({ args }) => {
      const [fs, ffrom, fto] = args.map((a) => a.fn) as [FnArg['fn'], FnArg['fn'], FnArg['fn']];
      let cached: { key: string; dict: Map<string, string> } | undefined;
      return (row) => {
        const s = fs(row);
        const from = ffrom(row);
        if (s === null || from === null || s === '' || from === '') return s;
        const to = (fto(row) ?? '') as string;
        const key = JSON.stringify([from, to]);
        if (cached?.key !== key) cached = { key, dict: translation(from as string, to) };
        const dict = cached.dict;
        let out = '';
        for (const c of s as string) out += dict.get(c) ?? c;
        return out;
      };
    },
  },
  ELT: {
    type: (call, types) => {
      checkArgs(call, 2, Infinity);
      requireRoots(call, types, INTEGERS, STRINGS);
      const indices = call.args.map((_, i) => i).slice(1);
      return { ...commonTypeOfOperands(call, types, indices), nullable: true };
    },
    evaluator: ({ args, type, coerce }) => {
      const index = args[0]!.fn;
      const values = args.slice(1).map((a) => coerce(a, type).fn);
      return (row) => {
        const n = index(row);
        if (n === null || (n as number) < 1 || (n as number) > values.length) return null;
        return values[(n as number) - 1]!(row);
      };
    },
  },
  IS_DECIMAL: {
    type: (call, types) => {
      checkArgs(call, 1, 1);
      requireRoots(call, types, STRINGS);
      return BOOLEAN;
    },
    evaluator: ({ args }) => {
      const f = args[0]!.fn;
      return (row) => {
        const s = f(row);
        return s !== null && s !== '' && JAVA_DOUBLE.test(javaTrim(s as string));
      };
    },
  },
  SPLIT: stringFn(2, 2, { root: 'ARRAY', nullable: false, element: { ...STRING, nullable: true } }, split),
  STR_TO_MAP: {
    type: (call, types) => {
      if (call.args.length === 2) throw new PlanError(`'STR_TO_MAP' takes 1 or 3 arguments (the text, or the text and both delimiters), got 2 in ${printExpr(call)}`);
      checkArgs(call, 1, 3);
      requireRoots(call, types, STRINGS);
      return nullableIf({ root: 'MAP', nullable: false, key: STRING, value: { ...STRING, nullable: true } }, types);
    },
    evaluator: ({ args, where }) => {
      const text = args[0]!.fn;
      const pairs = regexOf(args[1], ',');
      const keyValue = regexOf(args[2], '=');
      return (row) => {
        const s = text(row);
        const p = pairs(row);
        const kv = keyValue(row);
        if (s === null || p === undefined || kv === undefined) return null;
        if (p === null || kv === null) throw new RecordError(`a delimiter of ${where} is not a valid regular expression`);
        return strToMap(s as string, p, kv);
      };
    },
  },
  URL_ENCODE: stringFn(1, 1, { ...STRING, nullable: true }, (s) => {
    try {
      return urlEncode(s);
    } catch {
      return null;
    }
  }),
  URL_DECODE: stringFn(1, 1, { ...STRING, nullable: true }, urlDecode),
  PARSE_URL: stringFn(2, 3, { ...STRING, nullable: true }, (url, part, key) => (key === undefined ? urlPart(url, part) : part === 'QUERY' ? queryParameter(url, key) : null)),
  PRINTF: {
    type: (call, types) => {
      checkArgs(call, 1, Infinity);
      requireRoots(call, types.slice(0, 1), STRINGS);
      const format = literalFormat(call);
      if (format !== undefined) {
        try {
          checkJavaFormat(format, types.slice(1));
        } catch (err) {
          if (err instanceof JavaFormatError) throw new PlanError(`${err.message} in ${printExpr(call)}`);
          throw err;
        }
      }
      return nullableIf(STRING, types.slice(0, 1));
    },
    evaluator: ({ args, where }) => {
      const format = args[0]!.fn;
      const rest = args.slice(1);
      return (row) => {
        const f = format(row);
        if (f === null) return null;
        const values: FormatArg[] = rest.map((a) => ({ value: a.fn(row), type: a.type }));
        try {
          return javaFormat(f as string, values);
        } catch (err) {
          if (err instanceof JavaFormatError) throw new RecordError(`${err.message} in ${where}`);
          throw err;
        }
      };
    },
  },
  SHA224: digest('sha224'),
  SHA384: digest('sha384'),
  SHA512: digest('sha512'),
  SHA2: {
    type: (call, types) => {
      checkArgs(call, 2, 2);
      requireRoots(call, types, STRINGS, INTEGERS);
      const bits = call.args[1];
      if (bits?.kind === 'literal' && bits.value !== null && !SHA2_BITS.includes(bits.value as number)) {
        throw new PlanError(`SHA2 takes a bit length of 224, 256, 384 or 512, got ${String(bits.value)} in ${printExpr(call)}`);
      }
      return nullableIf(STRING, types);
    },
    evaluator: ({ args, where }) =>
      strict(args, ([s, bits]) => {
        if (!SHA2_BITS.includes(bits as number)) throw new RecordError(`SHA2 takes a bit length of 224, 256, 384 or 512, got ${String(bits)} in ${where}`);
        return createHash(`sha${String(bits)}`).update(s as string, 'utf8').digest('hex');
      }),
  },
  CURRENT_DATABASE: {
    type: (call) => {
      checkArgs(call, 0, 0);
      return STRING;
    },
    evaluator: () => () => 'default_database',
  },
};
