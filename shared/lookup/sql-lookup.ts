/**
 * The SQL both JDBC-style sources send, parameterised so key values never enter the SQL text:
 * `SELECT cols FROM t WHERE k IN (…)` for one key column, `WHERE (k1, k2) IN ((…), …)` for a
 * composite key, and the row handling shared by the MySQL and PostgreSQL sources.
 */
import { PlanError } from '../core/errors.ts';
import { requireField } from '../core/type-parse.ts';
import type { Field, Row, Schema } from '../core/types.ts';
import { distinctKeys, groupRowsByKey, keyColumnsOf } from './dimension-source.ts';
import type { DimensionRowConverter } from './dimension-values.ts';
import { dimensionRowConverter, sqlParameter } from './dimension-values.ts';
import { quoteQualified } from './jdbc-config.ts';

/** A dialect: how identifiers are quoted and how the n-th parameter (0-based) is written. */
export interface SqlDialect {
  quote(identifier: string): string;
  placeholder(index: number): string;
  /**
   * The WHERE clause for a single key column and `count` keys, with its parameters built from
   * the key values; absent to use the generic `k IN (…)`.
   */
  singleColumnIn?(quotedColumn: string, values: readonly unknown[]): { sql: string; params: unknown[] };
}

/** Runs one parameterised query and returns its records (column name → driver value). */
export type SqlRunner = (sql: string, params: readonly unknown[]) => Promise<readonly Record<string, unknown>[]>;

/** A SQL-backed lookup: everything the sources share except the driver. */
export class SqlLookup {
  private readonly convert: DimensionRowConverter;
  private readonly selectList: string;
  private readonly from: string;

  constructor(
    readonly table: string,
    readonly schema: Schema,
    private readonly dialect: SqlDialect,
    private readonly run: SqlRunner,
  ) {
    this.convert = dimensionRowConverter(table, schema);
    this.selectList = schema.fields.map((f) => dialect.quote(f.name)).join(', ');
    this.from = quoteQualified(table, (id) => dialect.quote(id));
  }

  /** The statement and parameters for `keys` over `columns` (non-empty, distinct, no NULLs). */
  statement(keys: readonly Row[], columns: readonly string[]): { sql: string; params: unknown[] } {
    const fields: Field[] = columns.map((c) => requireField(this.schema, c, `lookup keys of table '${this.table}'`));
    const head = `SELECT ${this.selectList} FROM ${this.from} WHERE `;
    if (columns.length === 1) {
      const field = fields[0]!;
      const values = keys.map((k) => sqlParameter(field, k[field.name] ?? null));
      const quoted = this.dialect.quote(field.name);
      if (this.dialect.singleColumnIn !== undefined) {
        const clause = this.dialect.singleColumnIn(quoted, values);
        return { sql: head + clause.sql, params: clause.params };
      }
      return { sql: `${head}${quoted} IN (${values.map((_, i) => this.dialect.placeholder(i)).join(', ')})`, params: values };
    }
    const params: unknown[] = [];
    const tuples: string[] = [];
    for (const key of keys) {
      const slots: string[] = [];
      for (const field of fields) {
        slots.push(this.dialect.placeholder(params.length));
        params.push(sqlParameter(field, key[field.name] ?? null));
      }
      tuples.push(`(${slots.join(', ')})`);
    }
    const columnList = fields.map((f) => this.dialect.quote(f.name)).join(', ');
    return { sql: `${head}(${columnList}) IN (${tuples.join(', ')})`, params };
  }

  /** {@link DimensionSource.lookupMany} over the driver: one statement for all keys. */
  async lookupMany(keys: readonly Row[]): Promise<Map<string, Row[]>> {
    const columns = keyColumnsOf(keys);
    if (columns.length === 0) return new Map();
    const { keys: distinct, encoded } = distinctKeys(keys, columns);
    if (distinct.length === 0) return new Map();
    const { sql, params } = this.statement(distinct, columns);
    const records = await this.run(sql, params);
    return groupRowsByKey(records.map(this.convert), columns, encoded);
  }

  /** {@link DimensionSource.loadAll}: the whole table. */
  async loadAll(): Promise<Row[]> {
    const records = await this.run(`SELECT ${this.selectList} FROM ${this.from}`, []);
    return records.map(this.convert);
  }
}

/** Rejects identifiers the quoting cannot make safe (NUL bytes). */
export function checkIdentifier(identifier: string): void {
  if (identifier === '' || identifier.includes('\u0000')) throw new PlanError(`invalid SQL identifier ${JSON.stringify(identifier)}`);
}
