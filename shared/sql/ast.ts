/**
 * The SQL syntax tree, built from dt-sql-parser's parse tree by tree-to-ast.ts (parser.ts for the
 * statements it leaves). Every node keeps the position of its first token so
 * that semantic errors (unknown column, wrong type) point into the script.
 */
import type { SqlPosition } from './errors.ts';

/** A scalar SQL expression. */
export type SqlExpr =
  | { readonly k: 'id'; readonly parts: readonly string[]; readonly pos: SqlPosition }
  | { readonly k: 'num'; readonly text: string; readonly pos: SqlPosition }
  | { readonly k: 'str'; readonly value: string; readonly pos: SqlPosition }
  | { readonly k: 'bool'; readonly value: boolean; readonly pos: SqlPosition }
  | { readonly k: 'null'; readonly pos: SqlPosition }
  | { readonly k: 'interval'; readonly value: string; readonly unit: string; readonly pos: SqlPosition }
  | { readonly k: 'typed'; readonly type: 'TIMESTAMP' | 'DATE'; readonly value: string; readonly pos: SqlPosition }
  | { readonly k: 'bin'; readonly op: string; readonly left: SqlExpr; readonly right: SqlExpr; readonly pos: SqlPosition }
  | { readonly k: 'not'; readonly arg: SqlExpr; readonly pos: SqlPosition }
  | { readonly k: 'neg'; readonly arg: SqlExpr; readonly pos: SqlPosition }
  | { readonly k: 'call'; readonly name: string; readonly args: readonly SqlExpr[]; readonly distinct: boolean; readonly star: boolean; readonly filter?: SqlExpr; readonly over?: SqlOver; readonly pos: SqlPosition }
  | { readonly k: 'case'; readonly operand?: SqlExpr; readonly whens: readonly (readonly [SqlExpr, SqlExpr])[]; readonly otherwise?: SqlExpr; readonly pos: SqlPosition }
  /** `CAST(expr AS type)`; `safe` for `TRY_CAST` (NULL instead of a data error). */
  | { readonly k: 'cast'; readonly expr: SqlExpr; readonly type: string; readonly pos: SqlPosition; readonly safe?: boolean }
  | { readonly k: 'isnull'; readonly expr: SqlExpr; readonly not: boolean; readonly pos: SqlPosition }
  | { readonly k: 'between'; readonly expr: SqlExpr; readonly low: SqlExpr; readonly high: SqlExpr; readonly not: boolean; readonly pos: SqlPosition }
  | { readonly k: 'in'; readonly expr: SqlExpr; readonly list: readonly SqlExpr[]; readonly not: boolean; readonly pos: SqlPosition }
  | { readonly k: 'like'; readonly expr: SqlExpr; readonly pattern: SqlExpr; readonly not: boolean; readonly pos: SqlPosition }
  /** `expr [NOT] IN (SELECT …)`: a semi (anti) join with the subquery. */
  | { readonly k: 'inQuery'; readonly expr: SqlExpr; readonly query: SqlSelect; readonly not: boolean; readonly pos: SqlPosition }
  /** `EXISTS (SELECT …)`: a semi join with the (correlated) subquery; `NOT EXISTS` is `not` of it. */
  | { readonly k: 'exists'; readonly query: SqlSelect; readonly pos: SqlPosition }
  | { readonly k: 'star'; readonly qualifier?: string; readonly pos: SqlPosition };

/** `OVER (PARTITION BY … ORDER BY …)`. */
export interface SqlOver {
  readonly partitionBy: readonly SqlExpr[];
  readonly orderBy: readonly SqlOrderItem[];
}

/** One ORDER BY item. */
export interface SqlOrderItem {
  readonly expr: SqlExpr;
  readonly direction: 'ASC' | 'DESC';
  readonly nulls?: 'FIRST' | 'LAST';
}

/** A SELECT list entry. */
export interface SqlSelectItem {
  readonly expr: SqlExpr;
  readonly alias?: string;
  readonly pos: SqlPosition;
}

/** An optimizer hint: `LOOKUP('table'='t', 'shuffle'='true')`. */
export interface SqlHint {
  readonly name: string;
  readonly options: ReadonlyMap<string, string>;
  readonly pos: SqlPosition;
}

/** A FROM item. */
export type SqlFrom =
  | { readonly k: 'table'; readonly name: string; readonly alias?: string; readonly pos: SqlPosition }
  | { readonly k: 'subquery'; readonly query: SqlSelect; readonly alias?: string; readonly pos: SqlPosition }
  | {
      readonly k: 'tvf';
      readonly fn: 'TUMBLE' | 'HOP' | 'CUMULATE' | 'SESSION';
      readonly input: SqlFrom;
      readonly partitionBy: readonly { readonly name: string; readonly pos: SqlPosition }[];
      readonly timeColumn: { readonly name: string; readonly pos: SqlPosition };
      readonly args: readonly SqlExpr[];
      readonly alias?: string;
      readonly pos: SqlPosition;
    }
  | {
      readonly k: 'join';
      /** `CROSS`: a comma join (`FROM a, b`), whose join condition is in the WHERE clause. */
      readonly joinType: 'INNER' | 'LEFT' | 'RIGHT' | 'FULL' | 'CROSS';
      readonly left: SqlFrom;
      readonly right: SqlFrom;
      /** `FOR SYSTEM_TIME AS OF expr` on the right table: a lookup or temporal join. */
      readonly systemTime?: SqlExpr;
      /** The ON condition; absent for a comma join. */
      readonly on?: SqlExpr;
      readonly pos: SqlPosition;
    };

/** A SELECT query. */
export interface SqlSelect {
  readonly k: 'select';
  readonly hints: readonly SqlHint[];
  readonly distinct: boolean;
  readonly items: readonly SqlSelectItem[];
  readonly from: SqlFrom;
  readonly where?: SqlExpr;
  readonly groupBy: readonly SqlExpr[];
  readonly having?: SqlExpr;
  readonly pos: SqlPosition;
}

/** A column of CREATE TABLE: physical (with a type) or computed (`name AS expr`). */
export interface SqlColumn {
  readonly name: string;
  readonly type?: string;
  readonly computed?: SqlExpr;
  /** `METADATA [FROM 'key'] [VIRTUAL]` columns are read as null (no metadata is available). */
  readonly metadata?: boolean;
  readonly primaryKey?: boolean;
  readonly pos: SqlPosition;
}

/** A script statement. */
export type SqlStatement =
  | {
      readonly k: 'createTable';
      readonly name: string;
      readonly columns: readonly SqlColumn[];
      readonly watermark?: { readonly column: string; readonly expr: SqlExpr; readonly pos: SqlPosition };
      readonly primaryKey?: readonly string[];
      readonly options: ReadonlyMap<string, { readonly value: string; readonly pos: SqlPosition }>;
      readonly pos: SqlPosition;
      readonly text: string;
    }
  | { readonly k: 'createView'; readonly name: string; readonly query: SqlSelect; readonly pos: SqlPosition; readonly text: string }
  | {
      readonly k: 'insert';
      readonly table: string;
      /** `INSERT INTO t (a, b) …`: the target columns the query's columns go to, in order. */
      readonly columns?: readonly { readonly name: string; readonly pos: SqlPosition }[];
      readonly query: SqlSelect;
      readonly pos: SqlPosition;
      readonly text: string;
    }
  | { readonly k: 'select'; readonly query: SqlSelect; readonly pos: SqlPosition; readonly text: string }
  | { readonly k: 'set'; readonly key: string; readonly value: string; readonly pos: SqlPosition; readonly text: string };
