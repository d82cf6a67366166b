/**
 * Flink's ARRAY and MAP functions (the collection table of its built-in functions page), with its
 * semantics: a NULL array or map gives NULL unless noted; elements compare by value, NULL equal
 * to NULL (Flink's element equality); results keep the order of the first array.
 *
 * - ARRAY_APPEND / ARRAY_PREPEND(array, element): the element (NULL too) added at the end / start.
 * - ARRAY_CONTAINS(array, needle): whether it holds the needle (a NULL needle looks for a NULL).
 * - ARRAY_POSITION(array, needle): the 1-based position of the first equal element, 0 for none;
 *   NULL for a NULL needle.
 * - ARRAY_REMOVE(array, needle): every equal element removed.
 * - ARRAY_DISTINCT, ARRAY_REVERSE; ARRAY_CONCAT(a, b, …) (NULL if any is NULL); ARRAY_UNION(a, b),
 *   ARRAY_INTERSECT(a, b), ARRAY_EXCEPT(a, b): without duplicates (the last two put a NULL
 *   element last, as Flink's do).
 * - ARRAY_SLICE(array, start [, end]): elements start..end inclusive, 1-based, negative from the
 *   end, 0 meaning the start (Flink's ArraySliceFunction).
 * - ARRAY_SORT(array [, ascending [, nullsFirst]]): ascending with NULLs first by default;
 *   `nullsFirst` defaults to `ascending`.
 * - ARRAY_MAX / ARRAY_MIN(array): the largest / smallest non-NULL element, NULL for none.
 * - ARRAY_JOIN(array, delimiter [, nullReplacement]): the strings joined; NULL elements skipped
 *   unless replaced.
 * - MAP_KEYS, MAP_VALUES, MAP_ENTRIES (ARRAY<ROW<key, value>>), MAP_FROM_ARRAYS(keys, values)
 *   (equal lengths, keys not NULL), MAP_UNION(m1, m2, …) (later maps win; NULL if any is NULL).
 *
 * MAP keys are STRING in Flambda (core/types.ts), so MAP_FROM_ARRAYS takes an ARRAY of strings.
 */
import { PlanError, RecordError } from '../core/errors.ts';
import type { LogicalType, Row, Value } from '../core/types.ts';
import { compareValues, encodeKey } from '../partition/key-encoding.ts';
import type { Call } from './expr.ts';
import { castConverter } from './expr-cast.ts';
import { BOOLEAN, type Builtin, checkArgs, type FnArg, INT, INTEGERS, nullableIf, requireRoots, STRING, STRINGS } from './expr-fn.ts';
import { printExpr } from './expr-print.ts';
import { commonTypeOf, isNested, sameTypeIgnoringNull, typeName, withNullable } from './expr-type-rules.ts';

type Items = readonly Value[];

/** The element type of an ARRAY operand, or a PlanError naming the call. */
function elementOf(call: Call, t: LogicalType | undefined, position: number): LogicalType {
  if (t?.root !== 'ARRAY') throw new PlanError(`${call.fn} takes an ARRAY as argument ${position}, not ${t ? typeName(t) : '?'}, in ${printExpr(call)}`);
  return t.element ?? STRING;
}

/** The MAP type of an operand, or a PlanError naming the call. */
function mapOf(call: Call, t: LogicalType | undefined, position: number): LogicalType {
  if (t?.root !== 'MAP') throw new PlanError(`${call.fn} takes a MAP as argument ${position}, not ${t ? typeName(t) : '?'}, in ${printExpr(call)}`);
  return t;
}

/** The common type of element types, or a PlanError. */
function commonElement(call: Call, types: readonly LogicalType[]): LogicalType {
  let t: LogicalType | undefined = types[0];
  for (const u of types.slice(1)) {
    if (t === undefined) break;
    t = isNested(t) || isNested(u) ? (sameTypeIgnoringNested(t, u) ? withNullable(t, t.nullable || u.nullable) : undefined) : commonTypeOf(t, u);
  }
  if (t === undefined) throw new PlanError(`cannot apply '${call.fn}' to elements of ${types.map(typeName).join(' and ')} in ${printExpr(call)} (they have no common type)`);
  return t;
}

/** Nested element types meet only when equal apart from nullability. */
function sameTypeIgnoringNested(a: LogicalType, b: LogicalType): boolean {
  return typeName(withNullable(a, true)) === typeName(withNullable(b, true)) && sameTypeIgnoringNull(a, b);
}

/** Converts elements of type `from` to `to` (an implicit cast), or undefined when they are the same. */
function elementConverter(from: LogicalType, to: LogicalType, where: string): ((v: Value) => Value) | undefined {
  if (isNested(from) || sameTypeIgnoringNull(from, to)) return undefined;
  const convert = castConverter(from, to, where);
  return convert === undefined ? undefined : (v) => (v === null ? null : convert(v as Exclude<Value, null>));
}

