/**
 * The SQL syntax tree, built by the reader (reader/read-script.ts). Every node keeps the position
 * of its first token so that semantic errors (unknown column, wrong type) point into the script.
 *
 * This file is the contract between the reader and the planner: the reader builds every node
 * below; a planner that does not handle a node rejects it by name at its position.
 */
import type { SqlPosition } from './errors.ts';

/** A scalar SQL expression. */
export type SqlExpr =
  | { readonly k: 'id'; readonly parts: readonly string[]; readonly pos: SqlPosition }
  | { readonly k: 'num'; readonly text: string; readonly pos: SqlPosition }
  | { readonly k: 'str'; readonly value: string; readonly pos: SqlPosition }
  | { readonly k: 'bool'; readonly value: boolean; readonly pos: SqlPosition }
  | { readonly k: 'null'; readonly pos: SqlPosition }
  /** `INTERVAL '5' SECOND`, `INTERVAL '1 02:00' DAY TO MINUTE` (`toUnit`), `INTERVAL '-1' HOUR`. */
  | { readonly k: 'interval'; readonly value: string; readonly unit: string; readonly toUnit?: string; readonly pos: SqlPosition }
  /** A typed literal: `TIMESTAMP '2020-01-01 00:00:00'`, `DATE '…'`, `TIME '…'`, `TIMESTAMP_LTZ '…'`. */
  | { readonly k: 'typed'; readonly type: 'TIMESTAMP' | 'DATE' | 'TIME' | 'TIMESTAMP_LTZ' | 'BINARY'; readonly value: string; readonly pos: SqlPosition }
  | { readonly k: 'bin'; readonly op: string; readonly left: SqlExpr; readonly right: SqlExpr; readonly pos: SqlPosition }
  | { readonly k: 'not'; readonly arg: SqlExpr; readonly pos: SqlPosition }
  | { readonly k: 'neg'; readonly arg: SqlExpr; readonly pos: SqlPosition }
  | {
      readonly k: 'call';
      readonly name: string;
      readonly args: readonly SqlExpr[];
      readonly distinct: boolean;
      readonly star: boolean;
      readonly filter?: SqlExpr;
      readonly over?: SqlOver;
      /** `JSON_VALUE(… RETURNING INT)`: the declared result type's text. */
      readonly returning?: string;
      /** `LISTAGG(x) WITHIN GROUP (ORDER BY …)`. */
      readonly withinGroup?: readonly SqlOrderItem[];
      readonly pos: SqlPosition;
    }
  /**
   * A keyword argument of a function with special syntax, as the first or last argument of its
   * call: the unit of `EXTRACT(HOUR FROM ts)` (→ `EXTRACT(HOUR, ts)`), `FLOOR(ts TO HOUR)`
   * (→ `FLOOR(ts, HOUR)`), `TIMESTAMPADD(HOUR, n, ts)`, the side of `TRIM(BOTH 'x' FROM s)`
   * (→ `TRIM(BOTH, 'x', s)`), a JSON function's mode (`JSON_EXISTS(… , STRICT)` etc.).
   */
  | { readonly k: 'keyword'; readonly word: string; readonly pos: SqlPosition }
  | { readonly k: 'case'; readonly operand?: SqlExpr; readonly whens: readonly (readonly [SqlExpr, SqlExpr])[]; readonly otherwise?: SqlExpr; readonly pos: SqlPosition }
  /** `CAST(expr AS type)`; `safe` for `TRY_CAST` (NULL instead of a data error). */
  | { readonly k: 'cast'; readonly expr: SqlExpr; readonly type: string; readonly pos: SqlPosition; readonly safe?: boolean }
  | { readonly k: 'isnull'; readonly expr: SqlExpr; readonly not: boolean; readonly pos: SqlPosition }
  /** `x IS [NOT] TRUE` / `IS [NOT] FALSE` (`IS UNKNOWN` is read as `IS NULL`). */
  | { readonly k: 'isbool'; readonly expr: SqlExpr; readonly value: boolean; readonly not: boolean; readonly pos: SqlPosition }
  /** `a IS [NOT] DISTINCT FROM b`: equality that treats two NULLs as equal. */
  | { readonly k: 'distinctFrom'; readonly left: SqlExpr; readonly right: SqlExpr; readonly not: boolean; readonly pos: SqlPosition }
  /** `s IS [NOT] JSON [VALUE | SCALAR | ARRAY | OBJECT]`. */
  | { readonly k: 'isjson'; readonly expr: SqlExpr; readonly kind: 'VALUE' | 'SCALAR' | 'ARRAY' | 'OBJECT'; readonly not: boolean; readonly pos: SqlPosition }
  | { readonly k: 'between'; readonly expr: SqlExpr; readonly low: SqlExpr; readonly high: SqlExpr; readonly not: boolean; readonly symmetric?: boolean; readonly pos: SqlPosition }
  | { readonly k: 'in'; readonly expr: SqlExpr; readonly list: readonly SqlExpr[]; readonly not: boolean; readonly pos: SqlPosition }
  | { readonly k: 'like'; readonly expr: SqlExpr; readonly pattern: SqlExpr; readonly escape?: SqlExpr; readonly not: boolean; readonly similar?: boolean; readonly pos: SqlPosition }
  /** `expr [NOT] IN (SELECT …)`: a semi (anti) join with the subquery. */
  | { readonly k: 'inQuery'; readonly expr: SqlExpr; readonly query: SqlQuery; readonly not: boolean; readonly pos: SqlPosition }
  /** `EXISTS (SELECT …)`: a semi join with the (correlated) subquery; `NOT EXISTS` is `not` of it. */
  | { readonly k: 'exists'; readonly query: SqlQuery; readonly pos: SqlPosition }
  /** `(SELECT …)` used as a value. */
  | { readonly k: 'scalarQuery'; readonly query: SqlQuery; readonly pos: SqlPosition }
  /** `arr[1]`, `map['k']`. */
  | { readonly k: 'index'; readonly expr: SqlExpr; readonly index: SqlExpr; readonly pos: SqlPosition }
  /** `(f(x)).field`, `arr[1].name`: a field of a ROW value that is not a column path. */
  | { readonly k: 'field'; readonly expr: SqlExpr; readonly name: string; readonly pos: SqlPosition }
  /** `ARRAY[1, 2]`, `MAP['k', 1]`, `ROW(a, b)` / `(a, b)` in VALUES. */
  | { readonly k: 'constructor'; readonly type: 'ARRAY' | 'MAP' | 'ROW'; readonly args: readonly SqlExpr[]; readonly pos: SqlPosition }
  | { readonly k: 'star'; readonly qualifier?: string; readonly pos: SqlPosition };

