/**
 * Addition and subtraction of SUM/AVG accumulators per argument type, with Java's overflow
 * behaviour where Flink inherits it.
 */
import { PlanError } from '../../core/errors.ts';
import type { LogicalType } from '../../core/types.ts';

/** Adds and subtracts values of one numeric representation (`number` or `bigint`). */
export interface SumArithmetic {
  readonly zero: number | bigint;
  add(a: number | bigint, b: number | bigint): number | bigint;
  sub(a: number | bigint, b: number | bigint): number | bigint;
}

/**
 * INT sums stay INT and wrap around on overflow like Java `int` arithmetic in Flink's generated
 * code (`IntSumWithRetractAggFunction`). Wrapping is exactly invertible, so retraction still
 * restores earlier sums.
 */
const intArithmetic: SumArithmetic = {
  zero: 0,
  add: (a, b) => ((a as number) + (b as number)) | 0,
  sub: (a, b) => ((a as number) - (b as number)) | 0,
};

/**
 * BIGINT and DOUBLE sums use plain `number` addition. (BIGINT is represented as a safe integer;
 * a sum beyond ±2^53 cannot be represented exactly, where Java would wrap at 64 bits.)
 */
const doubleArithmetic: SumArithmetic = {
  zero: 0,
  add: (a, b) => (a as number) + (b as number),
  sub: (a, b) => (a as number) - (b as number),
};

/** SMALLINT sums wrap at 16 bits, as `(short) (sum + value)` in Flink's ShortSumAggFunction. */
const shortArithmetic: SumArithmetic = {
  zero: 0,
  add: (a, b) => ((((a as number) + (b as number)) << 16) >> 16),
  sub: (a, b) => ((((a as number) - (b as number)) << 16) >> 16),
};

/** TINYINT sums wrap at 8 bits, as `(byte) (sum + value)` in Flink's ByteSumAggFunction. */
const byteArithmetic: SumArithmetic = {
  zero: 0,
  add: (a, b) => ((((a as number) + (b as number)) << 24) >> 24),
  sub: (a, b) => ((((a as number) - (b as number)) << 24) >> 24),
};

/** FLOAT sums add in single precision, as Java's `float` addition in FloatSumAggFunction. */
const floatArithmetic: SumArithmetic = {
  zero: 0,
  add: (a, b) => Math.fround((a as number) + (b as number)),
  sub: (a, b) => Math.fround((a as number) - (b as number)),
};

/** DECIMAL sums add unscaled `bigint`s of one scale exactly. */
const decimalArithmetic: SumArithmetic = {
  zero: 0n,
  add: (a, b) => (a as bigint) + (b as bigint),
  sub: (a, b) => (a as bigint) - (b as bigint),
};

/** The arithmetic for SUM over `type`; AVG of an integer type sums in BIGINT (see avg.ts). */
export function sumArithmetic(type: LogicalType): SumArithmetic {
  switch (type.root) {
    case 'INT':
      return intArithmetic;
    case 'SMALLINT':
      return shortArithmetic;
    case 'TINYINT':
      return byteArithmetic;
    case 'FLOAT':
      return floatArithmetic;
    case 'BIGINT':
    case 'DOUBLE':
      return doubleArithmetic;
    case 'DECIMAL':
      return decimalArithmetic;
    default:
      throw new PlanError(`no arithmetic for ${type.root}`);
  }
}

/**
 * The arithmetic of AVG's sum: integers are summed as BIGINT (Flink's `IntegralAvgAggFunction`),
 * FLOAT as DOUBLE (its `FloatAvgAggFunction`).
 */
export function avgArithmetic(type: LogicalType): SumArithmetic {
  return type.root === 'INT' || type.root === 'SMALLINT' || type.root === 'TINYINT' || type.root === 'FLOAT' ? doubleArithmetic : sumArithmetic(type);
}
