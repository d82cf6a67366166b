/**
 * Closures for `+ - * / MOD` and unary minus, one per result type:
 *
 * - INT wraps at 32 bits like Java's int (`| 0`, `Math.imul`), SMALLINT and TINYINT at 16 and 8
 *   bits like Java's `(short)` and `(byte)` of the int result; FLOAT rounds every result to
 *   single precision (`Math.fround`, exact for one operation on two floats); BIGINT is a double-precision
 *   number, exact up to 2^53 (beyond that it rounds, where Java's long would wrap at 2^63).
 * - Integer `/` truncates toward zero; integer and DECIMAL division or MOD by zero throw a
 *   RecordError (Java throws ArithmeticException there). DOUBLE follows IEEE 754 as in Java:
 *   `1.0 / 0` is Infinity.
 * - DECIMAL is exact on bigint: operands are aligned to a common scale, the result is rounded
 *   HALF_UP to the result type's scale, and a result beyond its precision throws a RecordError
 *   (Flink would yield NULL, which would contradict the inferred NOT NULL type). Division rounds
 *   once, directly to the result scale.
 * - Results never carry JavaScript's -0, so equal SQL values are also equal JavaScript values.
 */
import { divideDecimal, fitsPrecision, pow10, rescaleDecimal } from '../core/decimal.ts';
import { RecordError } from '../core/errors.ts';
import type { LogicalType, Row, Value } from '../core/types.ts';
import { decimalToDouble, toByte, toShort } from './expr-cast.ts';
import type { Evaluator } from './expr-compile.ts';
import { typeName } from './expr-type-rules.ts';

/** A compiled operand and its type. */
export interface Operand {
  readonly fn: Evaluator;
  readonly type: LogicalType;
}

/** The binary arithmetic operators (MOD also stands for `%`). */
export type ArithmeticOperator = '+' | '-' | '*' | '/' | 'MOD';

type NumberOp = (x: number, y: number) => number;
type BigOp = (x: bigint, y: bigint) => bigint;

/** Null-propagating binary evaluator. */
function strict2<A, B>(a: Evaluator, b: Evaluator, op: (x: A, y: B) => Value): Evaluator {
  return (row: Row) => {
    const x = a(row);
    if (x === null) return null;
    const y = b(row);
    if (y === null) return null;
    return op(x as A, y as B);
  };
}

function divisionByZero(where: string): RecordError {
  return new RecordError(`division by zero in ${where}`);
}

function intOp(op: ArithmeticOperator, where: string): NumberOp {
  switch (op) {
    case '+':
      return (x, y) => (x + y) | 0;
    case '-':
      return (x, y) => (x - y) | 0;
    case '*':
      return Math.imul;
    case '/':
      return (x, y) => {
        if (y === 0) throw divisionByZero(where);
        // ToInt32 truncates toward zero and wraps MIN_VALUE / -1 back to MIN_VALUE, as Java does.
        return (x / y) | 0;
      };
    case 'MOD':
      return (x, y) => {
        if (y === 0) throw divisionByZero(where);
        return (x % y) | 0;
      };
  }
}

function bigintOp(op: ArithmeticOperator, where: string): NumberOp {
  switch (op) {
    case '+':
      return (x, y) => x + y;
    case '-':
      return (x, y) => x - y;
    case '*':
      return (x, y) => x * y + 0;
    case '/':
      return (x, y) => {
        if (y === 0) throw divisionByZero(where);
        // x % y is exact, so (x - x % y) is an exact multiple of y and the quotient is exact,
        // unlike Math.trunc(x / y), whose rounded quotient can cross an integer near 2^53.
        return (x - (x % y)) / y + 0;
      };
    case 'MOD':
      return (x, y) => {
        if (y === 0) throw divisionByZero(where);
        return (x % y) + 0;
      };
  }
}

function doubleOp(op: ArithmeticOperator): NumberOp {
  switch (op) {
    case '+':
      return (x, y) => x + y;
    case '-':
      return (x, y) => x - y;
    case '*':
      return (x, y) => x * y;
    case '/':
      return (x, y) => x / y;
    case 'MOD':
      return (x, y) => x % y;
  }
}

function scaleOf(t: LogicalType): number {
  return t.root === 'DECIMAL' ? (t.scale ?? 0) : 0;
}

/** Multiplies by 10^k, skipping the multiplication when k is 0. */
function scaler(k: number): (v: bigint) => bigint {
  if (k === 0) return (v) => v;
  const factor = pow10(k);
  return (v) => v * factor;
}