/** An ARRAY operand's evaluator with its elements converted to `to`. */
function arrayAs(arg: FnArg, to: LogicalType, where: string): (row: Row) => Items | null {
  const convert = elementConverter(arg.type.element ?? to, to, where);
  const f = arg.fn;
  if (convert === undefined) return f as (row: Row) => Items | null;
  return (row) => {
    const a = f(row) as Items | null;
    return a === null ? null : a.map(convert);
  };
}

/** A scalar operand's evaluator converted to `to`. */
function valueAs(arg: FnArg, to: LogicalType, where: string): (row: Row) => Value {
  const convert = elementConverter(arg.type, to, where);
  const f = arg.fn;
  return convert === undefined ? f : (row) => convert(f(row));
}

/** The equality key of an element (NULL included): equal values, equal keys. */
function keyOf(v: Value): string {
  return encodeKey([v]);
}

/** The elements without repeats, in first-occurrence order. */
function distinct(items: Items): Value[] {
  const seen = new Set<string>();
  const out: Value[] = [];
  for (const v of items) {
    const k = keyOf(v);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(v);
    }
  }
  return out;
}

/**
 * ARRAY_INTERSECT (`keep` the elements also in `b`) and ARRAY_EXCEPT (those not in `b`): the
 * distinct non-NULL elements of `a` in order, then NULL when it qualifies — Flink's functions
 * collect NULL apart and add it last.
 */
function setOperation(a: Items, b: Items, keep: boolean): Value[] {
  const other = new Set(b.filter((v) => v !== null).map(keyOf));
  const out = distinct(a.filter((v) => v !== null && other.has(keyOf(v)) === keep));
  if (a.includes(null) && b.includes(null) === keep) out.push(null);
  return out;
}

/** Fails for element types without an order (ARRAY_SORT, ARRAY_MAX, ARRAY_MIN compare scalars). */
function requireOrdered(call: Call, element: LogicalType): void {
  if (isNested(element)) throw new PlanError(`${call.fn} compares elements: ${typeName(element)} elements have no order here, in ${printExpr(call)}`);
}

/** A function of one array: its type from the element type, its value from the non-NULL elements. */
function unary(type: (call: Call, element: LogicalType, arrayType: LogicalType) => LogicalType, op: (items: Items) => Value): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, 1, 1);
      return type(call, elementOf(call, types[0], 1), types[0]!);
    },
    evaluator: ({ args }) => {
      const f = args[0]!.fn;
      return (row) => {
        const a = f(row);
        return a === null ? null : op(a as Items);
      };
    },
  };
}

/** ARRAY_APPEND / ARRAY_PREPEND. */
function addElement(atEnd: boolean): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, 2, 2);
      const element = commonElement(call, [elementOf(call, types[0], 1), types[1]!]);
      return { root: 'ARRAY', nullable: types[0]!.nullable, element: withNullable(element, element.nullable || types[1]!.nullable) };
    },
    evaluator: ({ args, type, where }) => {
      const element = type.element!;
      const array = arrayAs(args[0]!, element, where);
      const value = valueAs(args[1]!, element, where);
      return (row) => {
        const a = array(row);
        if (a === null) return null;
        const v = value(row);
        return atEnd ? [...a, v] : [v, ...a];
      };
    },
  };
}

/** A function of an array and a needle of its element type. */
function withNeedle(result: LogicalType, nullNeedle: 'null' | 'search', op: (items: Items, needle: string) => Value): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, 2, 2);
      commonElement(call, [elementOf(call, types[0], 1), types[1]!]);
      return withNullable(result, result.nullable || types[0]!.nullable || (nullNeedle === 'null' && types[1]!.nullable));
    },
    evaluator: ({ args, where }) => {
      const element = commonElement({ kind: 'call', fn: 'ARRAY', args: [] }, [args[0]!.type.element ?? STRING, args[1]!.type]);
      const array = arrayAs(args[0]!, element, where);
      const needle = valueAs(args[1]!, element, where);
      return (row) => {
        const a = array(row);
        if (a === null) return null;
        const n = needle(row);
        if (n === null && nullNeedle === 'null') return null;
        return op(a, keyOf(n));
      };
    },
  };
}

/** A function of two or more arrays of a common element type; NULL if any is NULL. */
function ofArrays(min: number, max: number, op: (arrays: readonly Items[]) => Value[]): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, min, max);
      const element = commonElement(
        call,
        types.map((t, i) => elementOf(call, t, i + 1)),
      );
      return nullableIf({ root: 'ARRAY', nullable: false, element }, types);
    },
    evaluator: ({ args, type, where }) => {
      const arrays = args.map((a) => arrayAs(a, type.element!, where));
      return (row) => {
        const values: Items[] = [];
        for (const f of arrays) {
          const a = f(row);
          if (a === null) return null;
          values.push(a);
        }
        return op(values);
      };
    },
  };
}

