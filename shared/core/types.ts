/**
 * Logical types, values and schemas.
 *
 * Runtime value representation (one per SQL type, chosen for speed and exactness):
 *
 * | SQL type              | JS value                                   |
 * |-----------------------|--------------------------------------------|
 * | BIGINT, INT, SMALLINT, TINYINT | `number` (a safe integer; INT within 32 bits, SMALLINT 16, TINYINT 8) |
 * | DOUBLE                | `number`                                   |
 * | FLOAT                 | `number` holding a single-precision value (`Math.fround`) |
 * | DECIMAL(p, s)         | `bigint` holding the unscaled value (value × 10^s) |
 * | STRING, VARCHAR(n), CHAR(n) | `string` (a CHAR(n) value made by CAST is padded to n) |
 * | BYTES, VARBINARY(n), BINARY(n) | `string`: the bytes in lower-case hex, two digits a byte |
 * | BOOLEAN               | `boolean`                                  |
 * | TIMESTAMP(3)          | `number`: epoch milliseconds of the wall-clock time read as UTC |
 * | DATE                  | `number`: days since 1970-01-01 (negative before) |
 * | TIME(p), p = 0…3      | `number`: milliseconds since midnight, 0 … 86 399 999 (digits past p are 0) |
 * | TIMESTAMP_LTZ(3)      | `number`: an instant, epoch milliseconds (shown in the session time zone) |
 * | ROW<a T, b U>         | a plain object `{ a, b }` with the field values |
 * | ARRAY<T>              | an array of the element values             |
 * | MAP<STRING, V>        | a plain object from key to value (keys are STRING) |
 * | MULTISET<T>           | an array of `[element, count]` pairs, each element once, in order (core/multiset.ts) |
 * | NULL of any type      | `null`                                     |
 *
 * TIMESTAMP and TIMESTAMP_LTZ hold the same kind of number but mean different things, as in
 * Flink: a TIMESTAMP is a wall-clock reading without a zone (`2024-01-01 10:00:00` is the number
 * of `2024-01-01T10:00:00Z`), a TIMESTAMP_LTZ is a point on the time line that
 * `table.local-time-zone` turns into a wall-clock reading when it is shown, cast to TIMESTAMP or
 * STRING, or windowed (shared/core/time-zone.ts).
 *
 * Everything here is plain data so that schemas travel inside the JSON job graph.
 */

/**
 * The type roots Flambda supports. VARCHAR is a STRING with a declared maximum length, CHAR(n) a
 * STRING with `fixedLength` set (so every string function takes it as it takes a VARCHAR).
 * VARBINARY is Flink's BYTES (VARBINARY(2147483647)) without a length, VARBINARY(n) with one, and
 * BINARY(n) with `fixedLength` too.
 */
export type TypeRoot =
  | 'BIGINT'
  | 'INT'
  | 'SMALLINT'
  | 'TINYINT'
  | 'DOUBLE'
  | 'FLOAT'
  | 'DECIMAL'
  | 'STRING'
  | 'VARBINARY'
  | 'BOOLEAN'
  | 'TIMESTAMP'
  | 'DATE'
  | 'TIME'
  | 'TIMESTAMP_LTZ'
  | 'ROW'
  | 'ARRAY'
  | 'MAP'
  | 'MULTISET';

/** One field of a ROW type. */
export interface RowTypeField {
  readonly name: string;
  readonly type: LogicalType;
}

/** A logical (SQL) type. */
export interface LogicalType {
  readonly root: TypeRoot;
  readonly nullable: boolean;
  /**
   * DECIMAL precision (1..38); TIMESTAMP and TIMESTAMP_LTZ fractional precision (always 3 for
   * now); TIME fractional precision (0..3, Flink's default TIME is TIME(0)).
   */
  readonly precision?: number;
  /** DECIMAL scale (0..precision). */
  readonly scale?: number;
  /** VARCHAR(n) / VARBINARY(n) maximum length, CHAR(n) / BINARY(n) length; absent for STRING and BYTES. */
  readonly length?: number;
  /** CHAR(n) and BINARY(n): a STRING or VARBINARY of fixed `length` (CAST pads it, with spaces or zero bytes). */
  readonly fixedLength?: true;
  /** ROW: the fields in order. */
  readonly fields?: readonly RowTypeField[];
  /** ARRAY and MULTISET: the element type. */
  readonly element?: LogicalType;
  /** MAP: the key type (STRING) and the value type. */
  readonly key?: LogicalType;
  readonly value?: LogicalType;
}

/** A runtime value; see the table in this module's header. */
export type Value = number | bigint | string | boolean | null | readonly Value[] | { readonly [name: string]: Value };

/** A row: field name → value. Rows are treated as immutable once emitted. */
export type Row = Readonly<Record<string, Value>>;

/** Marks a TIMESTAMP or TIMESTAMP_LTZ column as an event-time (rowtime) or processing-time attribute. */
export type TimeAttribute = 'rowtime' | 'proctime';

/** One column of a schema. */
export interface Field {
  readonly name: string;
  readonly type: LogicalType;
  readonly timeAttribute?: TimeAttribute;
}

/** An ordered list of named, typed fields. */
export interface Schema {
  readonly fields: readonly Field[];
}
