/**
 * Scalar expressions: plain, JSON-serializable trees shared by the TypeScript API, the Flink
 * SQL front end and every runtime. `shared/plan/expr-compile.ts` type-checks them against a
 * schema and compiles them to closures; `shared/plan/expr-print.ts` prints them as Flink does in
 * EXPLAIN (`SUM(quantity)`, `<(price, 10000)`, `$f3`).
 */
import type { LogicalType, Value } from '../core/types.ts';
import type { UdfSignature } from './udf-signature.ts';

/** A reference to an input column by name. */
export interface FieldRef {
  readonly kind: 'ref';
  readonly name: string;
}

/**
 * The unit an INTERVAL literal was written in (`INTERVAL '10' SECOND`), for printing. YEAR and
 * MONTH are Flink's year-month intervals, whose length is a number of months.
 */
export type IntervalUnit = 'YEAR' | 'MONTH' | 'DAY' | 'HOUR' | 'MINUTE' | 'SECOND' | 'MILLISECOND';

/** A constant. DECIMAL literals hold the unscaled bigint and carry their scale in `type`. */
export interface Literal {
  readonly kind: 'literal';
  readonly value: Value;
  readonly type: LogicalType;
  /**
   * Set on an INTERVAL literal: `value` is its length in milliseconds (a BIGINT), or in months for
   * a YEAR or MONTH interval, and it can be added to or subtracted from a date-time
   * (`ts - INTERVAL '10' SECOND`, `d + INTERVAL '1' MONTH`); Flink prints it
   * `10000:INTERVAL SECOND`.
   */
  readonly interval?: IntervalUnit;
}

/**
 * A call of a built-in operator or function by its SQL name, upper case:
 * arithmetic `+ - * / %`, comparison `= <> < <= > >=`, logic `AND OR NOT`, `IS NULL`,
 * `IS NOT NULL`, `CASE` (args: when1, then1, …, else), `CAST` (see {@link CastExpr}), and
 * functions such as `DATE_FORMAT`, `UPPER`, `LOWER`, `CHAR_LENGTH`, `CONCAT`, `ABS`, `FLOOR`,
 * `CEIL`, `MOD`, `COALESCE`.
 */
export interface Call {
  readonly kind: 'call';
  readonly fn: string;
  readonly args: readonly Expr[];
  /**
   * The session time zone the call was written under (`SET 'table.local-time-zone'`), for the
   * calls whose result depends on it (CURRENT_DATE, a TIMESTAMP_LTZ compared with a string, …).
   * Absent means UTC.
   */
  readonly zone?: string;
}

/** `CAST(expr AS type)`, or `TRY_CAST(expr AS type)` when `safe`. */
export interface CastExpr {
  readonly kind: 'cast';
  readonly expr: Expr;
  readonly type: LogicalType;
  /**
   * `TRY_CAST`: a value that cannot be converted gives NULL instead of a data error (so the
   * result is always nullable), as Flink's TRY_CAST. @default false
   */
  readonly safe?: boolean;
  /**
   * The session time zone of a cast between TIMESTAMP_LTZ and another type (a TIMESTAMP_LTZ is
   * shown and read as a wall-clock time of that zone). Absent means UTC.
   */
  readonly zone?: string;
}

/**
 * A user-defined scalar function from a TypeScript pipeline. The function itself lives in the
 * pipeline module's function registry under `ref`; the job graph keeps only the reference, the
 * declared result type and the arguments, so it stays serializable.
 *
 * With `args` (a `scalarFunction(…)` called in SQL or through `pipeline.function`), the function
 * takes the arguments' values, cast to the parameter types the call resolves to under `input`
 * and converted to JS values (shared/plan/udf-values.ts); its result is converted back to
 * `type`. Without, it is a `(row) => value` of the whole row (`Stream.udf`).
 */
export interface UdfCall {
  readonly kind: 'udf';
  readonly ref: string;
  /** Shown in EXPLAIN, e.g. the name the user gave the function (followed by the arguments). */
  readonly display: string;
  readonly type: LogicalType;
  /** The arguments of a function that takes values rather than the row. */
  readonly args?: readonly Expr[];
  /** The declared parameter types (one signature per overload); absent: none declared. */
  readonly input?: readonly UdfSignature[];
}

/** Any scalar expression. */
export type Expr = FieldRef | Literal | Call | CastExpr | UdfCall;
