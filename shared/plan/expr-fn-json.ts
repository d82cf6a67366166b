/**
 * The JSON built-ins with Flink's (SQL/JSON) semantics: JSON_VALUE, JSON_QUERY, JSON_EXISTS,
 * JSON_OBJECT, JSON_ARRAY, JSON_STRING, JSON_QUOTE, JSON_UNQUOTE and IS JSON. Paths are SQL/JSON paths: an optional `lax` (the default)
 * or `strict` mode, then `$` and steps `.key`, `."key"`, `['key']`, `[n]`, `[*]`, `.*`. In lax
 * mode a missing step is an empty result (the ON EMPTY behaviour, NULL by default), in strict
 * mode an error (the ON ERROR behaviour, NULL by default — FALSE for JSON_EXISTS). The
 * clauses arrive as keyword operands (`RETURNING INT`, `DEFAULT ON EMPTY` and its value, …)
 * after the document and the path.
 */
import { PlanError, RecordError } from '../core/errors.ts';
import { formatDecimal } from '../core/decimal.ts';
import { formatTimestamp } from '../core/timestamp.ts';
import { parseType } from '../core/type-parse.ts';
import type { Multiset } from '../core/multiset.ts';
import type { LogicalType, Row, Value } from '../core/types.ts';
import { castConverter, formatDouble, formatFloat } from './expr-cast.ts';
import { typeName } from './expr-type-rules.ts';
import type { Call, Expr } from './expr.ts';
import { printExpr } from './expr-print.ts';
import { BOOLEAN, type Builtin, checkArgs, type FnArg, nullableIf, requireRoots, strict, STRING, STRINGS } from './expr-fn.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Step = { readonly key: string } | { readonly index: number } | { readonly wildcard: true };
interface JsonPath {
  readonly strict: boolean;
  readonly steps: readonly Step[];
}

/** Thrown inside the JSON functions for an error the ON ERROR clause handles. */
class JsonError extends Error {}

function parsePath(text: string): JsonPath {
  let s = text.trim();
  let strict = false;
  const mode = /^(lax|strict)\s+/i.exec(s);
  if (mode) {
    strict = mode[1]!.toLowerCase() === 'strict';
    s = s.slice(mode[0].length);
  }
  if (!s.startsWith('$')) throw new JsonError(`a JSON path starts with $: '${text}'`);
  const steps: Step[] = [];
  let i = 1;
  while (i < s.length) {
    const c = s[i]!;
    if (c === ' ') {
      i++;
    } else if (c === '.' && s[i + 1] === '[') {
      // `$.["a.b"]`: the bracket step after a dot.
      i++;
    } else if (c === '.') {
      if (s[i + 1] === '*') {
        steps.push({ wildcard: true });
        i += 2;
      } else if (s[i + 1] === '"') {
        const close = s.indexOf('"', i + 2);
        if (close < 0) throw new JsonError(`unterminated key in JSON path '${text}'`);
        steps.push({ key: s.slice(i + 2, close) });
        i = close + 1;
      } else {
        const m = /^[A-Za-z_$][\w$]*/.exec(s.slice(i + 1));
        if (!m) throw new JsonError(`expected a key after '.' in JSON path '${text}'`);
        steps.push({ key: m[0] });
        i += 1 + m[0].length;
      }
    } else if (c === '[') {
      const close = s.indexOf(']', i);
      if (close < 0) throw new JsonError(`unterminated [ in JSON path '${text}'`);
      const inner = s.slice(i + 1, close).trim();
      if (inner === '*') steps.push({ wildcard: true });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ key: inner.slice(1, -1) });
      else if (/^\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else throw new JsonError(`unsupported step [${inner}] in JSON path '${text}'`);
      i = close + 1;
    } else {
      throw new JsonError(`unexpected '${c}' in JSON path '${text}'`);
    }
  }
  return { strict, steps };
}