/** ARRAY_MAX / ARRAY_MIN. */
function extreme(max: boolean): Builtin {
  return unary(
    (call, element) => {
      requireOrdered(call, element);
      return withNullable(element, true);
    },
    (items) => {
      let best: Value = null;
      for (const v of items) {
        if (v === null) continue;
        if (best === null || (max ? compareValues(v, best) > 0 : compareValues(v, best) < 0)) best = v;
      }
      return best;
    },
  );
}

/** ARRAY_SLICE's elements start..end (1-based, inclusive; negative from the end), as Flink computes them. */
function slice(items: Items, start: number, end: number): Items {
  if (items.length === 0) return items;
  let from = start + (start < 0 ? items.length + 1 : 0);
  let to = end + (end < 0 ? items.length + 1 : 0);
  from = Math.max(1, from);
  to = to === 0 ? 1 : Math.min(to, items.length);
  return to < from ? [] : items.slice(from - 1, to);
}

/** ARRAY_SORT(array [, ascending [, nullsFirst]]): the options are BOOLEAN operands; a NULL one gives NULL. */
const ARRAY_SORT: Builtin = {
  type: (call, types) => {
    checkArgs(call, 1, 3);
    const element = elementOf(call, types[0], 1);
    requireOrdered(call, element);
    for (const t of types.slice(1)) if (t.root !== 'BOOLEAN') throw new PlanError(`ARRAY_SORT takes BOOLEAN sort options, not ${typeName(t)}, in ${printExpr(call)}`);
    return nullableIf(types[0]!, types);
  },
  evaluator: ({ args }) => {
    const [array, ascending, nullsFirst] = args.map((a) => a.fn);
    return (row) => {
      const a = array!(row);
      const asc = ascending === undefined ? true : ascending(row);
      const first = nullsFirst === undefined ? asc : nullsFirst(row);
      if (a === null || asc === null || first === null) return null;
      return [...(a as Items)].sort((x, y) => {
        if (x === null || y === null) return x === y ? 0 : (x === null) === first ? -1 : 1;
        const c = compareValues(x, y);
        return asc ? c : -c;
      });
    };
  },
};

const ARRAY_JOIN: Builtin = {
  type: (call, types) => {
    checkArgs(call, 2, 3);
    const element = elementOf(call, types[0], 1);
    if (element.root !== 'STRING') throw new PlanError(`ARRAY_JOIN joins an ARRAY of strings, not ${typeName(types[0]!)}, in ${printExpr(call)}`);
    requireRoots(call, types.slice(1), STRINGS);
    return nullableIf(STRING, types);
  },
  evaluator: ({ args }) => {
    const [array, delimiter, replacement] = args.map((a) => a.fn);
    return (row) => {
      const a = array!(row);
      const d = delimiter!(row);
      const r = replacement === undefined ? undefined : replacement(row);
      if (a === null || d === null || r === null) return null;
      const parts: string[] = [];
      for (const v of a as Items) {
        if (v !== null) parts.push(v as string);
        else if (r !== undefined) parts.push(r as string);
      }
      return parts.join(d as string);
    };
  },
};

const MAP_FROM_ARRAYS: Builtin = {
  type: (call, types) => {
    checkArgs(call, 2, 2);
    const key = elementOf(call, types[0], 1);
    const value = elementOf(call, types[1], 2);
    if (key.root !== 'STRING') throw new PlanError(`MAP keys must be STRING here, not ${typeName(key)}, in ${printExpr(call)}`);
    return nullableIf({ root: 'MAP', nullable: false, key: withNullable(key, false), value }, types);
  },
  evaluator: ({ args, where }) => {
    const [keys, values] = args.map((a) => a.fn) as [FnArg['fn'], FnArg['fn']];
    return (row) => {
      const k = keys(row) as Items | null;
      const v = values(row) as Items | null;
      if (k === null || v === null) return null;
      if (k.length !== v.length) {
        throw new RecordError(`Invalid function MAP_FROM_ARRAYS call: the length of the keys array ${k.length} is not equal to the length of the values array ${v.length} in ${where}`);
      }
      const out: Record<string, Value> = {};
      k.forEach((key, i) => {
        if (key === null) throw new RecordError(`${where}: a MAP key is NULL`);
        Object.defineProperty(out, key as string, { value: v[i] as Value, enumerable: true, writable: true, configurable: true });
      });
      return out;
    };
  },
};

