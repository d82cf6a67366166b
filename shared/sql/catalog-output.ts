/**
 * What the catalog statements print, as Flink prints it: the column rows of DESCRIBE and SHOW
 * COLUMNS (Flink's ShowColumnsOperation: name, type, null, key, extras, watermark, and comment
 * when a column has one) and the DDL of SHOW CREATE TABLE / VIEW (Flink's ShowCreateUtil).
 */
import { parseType, formatSerializableType, formatType } from '../core/type-parse.ts';
import type { Field, LogicalType } from '../core/types.ts';
import { inferType } from '../plan/expr-types.ts';
import type { SqlColumn } from './ast.ts';
import { DEFAULT_CATALOG, type CatalogTable } from './catalog.ts';
import { atPosition } from './errors.ts';
import { compileExpr, scopeOf } from './expressions.ts';
import { quoteName, quoteString, unparseExpr } from './sql-unparse.ts';
import type { TableDefinition } from './table-definition.ts';

/** A statement's printed result: a table (Flink's tableau), or text printed as it is. */
export type StatementResult =
  | { readonly kind: 'table'; readonly columns: readonly string[]; readonly rows: readonly (readonly (string | boolean | null)[])[] }
  | { readonly kind: 'text'; readonly text: string };

/** A type as Flink's `asSummaryString` prints it: STRING for the longest VARCHAR. */
export function summaryType(type: LogicalType): string {
  return formatType(type).replace(/VARCHAR\(2147483647\)/g, 'STRING');
}

/** The type of a declared column's text, nullable unless it says NOT NULL. */
function declaredType(c: SqlColumn): LogicalType {
  return atPosition(c.pos, () => parseType(c.type ?? ''));
}

/**
 * DESCRIBE's rows of a table: every column with its type (`*ROWTIME*` on the watermark's
 * column, `TIMESTAMP_LTZ(3) *PROCTIME*` for `PROCTIME()`), nullability (primary key columns are
 * NOT NULL, as Flink makes them), `PRI(…)`, its expression or metadata key, its watermark.
 */
export function describeTable(table: CatalogTable): StatementResult {
  const def = table.definition;
  const key = def.primaryKey?.columns;
  const physicalScope = scopeOf(table.physical, `table '${def.name}'`, [def.name]);
  const withComment = def.columns.some((c) => c.comment !== undefined);
  const rows = def.columns.map((c) => {
    let type: LogicalType;
    let extras: string | null = null;
    let typeText: string;
    if (c.computed) {
      extras = `AS ${unparseExpr(c.computed)}`;
      const proctime = c.computed.k === 'call' && c.computed.name === 'PROCTIME' && c.computed.args.length === 0;
      if (proctime) {
        type = { root: 'TIMESTAMP', nullable: false, precision: 3 };
        typeText = 'TIMESTAMP_LTZ(3) *PROCTIME*';
      } else {
        const expr = c.computed;
        type = atPosition(c.pos, () => inferType(compileExpr(expr, physicalScope), table.physical));
        typeText = summaryType({ ...type, nullable: true });
      }
    } else {
      type = declaredType(c);
      typeText = summaryType({ ...type, nullable: true });
      if (c.metadata) extras = `METADATA${c.metadataKey !== undefined ? ` FROM ${quoteString(c.metadataKey)}` : ''}${c.virtual ? ' VIRTUAL' : ''}`;
    }
    const rowtime = def.watermark?.column === c.name;
    const inKey = key?.includes(c.name) ?? false;
    const row: (string | boolean | null)[] = [
      c.name,
      `${typeText}${rowtime ? ' *ROWTIME*' : ''}`,
      type.nullable && !inKey,
      inKey ? `PRI(${(key ?? []).join(', ')})` : null,
      extras,
      rowtime && def.watermark ? unparseExpr(def.watermark.expr) : null,
    ];
    if (withComment) row.push(c.comment ?? null);
    return row;
  });
  return { kind: 'table', columns: ['name', 'type', 'null', 'key', 'extras', 'watermark', ...(withComment ? ['comment'] : [])], rows };
}

