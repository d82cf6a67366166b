/**
 * String built-ins with Flink's documented semantics: REPLACE, REGEXP_REPLACE, LPAD / RPAD,
 * CONCAT_WS, INITCAP, POSITION / LOCATE, TRIM(BOTH | LEADING | TRAILING chars FROM s),
 * LTRIM / RTRIM / BTRIM(s [, chars]), and the
 * hashes MD5 / SHA1 / SHA256 (lower-case hex of the UTF-8 bytes). NULL in gives NULL out unless
 * noted.
 */
import { createHash } from 'node:crypto';
import type { Value } from '../core/types.ts';
import { type Builtin, checkArgs, INT, INTEGERS, keywordArg, nullableIf, requireRoots, strict, STRING, STRINGS } from './expr-fn.ts';
import { compileRegExp, trimSpaces } from './expr-strings.ts';

/** Java's `String.replace`: every occurrence, left to right; an empty target goes between every char and at both ends. */
function replaceAll(s: string, target: string, replacement: string): string {
  if (target === '') return replacement + [...s].join(replacement) + (s === '' ? '' : replacement);
  return s.split(target).join(replacement);
}

/** Flink's LPAD: NULL for a negative length or an empty pad; a longer string is cut to `len`. */
function lpad(s: string, len: number, pad: string): string | null {
  if (len < 0 || pad === '') return null;
  if (len <= s.length) return s.slice(0, len);
  const need = len - s.length;
  return pad.repeat(Math.ceil(need / pad.length)).slice(0, need) + s;
}

/** Flink's RPAD, as LPAD on the right. */
function rpad(s: string, len: number, pad: string): string | null {
  if (len < 0 || pad === '') return null;
  if (len <= s.length) return s.slice(0, len);
  const need = len - s.length;
  return s + pad.repeat(Math.ceil(need / pad.length)).slice(0, need);
}

/** Calcite's INITCAP: the first ASCII letter of each run of letters and digits upper case, the rest lower. */
function initcap(s: string): string {
  let out = '';
  let start = true;
  for (const ch of s) {
    const alnum = /[A-Za-z0-9]/.test(ch);
    if (!alnum) {
      start = true;
      out += ch;
    } else {
      out += start ? ch.toUpperCase() : ch.toLowerCase();
      start = false;
    }
  }
  return out;
}

/** TRIM with a set of characters from one or both ends. */
function trimChars(s: string, chars: string, leading: boolean, trailing: boolean): string {
  const set = new Set(chars);
  const cps = [...s];
  let a = 0;
  let b = cps.length;
  if (leading) while (a < b && set.has(cps[a]!)) a++;
  if (trailing) while (b > a && set.has(cps[b - 1]!)) b--;
  return cps.slice(a, b).join('');
}

/**
 * LTRIM / RTRIM / BTRIM `(s [, chars])`: the characters of `chars` — spaces when absent, as
 * TRIM — removed from the start, the end or both. The result keeps the operand's type.
 */
function sideTrim(leading: boolean, trailing: boolean): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, 1, 2);
      requireRoots(call, types, STRINGS);
      return nullableIf(types[0]!, types);
    },
    evaluator: ({ args }) => strict(args, ([s, chars]) => (chars === undefined ? trimSpaces(s as string, leading, trailing) : trimChars(s as string, chars as string, leading, trailing))),
  };
}

function hash(algorithm: string): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, 1, 1);
      requireRoots(call, types, STRINGS);
      return nullableIf(STRING, types);
    },
    evaluator: ({ args }) => strict(args, ([s]) => createHash(algorithm).update(s as string, 'utf8').digest('hex')),
  };
}

function pad(left: boolean): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, 3, 3);
      requireRoots(call, types, STRINGS, INTEGERS, STRINGS);
      return { ...STRING, nullable: true };
    },
    evaluator: ({ args }) => strict(args, ([s, n, p]) => (left ? lpad : rpad)(s as string, n as number, p as string)),
  };
}

/** 1-based index of `needle` in `s` from `from` (1-based), 0 when absent; an empty needle is found at `from`. */
function position(needle: string, s: string, from = 1): number {
  if (from < 1) return 0;
  const k = s.indexOf(needle, from - 1);
  return k < 0 ? 0 : k + 1;
}