/** The items a path selects (several after a wildcard). */
function evaluatePath(doc: Json, path: JsonPath): Json[] {
  let items: Json[] = [doc];
  for (const step of path.steps) {
    const next: Json[] = [];
    for (const item of items) {
      if ('wildcard' in step) {
        if (Array.isArray(item)) next.push(...item);
        else if (item !== null && typeof item === 'object') next.push(...Object.values(item));
        else if (path.strict) throw new JsonError('a wildcard step on a scalar');
      } else if ('key' in step) {
        if (item !== null && typeof item === 'object' && !Array.isArray(item) && Object.hasOwn(item, step.key)) next.push(item[step.key]!);
        else if (path.strict) throw new JsonError(`no key '${step.key}'`);
      } else if (Array.isArray(item) && step.index < item.length) {
        next.push(item[step.index]!);
      } else if (path.strict) {
        throw new JsonError(`no element [${step.index}]`);
      }
    }
    items = next;
  }
  return items;
}

function parseJson(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    throw new JsonError('the input is not JSON');
  }
}

/** The clauses after the document and the path. */
interface Clauses {
  returning?: LogicalType;
  wrapper: 'WITHOUT' | 'CONDITIONAL' | 'UNCONDITIONAL';
  onEmpty: { kind: string; value?: number };
  onError: { kind: string; value?: number };
}

function readClauses(call: Call, defaults: { onEmpty: string; onError: string }): Clauses {
  const out: Clauses = { wrapper: 'WITHOUT', onEmpty: { kind: defaults.onEmpty }, onError: { kind: defaults.onError } };
  for (let i = 2; i < call.args.length; i++) {
    const a = call.args[i]!;
    const word = a.kind === 'literal' && typeof a.value === 'string' ? a.value : undefined;
    if (word === undefined) throw new PlanError(`unexpected operand ${printExpr(a)} in ${printExpr(call)}`);
    if (word.startsWith('RETURNING ')) out.returning = parseType(word.slice('RETURNING '.length));
    else if (word.endsWith(' WRAPPER')) out.wrapper = word === 'WITHOUT WRAPPER' ? 'WITHOUT' : word.includes('UNCONDITIONAL') ? 'UNCONDITIONAL' : 'CONDITIONAL';
    else {
      const m = /^(.*) ON (EMPTY|ERROR)$/.exec(word);
      if (!m) throw new PlanError(`unexpected clause '${word}' in ${printExpr(call)}`);
      const behaviour = { kind: m[1]!, ...(m[1] === 'DEFAULT' ? { value: ++i } : {}) };
      if (m[2] === 'EMPTY') out.onEmpty = behaviour;
      else out.onError = behaviour;
    }
  }
  return out;
}

/** The value of an ON EMPTY / ON ERROR behaviour. */
function behave(b: { kind: string; value?: number }, args: readonly FnArg[], row: Row, what: string): Value {
  switch (b.kind) {
    case 'NULL':
    case 'UNKNOWN':
      return null;
    case 'TRUE':
      return true;
    case 'FALSE':
      return false;
    case 'EMPTY ARRAY':
      return '[]';
    case 'EMPTY OBJECT':
      return '{}';
    case 'DEFAULT':
      return args[b.value!]!.fn(row);
    default:
      throw new RecordError(what);
  }
}

