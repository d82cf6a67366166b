/**
 * The SQL syntax tree the reader builds and the compiler (compile-sql.ts, query.ts) plans. Every
 * node keeps the position of its first token so that semantic errors (unknown column, wrong
 * type) point into the script. Function-like constructors (`ROW(a, b)`, `ARRAY[a, b]`,
 * `MAP[k, v]`) are `call` nodes named ROW, ARRAY and MAP; types are kept as their text
 * (`ROW<name STRING, tags ARRAY<STRING>>`).
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
  | { readonly k: 'cast'; readonly expr: SqlExpr; readonly type: string; readonly pos: SqlPosition }
  | { readonly k: 'isnull'; readonly expr: SqlExpr; readonly not: boolean; readonly pos: SqlPosition }
  | { readonly k: 'between'; readonly expr: SqlExpr; readonly low: SqlExpr; readonly high: SqlExpr; readonly not: boolean; readonly pos: SqlPosition }
  | { readonly k: 'in'; readonly expr: SqlExpr; readonly list: readonly SqlExpr[]; readonly not: boolean; readonly pos: SqlPosition }
  | { readonly k: 'like'; readonly expr: SqlExpr; readonly pattern: SqlExpr; readonly not: boolean; readonly pos: SqlPosition }
  /** `expr [NOT] IN (SELECT …)`: a semi (anti) join with the subquery. */
  | { readonly k: 'inQuery'; readonly expr: SqlExpr; readonly query: SqlQuery; readonly not: boolean; readonly pos: SqlPosition }
  /** `EXISTS (SELECT …)`: a semi join with the (correlated) subquery; `NOT EXISTS` is `not` of it. */
  | { readonly k: 'exists'; readonly query: SqlQuery; readonly pos: SqlPosition }
  /**
   * `expr[index]` (ARRAY element, 1-based; MAP value by key). A dotted name such as `info.name`
   * stays an `id` with parts: the compiler tells a qualifier from a ROW field by the scope.
   */
  | { readonly k: 'item'; readonly expr: SqlExpr; readonly index: SqlExpr; readonly pos: SqlPosition }
  /** `(expr).name`: a field of a ROW value that is not a column reference. */
  | { readonly k: 'field'; readonly expr: SqlExpr; readonly name: string; readonly pos: SqlPosition }
  | { readonly k: 'star'; readonly qualifier?: string; readonly pos: SqlPosition };

/**
 * `OVER (PARTITION BY … ORDER BY … [frame])` or `OVER w` (a name of the query's WINDOW clause,
 * which the reader resolves into the definition, so the compiler sees the full window).
 */
export interface SqlOver {
  readonly partitionBy: readonly SqlExpr[];
  readonly orderBy: readonly SqlOrderItem[];
  /** `ROWS | RANGE BETWEEN … AND …`; absent: Flink's default (RANGE UNBOUNDED PRECEDING to CURRENT ROW). */
  readonly frame?: SqlFrame;
}

/** An OVER window frame. `ROWS 5 PRECEDING` alone is `BETWEEN 5 PRECEDING AND CURRENT ROW`. */
export interface SqlFrame {
  readonly unit: 'ROWS' | 'RANGE';
  readonly start: SqlFrameBound;
  readonly end: SqlFrameBound;
  readonly pos: SqlPosition;
}

/** A frame bound: `offset` is a number of rows (ROWS) or an INTERVAL (RANGE). */
export type SqlFrameBound =
  | { readonly k: 'unboundedPreceding' }
  | { readonly k: 'preceding'; readonly offset: SqlExpr }
  | { readonly k: 'currentRow' }
  | { readonly k: 'following'; readonly offset: SqlExpr }
  | { readonly k: 'unboundedFollowing' };

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

/** A FROM item. `columns` is an alias's column list: `(VALUES (1), (2)) AS t (v)`. */
export type SqlFrom =
  | { readonly k: 'table'; readonly name: string; readonly alias?: string; readonly columns?: readonly string[]; readonly pos: SqlPosition }
  | { readonly k: 'subquery'; readonly query: SqlQuery; readonly alias?: string; readonly columns?: readonly string[]; readonly pos: SqlPosition }
  /**
   * `UNNEST(expr, …) [WITH ORDINALITY] [AS t (c, …)]`, the right side of a CROSS JOIN, a comma
   * join or `LEFT JOIN … ON TRUE`: one row per element (ARRAY) or entry (MAP: key, value).
   */
  | {
      readonly k: 'unnest';
      readonly args: readonly SqlExpr[];
      readonly withOrdinality: boolean;
      readonly alias?: string;
      readonly columns?: readonly string[];
      readonly pos: SqlPosition;
    }
  /** `LATERAL TABLE(fn(args))` (a table function), the right side of a join like `unnest`. */
  | { readonly k: 'lateral'; readonly call: SqlExpr; readonly alias?: string; readonly columns?: readonly string[]; readonly pos: SqlPosition }
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