function decimalOp(op: ArithmeticOperator, left: LogicalType, right: LogicalType, result: LogicalType, where: string): BigOp {
  const s1 = scaleOf(left);
  const s2 = scaleOf(right);
  const precision = result.precision ?? 10;
  const scale = result.scale ?? 0;
  const check = (r: bigint): bigint => {
    if (!fitsPrecision(r, precision)) throw new RecordError(`DECIMAL overflow in ${where}: the result does not fit ${typeName(result)}`);
    return r;
  };
  const finish = (natural: number): ((r: bigint) => bigint) =>
    natural === scale ? check : (r) => check(rescaleDecimal(r, natural, scale));
  switch (op) {
    case '+':
    case '-': {
      const natural = Math.max(s1, s2);
      const alignX = scaler(natural - s1);
      const alignY = scaler(natural - s2);
      const done = finish(natural);
      return op === '+' ? (x, y) => done(alignX(x) + alignY(y)) : (x, y) => done(alignX(x) - alignY(y));
    }
    case '*': {
      const done = finish(s1 + s2);
      return (x, y) => done(x * y);
    }
    case '/': {
      // x·10^-s1 / (y·10^-s2) at scale S is x·10^(S - s1 + s2) / y.
      const shift = scale - s1 + s2;
      const divisorScale = shift < 0 ? pow10(-shift) : 1n;
      return (x, y) => {
        if (y === 0n) throw divisionByZero(where);
        return check(shift >= 0 ? divideDecimal(x, y, shift) : divideDecimal(x, y * divisorScale, 0));
      };
    }
    case 'MOD': {
      const natural = Math.max(s1, s2);
      const alignX = scaler(natural - s1);
      const alignY = scaler(natural - s2);
      const done = finish(natural);
      return (x, y) => {
        if (y === 0n) throw divisionByZero(where);
        // bigint % keeps the dividend's sign, like Java's BigDecimal.remainder.
        return done(alignX(x) % alignY(y));
      };
    }
  }
}

/** Converts an operand's values to what the result type's arithmetic works on. */
function asNumber(operand: Operand): Evaluator {
  if (operand.type.root !== 'DECIMAL') return operand.fn;
  const scale = operand.type.scale ?? 0;
  const f = operand.fn;
  return (row) => {
    const v = f(row);
    return v === null ? null : decimalToDouble(v as bigint, scale);
  };
}

function asBigint(operand: Operand): Evaluator {
  if (operand.type.root === 'DECIMAL') return operand.fn;
  const f = operand.fn;
  return (row) => {
    const v = f(row);
    return v === null ? null : BigInt(v as number);
  };
}

/**
 * Compiles a binary arithmetic operator whose result type (from `arithmeticType`) is `result`.
 * `where` is the printed expression, used in RecordError messages.
 */
export function compileArithmetic(op: ArithmeticOperator, left: Operand, right: Operand, result: LogicalType, where: string): Evaluator {
  switch (result.root) {
    case 'INT':
      return strict2(left.fn, right.fn, intOp(op, where));
    case 'SMALLINT':
    case 'TINYINT': {
      // Java computes byte and short arithmetic in int, and Flink casts the result back.
      const int = intOp(op, where);
      const narrow = result.root === 'SMALLINT' ? toShort : toByte;
      return strict2(left.fn, right.fn, (x: number, y: number) => narrow(int(x, y)));
    }
    case 'BIGINT':
      return strict2(left.fn, right.fn, bigintOp(op, where));
    case 'DOUBLE':
      return strict2(asNumber(left), asNumber(right), doubleOp(op));
    case 'FLOAT': {
      const double = doubleOp(op);
      return strict2(asNumber(left), asNumber(right), (x: number, y: number) => Math.fround(double(x, y)));
    }
    case 'DECIMAL':
      return strict2(asBigint(left), asBigint(right), decimalOp(op, left.type, right.type, result, where));
    default:
      throw new Error(`internal: arithmetic result type ${typeName(result)} in ${where}`);
  }
}

/** Compiles unary minus; INT, SMALLINT and TINYINT wrap (`-MIN_VALUE` is MIN_VALUE), as in Java. */
export function compileNegate(operand: Operand, where: string): Evaluator {
  const f = operand.fn;
  switch (operand.type.root) {
    case 'SMALLINT':
    case 'TINYINT': {
      const narrow = operand.type.root === 'SMALLINT' ? toShort : toByte;
      return (row) => {
        const v = f(row);
        return v === null ? null : narrow(-(v as number) | 0) + 0;
      };
    }
    case 'INT':
      return (row) => {
        const v = f(row);
        return v === null ? null : -(v as number) | 0;
      };
    case 'BIGINT':
      return (row) => {
        const v = f(row);
        return v === null ? null : 0 - (v as number);
      };
    case 'DOUBLE':
    case 'FLOAT':
      return (row) => {
        const v = f(row);
        return v === null ? null : -(v as number);
      };
    case 'DECIMAL':
      return (row) => {
        const v = f(row);
        return v === null ? null : -(v as bigint);
      };
    default:
      throw new Error(`internal: negation of ${typeName(operand.type)} in ${where}`);
  }
}
