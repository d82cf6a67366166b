/**
 * Type-level mapping from SQL type strings to TypeScript row types, so a schema declared as
 * `{ price: 'BIGINT NOT NULL', channel: 'STRING' }` gives rows typed
 * `{ price: number; channel: string | null }` in the TypeScript API.
 */
import type { LogicalType } from '../core/types.ts';

/** A column type in the API: a SQL type string (`'DECIMAL(10, 2) NOT NULL'`) or a parsed type. */
export type ColumnTypeSpec = string | LogicalType;

/** Columns by name, in declaration order. */
export type SchemaSpec = Readonly<Record<string, ColumnTypeSpec>>;

type Upper<S extends string> = Uppercase<S>;

/**
 * The non-null TypeScript type of a SQL type string. The date-time types are numbers (see
 * shared/core/types.ts): TIMESTAMP and TIMESTAMP_LTZ epoch milliseconds, DATE days since
 * 1970-01-01, TIME milliseconds since midnight.
 */
export type BaseTsType<S extends string> =
  Upper<S> extends `${'BIGINT' | 'INT' | 'INTEGER' | 'SMALLINT' | 'TINYINT' | 'DOUBLE' | 'FLOAT' | 'REAL' | 'TIMESTAMP' | 'DATE' | 'TIME'}${string}`
    ? number
    : Upper<S> extends `DECIMAL${string}`
      ? bigint
      : Upper<S> extends `${'STRING' | 'VARCHAR' | 'CHAR'}${string}`
        ? string
        : Upper<S> extends `BOOLEAN${string}`
          ? boolean
          : unknown;

/** The TypeScript type of one column: nullable unless declared `NOT NULL`. */
export type TsTypeOf<T extends ColumnTypeSpec> = T extends string
  ? Upper<T> extends `${string}NOT NULL`
    ? BaseTsType<T>
    : BaseTsType<T> | null
  : number | bigint | string | boolean | null;

/** The TypeScript row type of a schema spec. */
export type RowOf<S extends SchemaSpec> = { -readonly [K in keyof S]: TsTypeOf<S[K]> };