const MAP_UNION: Builtin = {
  type: (call, types) => {
    checkArgs(call, 1, Infinity);
    const maps = types.map((t, i) => mapOf(call, t, i + 1));
    const value = commonElement(
      call,
      maps.map((m) => m.value ?? STRING),
    );
    return nullableIf({ root: 'MAP', nullable: false, key: withNullable(STRING, false), value }, types);
  },
  evaluator: ({ args, type, where }) => {
    const maps = args.map((a) => {
      const convert = elementConverter(a.type.value ?? STRING, type.value!, where);
      const f = a.fn;
      return { f, convert };
    });
    return (row) => {
      const out: Record<string, Value> = {};
      for (const { f, convert } of maps) {
        const m = f(row) as Readonly<Record<string, Value>> | null;
        if (m === null) return null;
        for (const [k, v] of Object.entries(m)) Object.defineProperty(out, k, { value: convert ? convert(v) : v, enumerable: true, writable: true, configurable: true });
      }
      return out;
    };
  },
};

/** A function of one map. */
function ofMap(type: (map: LogicalType) => LogicalType, op: (m: Readonly<Record<string, Value>>) => Value): Builtin {
  return {
    type: (call, types) => {
      checkArgs(call, 1, 1);
      const m = mapOf(call, types[0], 1);
      return nullableIf(type(m), types);
    },
    evaluator: ({ args }) => {
      const f = args[0]!.fn;
      return (row) => {
        const m = f(row);
        return m === null ? null : op(m as Readonly<Record<string, Value>>);
      };
    },
  };
}

/** The ARRAY and MAP functions by name. */
export const ARRAY_FUNCTIONS: Readonly<Record<string, Builtin>> = {
  ARRAY_APPEND: addElement(true),
  ARRAY_PREPEND: addElement(false),
  ARRAY_CONTAINS: withNeedle(BOOLEAN, 'search', (items, needle) => items.some((v) => keyOf(v) === needle)),
  ARRAY_POSITION: withNeedle(INT, 'null', (items, needle) => items.findIndex((v) => keyOf(v) === needle) + 1),
  ARRAY_REMOVE: {
    type: (call, types) => {
      checkArgs(call, 2, 2);
      commonElement(call, [elementOf(call, types[0], 1), types[1]!]);
      return types[0]!;
    },
    evaluator: (ctx) => withNeedle(STRING, 'search', (items, needle) => items.filter((v) => keyOf(v) !== needle)).evaluator(ctx),
  },
  ARRAY_DISTINCT: unary((_call, _element, t) => t, distinct),
  ARRAY_REVERSE: unary((_call, _element, t) => t, (items) => [...items].reverse()),
  ARRAY_CONCAT: ofArrays(1, Infinity, (arrays) => arrays.flat()),
  ARRAY_UNION: ofArrays(2, 2, ([a, b]) => distinct([...a!, ...b!])),
  ARRAY_INTERSECT: ofArrays(2, 2, ([a, b]) => setOperation(a!, b!, true)),
  ARRAY_EXCEPT: ofArrays(2, 2, ([a, b]) => setOperation(a!, b!, false)),
  ARRAY_SLICE: {
    type: (call, types) => {
      checkArgs(call, 2, 3);
      elementOf(call, types[0], 1);
      requireRoots(call, types.slice(1), INTEGERS);
      return nullableIf(types[0]!, types);
    },
    evaluator: ({ args }) => {
      const [array, start, end] = args.map((a) => a.fn);
      return (row) => {
        const a = array!(row) as Items | null;
        const s = start!(row);
        const e = end === undefined ? (a === null ? null : a.length) : end(row);
        if (a === null || s === null || e === null) return null;
        return slice(a, s as number, e as number);
      };
    },
  },
  ARRAY_SORT,
  ARRAY_MAX: extreme(true),
  ARRAY_MIN: extreme(false),
  ARRAY_JOIN,
  MAP_KEYS: ofMap(
    (m) => ({ root: 'ARRAY', nullable: false, element: withNullable(m.key ?? STRING, false) }),
    (m) => Object.keys(m),
  ),
  MAP_VALUES: ofMap(
    (m) => ({ root: 'ARRAY', nullable: false, element: m.value ?? STRING }),
    (m) => Object.values(m),
  ),
  MAP_ENTRIES: ofMap(
    (m) => ({
      root: 'ARRAY',
      nullable: false,
      element: {
        root: 'ROW',
        nullable: false,
        fields: [
          { name: 'key', type: withNullable(m.key ?? STRING, false) },
          { name: 'value', type: m.value ?? STRING },
        ],
      },
    }),
    (m) => Object.entries(m).map(([key, value]) => ({ key, value })),
  ),
  MAP_FROM_ARRAYS,
  MAP_UNION,
};
