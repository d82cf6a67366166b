/**
 * ROW, ARRAY and MAP built-ins with Flink's semantics:
 *
 * - `DOT(row, 'name')`: field access `row.name` (Calcite's DOT); NULL when the row is NULL.
 * - `ITEM(array, i)`: `array[i]`, 1-based; NULL for a NULL operand or an index outside the array
 *   (Flink returns NULL there too). `ITEM(map, key)`: `map[key]`, NULL for a missing key.
 * - `CARDINALITY(array | map | multiset)`: the number of elements or entries, as INT.
 * - `ELEMENT(array)`: the only element of a one-element array, NULL for an empty one, an error
 *   for a longer one (as Flink).
 * - `ROW(a, b, …)`: a row with fields `EXPR$0`, `EXPR$1`, … (Flink's names for constructor
 *   fields); `ARRAY[a, b, …]` (`ARRAY`): an array of the operands' common type;
 *   `MAP[k1, v1, …]` (`MAP`): a map from STRING keys to the values' common type.
 *
 * Values follow core/types.ts: a ROW is a plain object by field name, an ARRAY an array, a MAP
 * a plain object by key. Nothing here mutates a value it reads.
 */
import { PlanError, RecordError } from '../core/errors.ts';
import type { Multiset } from '../core/multiset.ts';
import type { LogicalType, Row, Value } from '../core/types.ts';
import type { Call } from './expr.ts';
import { printExpr } from './expr-print.ts';
import { allIndices, commonTypeOfOperands, typeName, withNullable } from './expr-type-rules.ts';
import { type Builtin, checkArgs, INT, nullableIf } from './expr-fn.ts';

/** The constant field name of DOT. */
function fieldNameOf(call: Call): string {
  const a = call.args[1];
  if (a?.kind !== 'literal' || typeof a.value !== 'string') throw new PlanError(`field access needs a field name in ${printExpr(call)}`);
  return a.value;
}

/** Reads an own property only: a field named `constructor` must not find Object.prototype's. */
function own(record: Readonly<Record<string, Value>>, key: string): Value {
  return Object.hasOwn(record, key) ? (record[key] as Value) : null;
}

const DOT: Builtin = {
  type: (call, [row]) => {
    checkArgs(call, 2, 2);
    const name = fieldNameOf(call);
    if (row?.root !== 'ROW') throw new PlanError(`cannot access field '${name}' of ${row ? typeName(row) : '?'} in ${printExpr(call)}: it is not a ROW`);
    const fields = row.fields ?? [];
    const field = fields.find((f) => f.name === name) ?? fields.find((f) => f.name.toLowerCase() === name.toLowerCase());
    if (field === undefined) {
      throw new PlanError(`ROW ${typeName(row)} has no field '${name}' (fields: ${fields.map((f) => f.name).join(', ')})`);
    }
    return withNullable(field.type, field.type.nullable || row.nullable);
  },
  evaluator: ({ call, args }) => {
    const rowFn = args[0]!.fn;
    const declared = args[0]!.type.fields ?? [];
    const requested = fieldNameOf(call);
    // The field as declared (a case-insensitive match resolves to its real name once).
    const name = (declared.find((f) => f.name === requested) ?? declared.find((f) => f.name.toLowerCase() === requested.toLowerCase()))?.name ?? requested;
    return (row) => {
      const v = rowFn(row);
      return v === null ? null : own(v as Row, name);
    };
  },
};

const ITEM: Builtin = {
  type: (call, [container, index]) => {
    checkArgs(call, 2, 2);
    if (container?.root === 'ARRAY') {
      if (index?.root !== 'INT' && index?.root !== 'BIGINT') throw new PlanError(`an ARRAY index must be an integer, not ${index ? typeName(index) : '?'}, in ${printExpr(call)}`);
      return withNullable(container.element ?? INT, true);
    }
    if (container?.root === 'MAP') {
      if (index?.root !== 'STRING') throw new PlanError(`a MAP<STRING, …> key must be a STRING, not ${index ? typeName(index) : '?'}, in ${printExpr(call)}`);
      return withNullable(container.value ?? INT, true);
    }
    throw new PlanError(`[ ] applies to an ARRAY or a MAP, not ${container ? typeName(container) : '?'}, in ${printExpr(call)}`);
  },
  evaluator: ({ args }) => {
    const [container, index] = [args[0]!.fn, args[1]!.fn];
    if (args[0]!.type.root === 'ARRAY') {
      return (row) => {
        const a = container(row);
        const i = index(row);
        if (a === null || i === null) return null;
        const items = a as readonly Value[];
        const n = i as number;
        return n >= 1 && n <= items.length ? (items[n - 1] as Value) : null;
      };
    }
    return (row) => {
      const m = container(row);
      const k = index(row);
      return m === null || k === null ? null : own(m as Row, k as string);
    };
  },
};