/** A SELECT query block. */
export interface SqlSelect {
  readonly k: 'select';
  readonly hints: readonly SqlHint[];
  readonly distinct: boolean;
  readonly items: readonly SqlSelectItem[];
  readonly from: SqlFrom;
  readonly where?: SqlExpr;
  /** Plain GROUP BY expressions; with `groupingSets`, every expression any set uses. */
  readonly groupBy: readonly SqlExpr[];
  /**
   * `GROUPING SETS (…)`, `ROLLUP (…)`, `CUBE (…)` (and plain keys beside them), expanded by the
   * reader into the list of grouping sets, each a list of expressions of `groupBy`:
   * `GROUP BY a, ROLLUP (b, c)` → `[[a, b, c], [a, b], [a]]`.
   */
  readonly groupingSets?: readonly (readonly SqlExpr[])[];
  readonly having?: SqlExpr;
  readonly pos: SqlPosition;
}

/** A common table expression of WITH: `name [(columns)] AS (query)`. */
export interface SqlCte {
  readonly name: string;
  readonly columns?: readonly string[];
  readonly query: SqlQuery;
  readonly pos: SqlPosition;
}

/**
 * A query: a SELECT block, a set operation, VALUES, WITH around a query, or a query with
 * ORDER BY / LIMIT / OFFSET (FETCH FIRST n ROWS ONLY is a LIMIT).
 */
export type SqlQuery =
  | SqlSelect
  | { readonly k: 'setOp'; readonly op: 'UNION' | 'INTERSECT' | 'EXCEPT'; readonly all: boolean; readonly left: SqlQuery; readonly right: SqlQuery; readonly pos: SqlPosition }
  | { readonly k: 'values'; readonly rows: readonly (readonly SqlExpr[])[]; readonly pos: SqlPosition }
  | { readonly k: 'with'; readonly ctes: readonly SqlCte[]; readonly body: SqlQuery; readonly pos: SqlPosition }
  | {
      readonly k: 'orderBy';
      readonly query: SqlQuery;
      readonly orderBy: readonly SqlOrderItem[];
      readonly limit?: SqlExpr;
      readonly offset?: SqlExpr;
      readonly pos: SqlPosition;
    };

/** A column of CREATE TABLE: physical (with a type) or computed (`name AS expr`). */
export interface SqlColumn {
  readonly name: string;
  readonly type?: string;
  readonly computed?: SqlExpr;
  /** `METADATA [FROM 'key'] [VIRTUAL]`: a column the connector fills from its metadata. */
  readonly metadata?: boolean;
  /** The metadata key of `FROM 'key'`; absent: the column name is the key. */
  readonly metadataKey?: string;
  /** `VIRTUAL`: read only, left out when the table is written. */
  readonly virtual?: boolean;
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
  | {
      readonly k: 'createView';
      readonly name: string;
      /** `CREATE VIEW v (a, b) AS …`: the view's column names, in order. */
      readonly columns?: readonly { readonly name: string; readonly pos: SqlPosition }[];
      readonly query: SqlQuery;
      readonly pos: SqlPosition;
      readonly text: string;
    }
  /**
   * `CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS] name AS 'module.ts#export' [LANGUAGE …]`:
   * a TypeScript user function; `identifier` is the quoted string as written.
   */
  | { readonly k: 'createFunction'; readonly name: string; readonly identifier: string; readonly pos: SqlPosition; readonly text: string }
  | {
      readonly k: 'insert';
      readonly table: string;
      /** `INSERT INTO t (a, b) …`: the target columns the query's columns go to, in order. */
      readonly columns?: readonly { readonly name: string; readonly pos: SqlPosition }[];
      /** The query, or `values` for `INSERT … VALUES`. */
      readonly query: SqlQuery;
      readonly pos: SqlPosition;
      readonly text: string;
    }
  /** A query run into a print sink. `EXECUTE STATEMENT SET BEGIN … END` is read as its INSERTs. */
  | { readonly k: 'select'; readonly query: SqlQuery; readonly pos: SqlPosition; readonly text: string }
  | { readonly k: 'set'; readonly key: string; readonly value: string; readonly pos: SqlPosition; readonly text: string };
