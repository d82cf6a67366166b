/**
 * Logical types, values and schemas.
 *
 * Runtime value representation (one per SQL type, chosen for speed and exactness):
 *
 * | SQL type              | JS value                                   |
 * |-----------------------|--------------------------------------------|
 * | BIGINT, INT           | `number` (a safe integer; INT within 32 bits) |
 * | DOUBLE                | `number`                                   |
 * | DECIMAL(p, s)         | `bigint` holding the unscaled value (value × 10^s) |
 * | STRING, VARCHAR(n)    | `string`                                   |
 * | BOOLEAN               | `boolean`                                  |
 * | TIMESTAMP(3)          | `number`: epoch milliseconds, UTC          |
 * | ROW<a T, b U>         | a plain object `{ a, b }` with the field values |
 * | ARRAY<T>              | an array of the element values             |
 * | MAP<STRING, V>        | a plain object from key to value (keys are STRING) |
 * | MULTISET<T>           | an array of `[element, count]` pairs, each element once, in order (core/multiset.ts) |
 * | NULL of any type      | `null`                                     |
 *
 * Everything here is plain data so that schemas travel inside the JSON job graph.
 */

/** The type roots Flambda supports. VARCHAR is a STRING with a declared maximum length. */
export type TypeRoot = 'BIGINT' | 'INT' | 'DOUBLE' | 'DECIMAL' | 'STRING' | 'BOOLEAN' | 'TIMESTAMP' | 'ROW' | 'ARRAY' | 'MAP' | 'MULTISET';

/** One field of a ROW type. */
export interface RowTypeField {
  readonly name: string;
  readonly type: LogicalType;
}

/** A logical (SQL) type. */
export interface LogicalType {
  readonly root: TypeRoot;
  readonly nullable: boolean;
  /** DECIMAL precision (1..38), TIMESTAMP fractional precision (always 3 for now). */
  readonly precision?: number;
  /** DECIMAL scale (0..precision). */
  readonly scale?: number;
  /** VARCHAR(n) maximum length; absent for STRING. */
  readonly length?: number;
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

/** Marks a TIMESTAMP column as an event-time (rowtime) or processing-time attribute. */
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