/** DESCRIBE's rows of a view: its query's columns (a PROCTIME() attribute marked `*PROCTIME*`). */
export function describeColumns(fields: readonly Field[]): StatementResult {
  const marker = (f: Field): string => (f.timeAttribute === 'rowtime' ? ' *ROWTIME*' : f.timeAttribute === 'proctime' ? ' *PROCTIME*' : '');
  const rows = fields.map((f) => [f.name, `${summaryType({ ...f.type, nullable: true })}${marker(f)}`, f.type.nullable, null, null, null]);
  return { kind: 'table', columns: ['name', 'type', 'null', 'key', 'extras', 'watermark'], rows };
}

/** Flink's `catalog`.`database`.`name`. */
export function quotedIdentifier(database: string, name: string): string {
  return [DEFAULT_CATALOG, database, name].map(quoteName).join('.');
}

/**
 * A primary key's constraint name when the DDL gives none: Flink's `"PK_" + columns.hashCode()`
 * (Java's List and String hash codes, 32-bit).
 */
export function defaultConstraintName(columns: readonly string[]): string {
  let list = 1;
  for (const c of columns) {
    let h = 0;
    for (let i = 0; i < c.length; i++) h = (Math.imul(h, 31) + c.charCodeAt(i)) | 0;
    list = (Math.imul(list, 31) + h) | 0;
  }
  return `PK_${list}`;
}

/** SHOW CREATE TABLE: the DDL that declares the table as it is now. */
export function showCreateTable(def: TableDefinition): string {
  const lines = def.columns.map((c) => {
    const comment = c.comment !== undefined ? ` COMMENT ${quoteString(c.comment)}` : '';
    if (c.computed) return `  ${quoteName(c.name)} AS ${unparseExpr(c.computed)}${comment}`;
    const type = formatSerializableType(declaredType(c));
    const metadata = c.metadata ? ` METADATA${c.metadataKey !== undefined ? ` FROM ${quoteString(c.metadataKey)}` : ''}${c.virtual ? ' VIRTUAL' : ''}` : '';
    return `  ${quoteName(c.name)} ${type}${metadata}${comment}`;
  });
  if (def.watermark) lines.push(`  WATERMARK FOR ${quoteName(def.watermark.column)} AS ${unparseExpr(def.watermark.expr)}`);
  if (def.primaryKey) {
    const name = def.primaryKey.name ?? defaultConstraintName(def.primaryKey.columns);
    lines.push(`  CONSTRAINT ${quoteName(name)} PRIMARY KEY (${def.primaryKey.columns.map(quoteName).join(', ')}) NOT ENFORCED`);
  }
  const clauses: string[] = [];
  if (def.comment !== undefined) clauses.push(`COMMENT ${quoteString(def.comment)}`);
  if (def.partitionedBy) clauses.push(`PARTITIONED BY (${def.partitionedBy.map(quoteName).join(', ')})`);
  if (def.options.size > 0) clauses.push(`WITH (\n${[...def.options].map(([k, v]) => `  ${quoteString(k)} = ${quoteString(v.value)}`).join(',\n')}\n)`);
  // `) WITH (` on one line, as Flink prints it; a comment or partitions each on a line of their own.
  const tail = clauses.length === 1 && def.options.size > 0 ? ` ${clauses[0]}` : clauses.map((c) => `\n${c}`).join('');
  return `CREATE ${def.temporary ? 'TEMPORARY ' : ''}TABLE ${quotedIdentifier(def.database, def.name)} (\n${lines.join(',\n')}\n)${tail}`;
}

/** SHOW CREATE VIEW: Flink's `CREATE VIEW … (columns) as` and the view's query. */
export function showCreateView(declared: { readonly name: string; readonly database: string; readonly temporary: boolean; readonly queryText: string }, columns: readonly string[]): string {
  return `CREATE ${declared.temporary ? 'TEMPORARY ' : ''}VIEW ${quotedIdentifier(declared.database, declared.name)}(${columns.map(quoteName).join(', ')}) as\n${declared.queryText}`;
}