/** One end of an OVER window frame. */
export interface SqlFrameBound {
  readonly kind: 'UNBOUNDED PRECEDING' | 'PRECEDING' | 'CURRENT ROW' | 'FOLLOWING' | 'UNBOUNDED FOLLOWING';
  /** The `n` or `INTERVAL '…' unit` of `n PRECEDING` / `n FOLLOWING`. */
  readonly offset?: SqlExpr;
  readonly pos: SqlPosition;
}

/** `OVER (PARTITION BY … ORDER BY … [ROWS | RANGE BETWEEN … AND …])` (named windows are resolved by the reader). */
export interface SqlOver {
  readonly partitionBy: readonly SqlExpr[];
  readonly orderBy: readonly SqlOrderItem[];
  /** The frame; `BETWEEN` omitted (`ROWS 2 PRECEDING`) gives `end` CURRENT ROW. */
  readonly frame?: { readonly unit: 'ROWS' | 'RANGE'; readonly start: SqlFrameBound; readonly end: SqlFrameBound; readonly pos: SqlPosition };
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

/** A name with the position of its token. */
export interface SqlName {
  readonly name: string;
  readonly pos: SqlPosition;
}

/**
 * A possibly qualified name of a table, view, function or database: `t`, `db.t`, `cat.db.t`.
 * `qualifier` holds the parts before the name as written; absent for a bare name.
 */
export interface SqlObjectName {
  readonly name: string;
  readonly qualifier?: readonly string[];
  readonly pos: SqlPosition;
}

/** A FROM item. `columns` is an alias's column list: `AS t (a, b)`. */
export type SqlFrom =
  | { readonly k: 'table'; readonly name: string; readonly qualifier?: readonly string[]; readonly alias?: string; readonly columns?: readonly SqlName[]; readonly hints?: readonly SqlHint[]; readonly pos: SqlPosition }
  | { readonly k: 'subquery'; readonly query: SqlQuery; readonly alias?: string; readonly columns?: readonly SqlName[]; readonly lateral?: boolean; readonly pos: SqlPosition }
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
  /** `[LATERAL] TABLE(f(args)) [AS] t (a, b)`: a table function call. */
  | { readonly k: 'tableFunction'; readonly call: Extract<SqlExpr, { k: 'call' }>; readonly lateral: boolean; readonly alias?: string; readonly columns?: readonly SqlName[]; readonly pos: SqlPosition }
  /** `UNNEST(arr) [WITH ORDINALITY] [AS] t (a)`. */
  | { readonly k: 'unnest'; readonly args: readonly SqlExpr[]; readonly ordinality: boolean; readonly alias?: string; readonly columns?: readonly SqlName[]; readonly pos: SqlPosition }
  | {
      readonly k: 'join';
      /** `CROSS`: a comma join (`FROM a, b`) or CROSS JOIN, whose join condition is in the WHERE clause. */
      readonly joinType: 'INNER' | 'LEFT' | 'RIGHT' | 'FULL' | 'CROSS';
      readonly left: SqlFrom;
      readonly right: SqlFrom;
      /** `FOR SYSTEM_TIME AS OF expr` on the right table: a lookup or temporal join. */
      readonly systemTime?: SqlExpr;
      /** The ON condition; absent for a comma join. */
      readonly on?: SqlExpr;
      /** `USING (a, b)`. */
      readonly using?: readonly SqlName[];
      readonly pos: SqlPosition;
    };

/** A SELECT query. */
export interface SqlSelect {
  readonly k: 'select';
  readonly hints: readonly SqlHint[];
  readonly distinct: boolean;
  readonly items: readonly SqlSelectItem[];
  /** `SELECT 1` without FROM reads from `(VALUES ())`, one row of no columns. */
  readonly from: SqlFrom;
  readonly where?: SqlExpr;
  /** The GROUP BY expressions; with grouping sets, every expression any set names, in order. */
  readonly groupBy: readonly SqlExpr[];
  /**
   * `GROUP BY GROUPING SETS (…)`, `ROLLUP (…)`, `CUBE (…)` (and plain items beside them),
   * expanded to the list of grouping sets; absent for a plain GROUP BY.
   */
  readonly groupingSets?: readonly (readonly SqlExpr[])[];
  readonly having?: SqlExpr;
  readonly pos: SqlPosition;
}

/** `left UNION [ALL] right` (INTERSECT, EXCEPT / MINUS likewise). */
export interface SqlSetOperation {
  readonly k: 'setOp';
  readonly op: 'UNION' | 'INTERSECT' | 'EXCEPT';
  readonly all: boolean;
  readonly left: SqlQuery;
  readonly right: SqlQuery;
  readonly pos: SqlPosition;
}

/** `VALUES (1, 'a'), (2, 'b')`: each row a list of expressions. */
export interface SqlValues {
  readonly k: 'values';
  readonly rows: readonly (readonly SqlExpr[])[];
  readonly pos: SqlPosition;
}

/** One `name [(columns)] AS (query)` of a WITH clause. */
export interface SqlCte {
  readonly name: string;
  readonly columns?: readonly SqlName[];
  readonly query: SqlQuery;
  readonly pos: SqlPosition;
}

/** `WITH a AS (…), b AS (…) body`. */
export interface SqlWith {
  readonly k: 'with';
  readonly ctes: readonly SqlCte[];
  readonly body: SqlQuery;
  readonly pos: SqlPosition;
}

/** `query ORDER BY … [LIMIT n] [OFFSET m]` (also `FETCH FIRST n ROWS ONLY`, read as LIMIT). */
export interface SqlOrdered {
  readonly k: 'ordered';
  readonly query: SqlQuery;
  readonly orderBy: readonly SqlOrderItem[];
  readonly limit?: SqlExpr;
  readonly offset?: SqlExpr;
  readonly pos: SqlPosition;
}

/** A query expression. */
export type SqlQuery = SqlSelect | SqlSetOperation | SqlValues | SqlWith | SqlOrdered;

/** A column of CREATE TABLE: physical (with a type), computed (`name AS expr`) or metadata. */
export interface SqlColumn {
  readonly name: string;
  readonly type?: string;
  readonly computed?: SqlExpr;
  /** `METADATA [FROM 'key'] [VIRTUAL]`. */
  readonly metadata?: boolean;
  /** The `FROM 'key'` of a metadata column (absent: the column's name is the key). */
  readonly metadataKey?: string;
  /** `VIRTUAL`: read-only, not written to a sink. */
  readonly virtual?: boolean;
  readonly primaryKey?: boolean;
  readonly comment?: string;
  readonly pos: SqlPosition;
}

/** `LIKE source (INCLUDING ALL, EXCLUDING OPTIONS, OVERWRITING WATERMARKS …)` of CREATE TABLE. */
export interface SqlTableLike {
  readonly name: string;
  readonly qualifier?: readonly string[];
  readonly options: readonly {
    readonly strategy: 'INCLUDING' | 'EXCLUDING' | 'OVERWRITING';
    readonly what: 'ALL' | 'CONSTRAINTS' | 'GENERATED' | 'METADATA' | 'OPTIONS' | 'PARTITIONS' | 'WATERMARKS';
  }[];
  readonly pos: SqlPosition;
}

/** An INSERT statement (alone, in a STATEMENT SET, or after EXPLAIN). */
export interface SqlInsert {
  readonly k: 'insert';
  readonly table: string;
  readonly qualifier?: readonly string[];
  /** `INSERT OVERWRITE`. */
  readonly overwrite?: boolean;
  /** `INSERT INTO t /*+ OPTIONS(…) *\/`: hints on the sink table. */
  readonly hints?: readonly SqlHint[];
  /** `INSERT INTO t (a, b) …`: the target columns the query's columns go to, in order. */
  readonly columns?: readonly { readonly name: string; readonly pos: SqlPosition }[];
  /** A query, or VALUES for `INSERT INTO t VALUES (…)`. */
  readonly query: SqlQuery;
  readonly pos: SqlPosition;
  readonly text: string;
}

/** A script statement. */
export type SqlStatement =
  | {
      readonly k: 'createTable';
      readonly name: string;
      readonly qualifier?: readonly string[];
      /** `CREATE TEMPORARY TABLE`. */
      readonly temporary?: boolean;
      /** `CREATE TABLE IF NOT EXISTS`: an existing table is kept, the statement does nothing. */
      readonly ifNotExists?: boolean;
      readonly columns: readonly SqlColumn[];
      readonly watermark?: { readonly column: string; readonly expr: SqlExpr; readonly pos: SqlPosition };
      readonly primaryKey?: readonly string[];
      /** `CONSTRAINT name PRIMARY KEY …`. */
      readonly primaryKeyName?: string;
      /** The table's `COMMENT '…'`. */
      readonly comment?: string;
      /** `CREATE TABLE … AS <query>` (CTAS): the query whose schema the table takes and whose rows go into it. */
      readonly asQuery?: { readonly query: SqlQuery; readonly text: string; readonly pos: SqlPosition };
      readonly partitionedBy?: readonly SqlName[];
      readonly like?: SqlTableLike;
      readonly options: ReadonlyMap<string, { readonly value: string; readonly pos: SqlPosition }>;
      readonly pos: SqlPosition;
      readonly text: string;
    }
  | {
      readonly k: 'createView';
      readonly name: string;
      readonly qualifier?: readonly string[];
      readonly temporary?: boolean;
      readonly ifNotExists?: boolean;
      /** The query's text, as SHOW CREATE VIEW prints it. */
      readonly queryText?: string;
      /** `CREATE VIEW v (a, b) AS …`: names for the query's columns. */
      readonly columns?: readonly SqlName[];
      readonly query: SqlQuery;
      readonly pos: SqlPosition;
      readonly text: string;
    }
  /** `CREATE [TEMPORARY [SYSTEM]] FUNCTION name AS 'module.ts#export' [LANGUAGE …]`. */
  | {
      readonly k: 'createFunction';
      readonly name: string;
      readonly qualifier?: readonly string[];
      readonly identifier: string;
      readonly language?: string;
      readonly temporary?: boolean;
      /** `TEMPORARY SYSTEM`: a function without a catalog and database. */
      readonly system?: boolean;
      readonly ifNotExists?: boolean;
      readonly pos: SqlPosition;
      readonly text: string;
    }
  | SqlInsert
  | { readonly k: 'select'; readonly query: SqlQuery; readonly pos: SqlPosition; readonly text: string }
  /** `EXECUTE STATEMENT SET BEGIN …; END` or `BEGIN STATEMENT SET; …; END`: INSERTs run as one job. */
  | { readonly k: 'statementSet'; readonly inserts: readonly SqlInsert[]; readonly pos: SqlPosition; readonly text: string }
  /** `EXPLAIN [PLAN FOR | detail, …] statement`. */
  | { readonly k: 'explain'; readonly statement: SqlStatement; readonly details: readonly string[]; readonly pos: SqlPosition; readonly text: string }
  | { readonly k: 'set'; readonly key: string; readonly value: string; readonly pos: SqlPosition; readonly text: string }
  /** `RESET` (every key) or `RESET 'key'`. */
  | { readonly k: 'reset'; readonly key?: string; readonly pos: SqlPosition; readonly text: string }
  | SqlCatalogStatement;

/** A `[NOT] LIKE | ILIKE 'pattern'` filter of a SHOW statement. */
export interface SqlShowLike {
  readonly pattern: string;
  readonly not: boolean;
  /** `ILIKE`: the pattern ignores case. */
  readonly ignoreCase: boolean;
}

/** What a SHOW statement lists. */
export type SqlShowWhat =
  | 'TABLES'
  | 'VIEWS'
  | 'FUNCTIONS'
  | 'USER FUNCTIONS'
  | 'CATALOGS'
  | 'CURRENT CATALOG'
  | 'DATABASES'
  | 'CURRENT DATABASE'
  | 'COLUMNS'
  | 'CREATE TABLE'
  | 'CREATE VIEW'
  | 'MODULES'
  | 'FULL MODULES';

/** One component of `ALTER TABLE … ADD | MODIFY (…)`: a column (with its position), a primary key or a watermark. */
export type SqlSchemaComponent =
  | { readonly k: 'column'; readonly column: SqlColumn; readonly position?: { readonly first: true } | { readonly after: SqlName } }
  | { readonly k: 'primaryKey'; readonly columns: readonly SqlName[]; readonly constraintName?: string; readonly pos: SqlPosition }
  | { readonly k: 'watermark'; readonly column: string; readonly expr: SqlExpr; readonly pos: SqlPosition };

/** What an `ALTER TABLE` does. */
export type SqlAlterTableAction =
  | { readonly k: 'renameTable'; readonly to: SqlObjectName }
  | { readonly k: 'renameColumn'; readonly from: SqlName; readonly to: SqlName }
  | { readonly k: 'setOptions'; readonly options: ReadonlyMap<string, { readonly value: string; readonly pos: SqlPosition }> }
  | { readonly k: 'resetOptions'; readonly keys: readonly { readonly value: string; readonly pos: SqlPosition }[] }
  | { readonly k: 'add' | 'modify'; readonly components: readonly SqlSchemaComponent[] }
  | { readonly k: 'dropColumns'; readonly columns: readonly SqlName[] }
  | { readonly k: 'dropPrimaryKey' }
  | { readonly k: 'dropConstraint'; readonly name: SqlName }
  | { readonly k: 'dropWatermark' };

/**
 * The catalog statements (Flink's sql/show, describe, drop, alter and use pages): they change or
 * list the script's one catalog, `default_catalog`, while the script compiles.
 */
export type SqlCatalogStatement =
  | {
      readonly k: 'drop';
      readonly what: 'TABLE' | 'VIEW' | 'FUNCTION' | 'DATABASE' | 'CATALOG';
      readonly temporary: boolean;
      /** `DROP TEMPORARY SYSTEM FUNCTION`. */
      readonly system?: boolean;
      readonly ifExists: boolean;
      readonly target: SqlObjectName;
      /** `DROP DATABASE … CASCADE` (the default is RESTRICT). */
      readonly cascade?: boolean;
      readonly pos: SqlPosition;
      readonly text: string;
    }
  | {
      readonly k: 'show';
      readonly what: SqlShowWhat;
      /** The table of SHOW COLUMNS / SHOW CREATE TABLE / VIEW. */
      readonly target?: SqlObjectName;
      /** `SHOW TABLES FROM [cat.]db`: the database listed. */
      readonly from?: SqlObjectName;
      readonly like?: SqlShowLike;
      readonly pos: SqlPosition;
      readonly text: string;
    }
  | { readonly k: 'describe'; readonly target: SqlObjectName; readonly extended: boolean; readonly pos: SqlPosition; readonly text: string }
  /** `USE CATALOG cat` (`catalog`) or `USE [cat.]db`. */
  | { readonly k: 'use'; readonly catalog: boolean; readonly target: SqlObjectName; readonly pos: SqlPosition; readonly text: string }
  | { readonly k: 'createDatabase'; readonly target: SqlObjectName; readonly ifNotExists: boolean; readonly comment?: string; readonly pos: SqlPosition; readonly text: string }
  | { readonly k: 'alterTable'; readonly target: SqlObjectName; readonly ifExists: boolean; readonly action: SqlAlterTableAction; readonly pos: SqlPosition; readonly text: string }
  | {
      readonly k: 'alterView';
      readonly target: SqlObjectName;
      readonly action: { readonly k: 'rename'; readonly to: SqlObjectName } | { readonly k: 'as'; readonly query: SqlQuery; readonly queryText: string };
      readonly pos: SqlPosition;
      readonly text: string;
    };