/** A scalar JSON item as SQL text (JSON_VALUE's STRING result). */
function scalarText(v: Json): string | null {
  if (v === null) return null;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * A TIMESTAMP as Flink's JSON functions write it: Java's ISO_LOCAL_DATE_TIME
 * (`2024-01-01T10:00:00`, fraction digits only as needed: `…:00.5`).
 */
function isoLocalDateTime(ms: number): string {
  const [date = '', time = ''] = formatTimestamp(ms).split(' ');
  return `${date}T${time.replace(/\.(\d*?)0*$/, (_m, digits: string) => (digits === '' ? '' : `.${digits}`))}`;
}

/**
 * Why a value of type `t` cannot go into JSON, or undefined when it can: Flink's JSON functions
 * have no JSON form for DATE and TIME (JsonGenerateUtils rejects them when the call is planned),
 * at any depth of a ROW, ARRAY, MAP or MULTISET.
 */
function jsonValueProblem(t: LogicalType): string | undefined {
  switch (t.root) {
    case 'DATE':
    case 'TIME':
      return `Type '${typeName(t)}' is not scalar or cannot be converted into JSON`;
    case 'ROW':
      for (const f of t.fields ?? []) {
        const problem = jsonValueProblem(f.type);
        if (problem !== undefined) return problem;
      }
      return undefined;
    case 'ARRAY':
    case 'MULTISET':
      return t.element === undefined ? undefined : jsonValueProblem(t.element);
    case 'MAP':
      return t.value === undefined ? undefined : jsonValueProblem(t.value);
    default:
      return undefined;
  }
}

/** Rejects a JSON function call whose value operands (`types`) have no JSON form. */
function requireJsonValues(call: Call, types: readonly LogicalType[]): void {
  for (const t of types) {
    const problem = jsonValueProblem(t);
    if (problem !== undefined) throw new PlanError(`${problem}: ${printExpr(call)}`);
  }
}

/**
 * A SQL value as JSON text, as Flink's JSON functions serialize it (JsonGenerateUtils): numbers
 * and booleans bare (DOUBLE as Java prints it, `2.0`; a non-finite one quoted), strings quoted,
 * DECIMAL exact, TIMESTAMP as an ISO local date-time string, ROW and MAP as objects, ARRAY as an
 * array, MULTISET as an object from element to count.
 */
export function jsonText(v: Value, t: LogicalType): string {
  if (v === null) return 'null';
  switch (t.root) {
    case 'STRING':
      return JSON.stringify(v);
    case 'DECIMAL':
      return formatDecimal(v as bigint, t.scale ?? 0);
    case 'DOUBLE':
      return Number.isFinite(v) ? formatDouble(v as number) : JSON.stringify(formatDouble(v as number));
    case 'FLOAT':
      return Number.isFinite(v) ? formatFloat(v as number) : JSON.stringify(formatFloat(v as number));
    case 'TIMESTAMP':
      return JSON.stringify(isoLocalDateTime(v as number));
    case 'TIMESTAMP_LTZ':
      // Flink writes the instant's UTC reading with a `Z` (JsonGenerateUtils).
      return JSON.stringify(`${isoLocalDateTime(v as number)}Z`);
    case 'ROW': {
      const row = v as Readonly<Record<string, Value>>;
      return `{${(t.fields ?? []).map((f) => `${JSON.stringify(f.name)}:${jsonText(row[f.name] ?? null, f.type)}`).join(',')}}`;
    }
    case 'ARRAY':
      return `[${(v as readonly Value[]).map((e) => jsonText(e, t.element ?? STRING)).join(',')}]`;
    case 'MAP':
      return `{${Object.entries(v as Readonly<Record<string, Value>>)
        .map(([k, e]) => `${JSON.stringify(k)}:${jsonText(e, t.value ?? STRING)}`)
        .join(',')}}`;
    case 'MULTISET':
      return `{${(v as Multiset).map(([e, n]) => `${JSON.stringify(e === null ? 'null' : keyText(e, t.element ?? STRING))}:${n}`).join(',')}}`;
    case 'DATE':
    case 'TIME':
      // jsonValueProblem rejects them when the call is planned.
      throw new Error(`internal: ${t.root} has no JSON form`);
    default:
      return String(v);
  }
}

/** A value as an object key: a string as it is, anything else as its JSON text. */
function keyText(v: Value, t: LogicalType): string {
  return t.root === 'STRING' ? (v as string) : jsonText(v, t);
}

/** A SQL value as a JSON value's text, for JSON_OBJECT and JSON_ARRAY (`raw`: already JSON). */
function toJsonText(v: Value, t: LogicalType, raw: boolean): string {
  if (v === null) return 'null';
  return raw ? (v as string) : jsonText(v, t);
}

/**
 * JSON_QUOTE's escaping (Flink's JsonQuoteFunction): `"` `\` `/` and the control characters
 * `\b \f \n \r \t` by their short escapes, other characters below U+0020 as `\u00XX`.
 */
function jsonQuote(s: string): string {
  let out = '"';
  for (const c of s) {
    switch (c) {
      case '"':
        out += '\\"';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '/':
        out += '\\/';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      default:
        out += c < ' ' ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c;
    }
  }
  return `${out}"`;
}

/** JSON_UNQUOTE: the string a JSON string literal denotes; anything that is not one is returned as it is. */
function jsonUnquote(s: string): string {
  if (s.length < 2 || !s.startsWith('"') || !s.endsWith('"')) return s;
  try {
    const v: unknown = JSON.parse(s);
    return typeof v === 'string' ? v : s;
  } catch {
    return s;
  }
}

/** Arguments that are JSON already (nested JSON_OBJECT / JSON_ARRAY / JSON_QUERY) go in unquoted. */
function isJsonCall(e: Expr | undefined): boolean {
  return e?.kind === 'call' && ['JSON_OBJECT', 'JSON_ARRAY', 'JSON_QUERY'].includes(e.fn.toUpperCase());
}

function jsonQueryLike(kind: 'VALUE' | 'QUERY' | 'EXISTS'): Builtin {
  const defaults = kind === 'EXISTS' ? { onEmpty: 'FALSE', onError: 'FALSE' } : { onEmpty: 'NULL', onError: 'NULL' };
  return {
    type: (call, types) => {
      checkArgs(call, 2, Infinity);
      requireRoots(call, types.slice(0, 2), STRINGS);
      if (kind === 'EXISTS') return types[0]!.nullable ? { ...BOOLEAN, nullable: true } : BOOLEAN;
      const c = readClauses(call, defaults);
      return { ...(c.returning ?? STRING), nullable: true };
    },
    evaluator: ({ call, args, where }) => {
      const c = readClauses(call, defaults);
      const returnsArray = c.returning?.root === 'ARRAY';
      const toType = c.returning && c.returning.root !== 'STRING' && !returnsArray ? castConverter(STRING, c.returning, where) : undefined;
      const fdoc = args[0]!.fn;
      const fpath = args[1]!.fn;
      return (row) => {
        const text = fdoc(row);
        const pathText = fpath(row);
        if (text === null || pathText === null) return null;
        let items: Json[];
        let path: JsonPath;
        try {
          path = parsePath(pathText as string);
          items = evaluatePath(parseJson(text as string), path);
        } catch (err) {
          if (!(err instanceof JsonError)) throw err;
          return emptyValue(behave(c.onError, args, row, `${err.message} in ${where}`), returnsArray);
        }
        if (kind === 'EXISTS') return items.length > 0;
        // What the path selects, as Jayway JsonPath (behind Calcite's JSON functions) gives it: a
        // definite path (no wildcard) its one item, an indefinite one the array of its matches.
        const definite = !path.steps.some((step) => 'wildcard' in step);
        if (definite && items.length === 0) return emptyValue(behave(c.onEmpty, args, row, `the path selects nothing in ${where}`), returnsArray);
        const selected: Json = definite ? items[0]! : items;
        const isContainer = (j: Json): boolean => j !== null && typeof j === 'object';
        try {
          if (kind === 'VALUE') {
            if (isContainer(selected)) throw new JsonError('JSON_VALUE selects a non-scalar value');
            const s = scalarText(selected);
            if (s === null || toType === undefined) return s;
            try {
              return toType(s);
            } catch {
              throw new JsonError(`'${s}' is not a ${c.returning!.root}`);
            }
          }
          // Calcite's wrappers: UNCONDITIONAL always, CONDITIONAL unless the value is an array.
          const value = c.wrapper === 'UNCONDITIONAL' || (c.wrapper === 'CONDITIONAL' && !Array.isArray(selected)) ? [selected] : selected;
          if (!isContainer(value)) throw new JsonError('JSON_QUERY selects a scalar (use WITH ARRAY WRAPPER)');
          if (!returnsArray) return JSON.stringify(value);
          if (!Array.isArray(value)) throw new JsonError('JSON_QUERY … RETURNING ARRAY selects an object');
          // ARRAY<STRING>: string elements as their text, the others as their JSON.
          return value.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
        } catch (err) {
          if (!(err instanceof JsonError)) throw err;
          return emptyValue(behave(c.onError, args, row, `${err.message} in ${where}`), returnsArray);
        }
      };
    },
  };
}

/** An ON EMPTY / ON ERROR result for JSON_QUERY … RETURNING ARRAY: EMPTY ARRAY is the empty array. */
function emptyValue(v: Value, returnsArray: boolean): Value {
  if (!returnsArray || v === null) return v;
  if (v === '[]') return [];
  throw new RecordError(`EMPTY OBJECT does not fit JSON_QUERY … RETURNING ARRAY`);
}

/** The trailing `NULL ON NULL` / `ABSENT ON NULL` of JSON_OBJECT / JSON_ARRAY, and the operand count before it. */
function onNull(call: Call, absentByDefault: boolean): { absent: boolean; count: number } {
  const last = call.args[call.args.length - 1];
  if (last?.kind === 'literal' && (last.value === 'NULL ON NULL' || last.value === 'ABSENT ON NULL')) {
    return { absent: last.value === 'ABSENT ON NULL', count: call.args.length - 1 };
  }
  return { absent: absentByDefault, count: call.args.length };
}

/** The JSON built-ins by name. */
export const JSON_FUNCTIONS: Readonly<Record<string, Builtin>> = {
  JSON_VALUE: jsonQueryLike('VALUE'),
  JSON_QUERY: jsonQueryLike('QUERY'),
  JSON_EXISTS: jsonQueryLike('EXISTS'),
  JSON_OBJECT: {
    // Default NULL ON NULL; keys must be strings.
    type: (call, types) => {
      const { count } = onNull(call, false);
      if (count % 2 !== 0) throw new PlanError(`JSON_OBJECT takes KEY … VALUE … pairs in ${printExpr(call)}`);
      for (let i = 0; i < count; i += 2) if (types[i]!.root !== 'STRING') throw new PlanError(`a JSON_OBJECT key must be a STRING in ${printExpr(call)}`);
      requireJsonValues(call, types.slice(0, count).filter((_t, i) => i % 2 === 1));
      return STRING;
    },
    evaluator: ({ call, args, where }) => {
      const { absent, count } = onNull(call, false);
      return (row) => {
        const parts: string[] = [];
        for (let i = 0; i < count; i += 2) {
          const k = args[i]!.fn(row);
          if (k === null) throw new RecordError(`a JSON_OBJECT key is NULL in ${where}`);
          const v = args[i + 1]!.fn(row);
          if (v === null && absent) continue;
          parts.push(`${JSON.stringify(k)}:${toJsonText(v, args[i + 1]!.type, isJsonCall(call.args[i + 1]))}`);
        }
        return `{${parts.join(',')}}`;
      };
    },
  },
  JSON_ARRAY: {
    // Default ABSENT ON NULL.
    type: (call, types) => {
      requireJsonValues(call, types.slice(0, onNull(call, true).count));
      return STRING;
    },
    evaluator: ({ call, args }) => {
      const { absent, count } = onNull(call, true);
      return (row) => {
        const parts: string[] = [];
        for (let i = 0; i < count; i++) {
          const v = args[i]!.fn(row);
          if (v === null && absent) continue;
          parts.push(toJsonText(v, args[i]!.type, isJsonCall(call.args[i])));
        }
        return `[${parts.join(',')}]`;
      };
    },
  },
  JSON_STRING: {
    // NULL gives NULL (not the JSON text null), as Flink documents.
    type: (call, types) => {
      checkArgs(call, 1, 1);
      requireJsonValues(call, types);
      return nullableIf(STRING, types);
    },
    evaluator: ({ args }) => {
      const t = args[0]!.type;
      return strict(args, ([v]) => jsonText(v!, t));
    },
  },
  JSON_QUOTE: {
    type: (call, types) => {
      checkArgs(call, 1, 1);
      requireRoots(call, types, STRINGS);
      return nullableIf(STRING, types);
    },
    evaluator: ({ args }) => strict(args, ([s]) => jsonQuote(s as string)),
  },
  JSON_UNQUOTE: {
    type: (call, types) => {
      checkArgs(call, 1, 1);
      requireRoots(call, types, STRINGS);
      return nullableIf(STRING, types);
    },
    evaluator: ({ args }) => strict(args, ([s]) => jsonUnquote(s as string)),
  },
  'IS JSON': {
    // FALSE for NULL, as for any text that is not JSON of the kind.
    type: (call, types) => {
      checkArgs(call, 2, 2);
      requireRoots(call, types, STRINGS);
      return BOOLEAN;
    },
    evaluator: ({ args }) => {
      const kind = args[1]!.constant?.value as string;
      const f = args[0]!.fn;
      return (row) => {
        const s = f(row);
        if (s === null) return false;
        let j: Json;
        try {
          j = JSON.parse(s as string) as Json;
        } catch {
          return false;
        }
        const container = j !== null && typeof j === 'object';
        if (kind === 'SCALAR') return !container;
        if (kind === 'ARRAY') return Array.isArray(j);
        if (kind === 'OBJECT') return container && !Array.isArray(j);
        return true;
      };
    },
  },
};