/** The string built-ins by name. */
export const STRING_FUNCTIONS: Readonly<Record<string, Builtin>> = {
  REPLACE: {
    type: (call, types) => {
      checkArgs(call, 3, 3);
      requireRoots(call, types, STRINGS);
      return nullableIf(STRING, types);
    },
    evaluator: ({ args }) => strict(args, ([s, t, r]) => replaceAll(s as string, t as string, r as string)),
  },
  REGEXP_REPLACE: {
    // Flink returns NULL for a pattern it cannot compile.
    type: (call, types) => {
      checkArgs(call, 3, 3);
      requireRoots(call, types, STRINGS);
      return { ...STRING, nullable: true };
    },
    evaluator: ({ args }) => {
      const cache = new Map<string, RegExp | null>();
      return strict(args, ([s, re, r]) => {
        let regex = cache.get(re as string);
        if (regex === undefined) {
          const compiled = compileRegExp(re as string);
          regex = compiled === undefined ? null : new RegExp(compiled.source, 'g');
          if (cache.size > 64) cache.clear();
          cache.set(re as string, regex);
        }
        return regex === null ? null : (s as string).replace(regex, r as string);
      });
    },
  },
  LPAD: pad(true),
  RPAD: pad(false),
  CONCAT_WS: {
    // NULL separator → NULL; NULL strings are skipped, empty ones are not.
    type: (call, types) => {
      checkArgs(call, 1, Infinity);
      requireRoots(call, types, STRINGS);
      return nullableIf(STRING, types.slice(0, 1));
    },
    evaluator: ({ args }) => {
      const [sep, ...rest] = args.map((a) => a.fn);
      return (row) => {
        const s = sep!(row);
        if (s === null) return null;
        const parts: string[] = [];
        for (const f of rest) {
          const v = f(row);
          if (v !== null) parts.push(v as string);
        }
        return parts.join(s as string);
      };
    },
  },
  INITCAP: {
    type: (call, types) => {
      checkArgs(call, 1, 1);
      requireRoots(call, types, STRINGS);
      return nullableIf(STRING, types);
    },
    evaluator: ({ args }) => strict(args, ([s]) => initcap(s as string)),
  },
  POSITION: {
    type: (call, types) => {
      checkArgs(call, 2, 3);
      requireRoots(call, types, STRINGS, STRINGS, INTEGERS);
      return nullableIf(INT, types);
    },
    evaluator: ({ args }) => strict(args, ([n, s, from]) => position(n as string, s as string, from as number | undefined)),
  },
  LOCATE: {
    type: (call, types) => {
      checkArgs(call, 2, 3);
      requireRoots(call, types, STRINGS, STRINGS, INTEGERS);
      return nullableIf(INT, types);
    },
    evaluator: ({ args }) => strict(args, ([n, s, from]) => position(n as string, s as string, from as number | undefined)),
  },
  'TRIM FROM': {
    type: (call, types) => {
      checkArgs(call, 3, 3);
      requireRoots(call, types, STRINGS);
      keywordArg(call, 0, ['BOTH', 'LEADING', 'TRAILING'], 'BOTH, LEADING or TRAILING');
      return nullableIf(types[2]!, types.slice(1));
    },
    evaluator: ({ call, args }) => {
      const side = keywordArg(call, 0, ['BOTH', 'LEADING', 'TRAILING'], 'BOTH, LEADING or TRAILING');
      return strict(args.slice(1), ([chars, s]: Value[]) => trimChars(s as string, chars as string, side !== 'TRAILING', side !== 'LEADING'));
    },
  },
  LTRIM: sideTrim(true, false),
  RTRIM: sideTrim(false, true),
  BTRIM: sideTrim(true, true),
  OVERLAY: {
    // OVERLAY(s PLACING r FROM pos [FOR len]): `len` characters of s from pos replaced by r (len defaults to r's length).
    type: (call, types) => {
      checkArgs(call, 3, 4);
      requireRoots(call, types, STRINGS, STRINGS, INTEGERS);
      return nullableIf(STRING, types);
    },
    evaluator: ({ args }) =>
      strict(args, ([s, r, from, len]) => {
        const cps = [...(s as string)];
        const start = Math.max((from as number) - 1, 0);
        const n = len === undefined ? [...(r as string)].length : (len as number);
        return cps.slice(0, start).join('') + (r as string) + cps.slice(start + Math.max(n, 0)).join('');
      }),
  },
  MD5: hash('md5'),
  SHA1: hash('sha1'),
  SHA256: hash('sha256'),
};