const CARDINALITY: Builtin = {
  type: (call, [t]) => {
    checkArgs(call, 1, 1);
    if (t?.root !== 'ARRAY' && t?.root !== 'MAP' && t?.root !== 'MULTISET') throw new PlanError(`CARDINALITY applies to an ARRAY, a MAP or a MULTISET, not ${t ? typeName(t) : '?'}, in ${printExpr(call)}`);
    return nullableIf(INT, [t]);
  },
  evaluator: ({ args }) => {
    const f = args[0]!.fn;
    const root = args[0]!.type.root;
    return (row) => {
      const v = f(row);
      if (v === null) return null;
      // A multiset counts every occurrence, as Calcite's CARDINALITY.
      if (root === 'MULTISET') return (v as Multiset).reduce((n, [, count]) => n + count, 0);
      return root === 'ARRAY' ? (v as readonly Value[]).length : Object.keys(v as Row).length;
    };
  },
};

const ELEMENT: Builtin = {
  type: (call, [t]) => {
    checkArgs(call, 1, 1);
    if (t?.root !== 'ARRAY') throw new PlanError(`ELEMENT applies to an ARRAY, not ${t ? typeName(t) : '?'}, in ${printExpr(call)}`);
    return withNullable(t.element ?? INT, true);
  },
  evaluator: ({ args, where }) => {
    const f = args[0]!.fn;
    return (row) => {
      const v = f(row);
      if (v === null) return null;
      const items = v as readonly Value[];
      if (items.length > 1) throw new RecordError(`${where}: ELEMENT of an array with ${items.length} elements (at most one is allowed)`);
      return items.length === 0 ? null : (items[0] as Value);
    };
  },
};

const ROW: Builtin = {
  type: (call, argTypes) => {
    checkArgs(call, 1, Infinity);
    return { root: 'ROW', nullable: false, fields: argTypes.map((type, i) => ({ name: `EXPR$${i}`, type })) };
  },
  evaluator: ({ args }) => {
    const fns = args.map((a) => a.fn);
    return (row) => {
      const out: Record<string, Value> = {};
      for (let i = 0; i < fns.length; i++) out[`EXPR$${i}`] = fns[i]!(row);
      return out;
    };
  },
};

/** The common type of the operands at `indices`, made NOT NULL-agnostic for the element type. */
function elementType(call: Call, argTypes: readonly LogicalType[], indices: readonly number[]): LogicalType {
  return commonTypeOfOperands(call, argTypes, indices);
}

const ARRAY: Builtin = {
  type: (call, argTypes) => {
    checkArgs(call, 1, Infinity);
    return { root: 'ARRAY', nullable: false, element: elementType(call, argTypes, allIndices(call)) };
  },
  evaluator: ({ args, type, coerce }) => {
    const element = type.element as LogicalType;
    const fns = args.map((a) => coerce(a, element).fn);
    return (row) => fns.map((f) => f(row));
  },
};

const MAP: Builtin = {
  type: (call, argTypes) => {
    checkArgs(call, 2, Infinity);
    if (call.args.length % 2 !== 0) throw new PlanError(`MAP[…] takes key, value pairs, got ${call.args.length} operands in ${printExpr(call)}`);
    const keys = allIndices(call).filter((i) => i % 2 === 0);
    for (const i of keys) {
      if (argTypes[i]!.root !== 'STRING') throw new PlanError(`MAP keys must be STRING here, not ${typeName(argTypes[i]!)}, in ${printExpr(call)}`);
    }
    return {
      root: 'MAP',
      nullable: false,
      key: { root: 'STRING', nullable: false },
      value: elementType(
        call,
        argTypes,
        allIndices(call).filter((i) => i % 2 === 1),
      ),
    };
  },
  evaluator: ({ args, type, where, coerce }) => {
    const valueType = type.value as LogicalType;
    const fns = args.map((a, i) => (i % 2 === 1 ? coerce(a, valueType).fn : a.fn));
    return (row) => {
      const out: Record<string, Value> = {};
      for (let i = 0; i < fns.length; i += 2) {
        const k = fns[i]!(row);
        if (k === null) throw new RecordError(`${where}: a MAP key is NULL`);
        // A later duplicate key wins, as in Flink's MAP constructor.
        Object.defineProperty(out, k as string, { value: fns[i + 1]!(row), enumerable: true, writable: true, configurable: true });
      }
      return out;
    };
  },
};

/** The collection built-ins by name. */
export const COLLECTION_FUNCTIONS: Readonly<Record<string, Builtin>> = { DOT, ITEM, CARDINALITY, ELEMENT, ROW, ARRAY, MAP };
