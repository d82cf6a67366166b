/**
 * Closures for `= <> < <= > >=` and `IN`, after the compiler has converted both sides to their
 * comparison type. Numbers, TIMESTAMPs (epoch ms), DECIMALs (bigints at one scale) and BOOLEANs
 * (false < true) compare with JavaScript's operators; strings compare in code point order.
 *
 * The hot shape `column op constant` gets its own closures, which read the row field directly
 * instead of calling two operand closures.
 */
import type { LogicalType, Row, Value } from '../core/types.ts';
import type { Evaluator } from './expr-compile.ts';
import { compareStrings } from './expr-strings.ts';

/** The comparison operators. */
export type ComparisonOperator = '=' | '<>' | '<' | '<=' | '>' | '>=';

/** A comparison operand after conversion: its closure, and what is known statically about it. */
export interface ComparisonOperand {
  readonly fn: Evaluator;
  /** Set when the operand is a plain column reference needing no conversion. */
  readonly column?: string;
  /** Set when the operand is a constant (possibly converted at compile time). */
  readonly constant?: { readonly value: Value };
}

// The JavaScript relational operators also order bigints and booleans, but TypeScript only
// admits them on one primitive type; `number` stands for "a non-string primitive" below.
type P = number;

function primitiveCompare(op: ComparisonOperator, a: Evaluator, b: Evaluator): Evaluator {
  switch (op) {
    case '=':
      return (row) => {
        const x = a(row);
        if (x === null) return null;
        const y = b(row);
        return y === null ? null : x === y;
      };
    case '<>':
      return (row) => {
        const x = a(row);
        if (x === null) return null;
        const y = b(row);
        return y === null ? null : x !== y;
      };
    case '<':
      return (row) => {
        const x = a(row);
        if (x === null) return null;
        const y = b(row);
        return y === null ? null : (x as P) < (y as P);
      };
    case '<=':
      return (row) => {
        const x = a(row);
        if (x === null) return null;
        const y = b(row);
        return y === null ? null : (x as P) <= (y as P);
      };
    case '>':
      return (row) => {
        const x = a(row);
        if (x === null) return null;
        const y = b(row);
        return y === null ? null : (x as P) > (y as P);
      };
    case '>=':
      return (row) => {
        const x = a(row);
        if (x === null) return null;
        const y = b(row);
        return y === null ? null : (x as P) >= (y as P);
      };
  }
}

/** `column op c` with the column read straight from the row. */
function columnConstantCompare(op: ComparisonOperator, column: string, c: P): Evaluator {
  switch (op) {
    case '=':
      return (row: Row) => {
        const x = row[column];
        return x == null ? null : x === c;
      };
    case '<>':
      return (row: Row) => {
        const x = row[column];
        return x == null ? null : x !== c;
      };
    case '<':
      return (row: Row) => {
        const x = row[column];
        return x == null ? null : (x as P) < c;
      };
    case '<=':
      return (row: Row) => {
        const x = row[column];
        return x == null ? null : (x as P) <= c;
      };
    case '>':
      return (row: Row) => {
        const x = row[column];
        return x == null ? null : (x as P) > c;
      };
    case '>=':
      return (row: Row) => {
        const x = row[column];
        return x == null ? null : (x as P) >= c;
      };
  }
}

/** The operator with its operands swapped: `c < x` is `x > c`. */
function mirror(op: ComparisonOperator): ComparisonOperator {
  switch (op) {
    case '<':
      return '>';
    case '<=':
      return '>=';
    case '>':
      return '<';
    case '>=':
      return '<=';
    default:
      return op;
  }
}

function stringCompare(op: ComparisonOperator, a: Evaluator, b: Evaluator): Evaluator {
  if (op === '=' || op === '<>') return primitiveCompare(op, a, b);
  const test: (c: number) => boolean =
    op === '<' ? (c) => c < 0 : op === '<=' ? (c) => c <= 0 : op === '>' ? (c) => c > 0 : (c) => c >= 0;
  return (row) => {
    const x = a(row);
    if (x === null) return null;
    const y = b(row);
    return y === null ? null : test(compareStrings(x as string, y as string));
  };
}

/**
 * Compiles a comparison of two operands already converted to `type` (their comparison type).
 */
export function compileComparison(op: ComparisonOperator, type: LogicalType, left: ComparisonOperand, right: ComparisonOperand): Evaluator {
  if (type.root === 'STRING') return stringCompare(op, left.fn, right.fn);
  const lc = left.constant;
  const rc = right.constant;
  if (left.column !== undefined && rc !== undefined) {
    return rc.value === null ? () => null : columnConstantCompare(op, left.column, rc.value as P);
  }
  if (right.column !== undefined && lc !== undefined) {
    return lc.value === null ? () => null : columnConstantCompare(mirror(op), right.column, lc.value as P);
  }
  return primitiveCompare(op, left.fn, right.fn);
}

/**
 * Compiles `x IN (v1, …, vn)` with SQL semantics: NULL when `x` is NULL, true on a match, else
 * NULL if some `vi` is NULL, else false. Constant lists are looked up in a Set.
 */
export function compileIn(value: ComparisonOperand, list: readonly ComparisonOperand[]): Evaluator {
  const x = value.fn;
  if (list.every((item) => item.constant !== undefined)) {
    const values = list.map((item) => item.constant!.value);
    const hasNull = values.includes(null);
    const set = new Set(values.filter((v) => v !== null));
    const otherwise = hasNull ? null : false;
    return (row) => {
      const v = x(row);
      if (v === null) return null;
      return set.has(v) ? true : otherwise;
    };
  }
  const fns = list.map((item) => item.fn);
  return (row) => {
    const v = x(row);
    if (v === null) return null;
    let sawNull = false;
    for (let i = 0; i < fns.length; i++) {
      const w = fns[i]!(row);
      if (w === null) sawNull = true;
      else if (w === v) return true;
    }
    return sawNull ? null : false;
  };
}
