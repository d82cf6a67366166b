/**
 * Reading statements: CREATE TABLE (also `… LIKE` and `… AS SELECT`) / VIEW / FUNCTION /
 * DATABASE, INSERT (a query or VALUES), SELECT and the other queries, STATEMENT SET, EXPLAIN,
 * SET and RESET, and the catalog statements (catalog-statements.ts). Statements Flink has and
 * Flambda does not (LOAD MODULE, ANALYZE …) are named in the error.
 */
import type { SqlColumn, SqlExpr, SqlInsert, SqlName, SqlStatement, SqlTableLike } from '../ast.ts';
import { SqlError, type SqlPosition } from '../errors.ts';
import { CatalogStatementReader } from './catalog-statements.ts';
import { unsupportedStatement } from './unsupported.ts';

/** A statement before its source text is attached. */
type WithoutText<T> = T extends unknown ? Omit<T, 'text'> : never;

const LIKE_WHAT = ['ALL', 'CONSTRAINTS', 'GENERATED', 'METADATA', 'OPTIONS', 'PARTITIONS', 'WATERMARKS'];

/** The statement reader: a whole script. */
export class StatementReader extends CatalogStatementReader {
  /** Every statement of the script, in order. */
  script(): SqlStatement[] {
    const out: SqlStatement[] = [];
    while (this.peek().kind !== 'eof') {
      if (this.acceptOp(';')) continue;
      out.push(this.statementWithText());
      if (this.peek().kind !== 'eof') this.expectOp(';');
    }
    return out;
  }

  private statementWithText(): SqlStatement {
    const startIndex = this.i;
    const start = this.peek();
    const stmt = this.statement();
    this.checkNoHintsLeft(startIndex, this.i);
    return { ...stmt, text: this.text.slice(start.offset, this.previous().end) } as SqlStatement;
  }

  private statement(): WithoutText<SqlStatement> {
    const t = this.peek();
    const at = this.pos(t);
    if (this.acceptWord('CREATE')) return this.create(at);
    if (this.isWord('INSERT')) return this.insert();
    if (this.startsQuery()) return { k: 'select', query: this.query(), pos: at };
    if (this.acceptWord('SET')) {
      if (this.isOp(';') || this.peek().kind === 'eof') this.fail('SET without a key lists the options in Flink\'s SQL client; expected \'key\' = \'value\'');
      const key = this.stringLiteral('a configuration key');
      this.expectOp('=');
      const value = this.stringLiteral('a configuration value');
      return { k: 'set', key: key.value, value: value.value, pos: at };
    }
    if (this.acceptWord('RESET')) {
      const key = this.peek().kind === 'string' ? this.stringLiteral('a configuration key').value : undefined;
      return { k: 'reset', ...(key !== undefined ? { key } : {}), pos: at };
    }
    if (this.acceptWord('EXPLAIN')) return this.explain(at);
    if (this.isWord('EXECUTE')) {
      if (this.isWord('STATEMENT', 1)) {
        this.expectWord('EXECUTE', 'STATEMENT', 'SET', 'BEGIN');
        return this.statementSetBody(at);
      }
      this.next();
      if (this.isWord('INSERT')) return this.insert();
      if (this.startsQuery()) return { k: 'select', query: this.query(), pos: at };
      this.fail('expected STATEMENT SET, INSERT or a query after EXECUTE');
    }
    if (this.isWord('BEGIN') && this.isWord('STATEMENT', 1)) {
      this.expectWord('BEGIN', 'STATEMENT', 'SET');
      this.expectOp(';');
      return this.statementSetBody(at);
    }
    const catalogStatement = this.catalogStatement(at);
    if (catalogStatement !== undefined) return catalogStatement;
    if (t.kind === 'ident') {
      const named = unsupportedStatement(t.upper);
      if (named) throw new SqlError(at, named);
    }
    return this.fail('expected a statement (CREATE TABLE, CREATE VIEW, CREATE FUNCTION, INSERT INTO, SELECT, WITH, VALUES, EXPLAIN, SET, RESET, EXECUTE STATEMENT SET, SHOW, DESCRIBE, DROP, ALTER or USE)');
  }

  /** The INSERTs of a statement set up to its END. */
  private statementSetBody(at: SqlPosition): WithoutText<SqlStatement> {
    const inserts: SqlInsert[] = [];
    for (;;) {
      if (this.acceptWord('END')) break;
      if (!this.isWord('INSERT')) this.fail('expected INSERT or END in a STATEMENT SET');
      const startIndex = this.i;
      const start = this.peek();
      const insert = this.insert();
      this.checkNoHintsLeft(startIndex, this.i);
      inserts.push({ ...insert, text: this.text.slice(start.offset, this.previous().end) });
      this.expectOp(';');
    }
    if (inserts.length === 0) throw new SqlError(at, 'a STATEMENT SET needs at least one INSERT');
    return { k: 'statementSet', inserts, pos: at };
  }

  /** `EXPLAIN [PLAN FOR] stmt` or `EXPLAIN detail, detail stmt`. */
  private explain(at: SqlPosition): WithoutText<SqlStatement> {
    const details: string[] = [];
    if (!this.acceptWord('PLAN', 'FOR')) {
      const DETAILS = ['ESTIMATED_COST', 'CHANGELOG_MODE', 'JSON_EXECUTION_PLAN', 'PLAN_ADVICE'];
      let d = this.acceptOneOf(DETAILS);
      while (d) {
        details.push(d);
        if (!this.acceptOp(',')) break;
        d = this.acceptOneOf(DETAILS) ?? this.fail(`expected an EXPLAIN detail (${DETAILS.join(', ')})`);
      }
    }
    const startIndex = this.i;
    const start = this.peek();
    const inner = this.statement();
    this.checkNoHintsLeft(startIndex, this.i);
    if (!['insert', 'select', 'statementSet'].includes(inner.k)) throw new SqlError(this.pos(start), 'EXPLAIN takes a query, an INSERT or a STATEMENT SET');
    const statement = { ...inner, text: this.text.slice(start.offset, this.previous().end) } as SqlStatement;
    return { k: 'explain', statement, details, pos: at };
  }

  private insert(): Omit<SqlInsert, 'text'> {
    const t = this.next();
    const at = this.pos(t);
    const overwrite = this.acceptWord('OVERWRITE');
    if (!overwrite) this.expectWord('INTO');
    const name = this.qualifiedName();
    // `INSERT INTO t /*+ OPTIONS(…) */ …`: the sink table's dynamic options.
    const hints = this.takeHints();
    // Flink writes a static partition only into a PARTITIONED BY table, which Flambda does not write.
    if (this.isWord('PARTITION')) throw new SqlError(this.pos(), 'INSERT … PARTITION (…) is not supported: it writes a partitioned table (PARTITIONED BY), which Flambda does not write');
    let columns: { name: string; pos: SqlPosition }[] | undefined;
    if (this.isOp('(') && !this.opensQuery()) columns = this.nameList('a column name');
    const query = this.query();
    return { k: 'insert', table: name.name, ...(name.qualifier ? { qualifier: name.qualifier } : {}), ...(overwrite ? { overwrite } : {}), ...(hints.length > 0 ? { hints } : {}), ...(columns ? { columns } : {}), query, pos: at };
  }

  private create(at: SqlPosition): WithoutText<SqlStatement> {
    const temporary = this.acceptWord('TEMPORARY');
    const system = temporary && this.acceptWord('SYSTEM');
    if (this.acceptWord('TABLE')) return this.createTable(at, temporary);
    if (this.acceptWord('VIEW')) {
      const ifNotExists = this.acceptWord('IF', 'NOT', 'EXISTS');
      const name = this.qualifiedName('a view name');
      const columns = this.isOp('(') ? this.nameList('a column name') : undefined;
      if (this.acceptWord('COMMENT')) this.stringLiteral('a comment');
      this.expectWord('AS');
      const start = this.peek();
      const query = this.query();
      return {
        k: 'createView',
        name: name.name,
        ...(name.qualifier ? { qualifier: name.qualifier } : {}),
        ...(temporary ? { temporary } : {}),
        ...(ifNotExists ? { ifNotExists } : {}),
        ...(columns ? { columns } : {}),
        query,
        queryText: this.text.slice(start.offset, this.previous().end),
        pos: at,
      };
    }
    if (this.acceptWord('FUNCTION')) {
      const ifNotExists = this.acceptWord('IF', 'NOT', 'EXISTS');
      const name = this.qualifiedName('a function name');
      this.expectWord('AS');
      const identifier = this.stringLiteral("the function's module and export ('module.ts#name')").value;
      let language: string | undefined;
      if (this.acceptWord('LANGUAGE')) {
        const l = this.next();
        if (l.kind !== 'ident') this.fail('expected a language name', l);
        language = l.upper;
      }
      if (this.isWord('USING')) throw new SqlError(this.pos(), 'CREATE FUNCTION … USING JAR is not supported');
      return {
        k: 'createFunction',
        name: name.name,
        ...(name.qualifier ? { qualifier: name.qualifier } : {}),
        identifier,
        ...(language ? { language } : {}),
        ...(temporary ? { temporary } : {}),
        ...(system ? { system } : {}),
        ...(ifNotExists ? { ifNotExists } : {}),
        pos: at,
      };
    }
    if (!temporary && this.acceptWord('DATABASE')) return this.createDatabase(at);
    const what = this.peek();
    if (what.kind === 'ident' && what.upper === 'CATALOG') {
      throw new SqlError(this.pos(what), 'CREATE CATALOG is not supported: a script has the one built-in catalog default_catalog (CREATE DATABASE adds databases to it)');
    }
    if (what.kind === 'ident' && ['MODEL', 'MATERIALIZED', 'CONNECTION'].includes(what.upper)) {
      throw new SqlError(this.pos(what), `CREATE ${what.upper} statements are not supported`);
    }
    return this.fail('expected TABLE, VIEW, FUNCTION or DATABASE after CREATE');
  }

  private createTable(at: SqlPosition, temporary: boolean): WithoutText<SqlStatement> {
    const ifNotExists = this.acceptWord('IF', 'NOT', 'EXISTS');
    const name = this.qualifiedName();
    const columns: SqlColumn[] = [];
    let watermark: { column: string; expr: SqlExpr; pos: SqlPosition } | undefined;
    let primaryKey: string[] | undefined;
    let primaryKeyName: string | undefined;
    if (this.acceptOp('(')) {
      do {
        const c = this.peek();
        if (this.acceptWord('WATERMARK')) {
          this.expectWord('FOR');
          const column = this.identifier('the watermark column').name;
          this.expectWord('AS');
          watermark = { column, expr: this.expr(), pos: this.pos(c) };
        } else if (this.isWord('PRIMARY') || this.isWord('CONSTRAINT')) {
          if (this.acceptWord('CONSTRAINT')) primaryKeyName = this.identifier('a constraint name').name;
          this.expectWord('PRIMARY', 'KEY');
          primaryKey = this.nameList('a key column').map((k) => k.name);
          this.expectWord('NOT', 'ENFORCED');
        } else {
          columns.push(this.column());
        }
      } while (this.acceptOp(','));
      this.expectOp(')');
    }
    const comment = this.acceptWord('COMMENT') ? this.stringLiteral('a comment').value : undefined;
    if (this.isWord('DISTRIBUTED')) throw new SqlError(this.pos(), 'DISTRIBUTED BY is not supported');
    const partitionedBy: SqlName[] | undefined = this.acceptWord('PARTITIONED', 'BY') ? this.nameList('a partition column') : undefined;
    const options = this.acceptWord('WITH') ? this.optionList() : new Map<string, { value: string; pos: SqlPosition }>();
    const like = this.isWord('LIKE') ? this.tableLike() : undefined;
    let asQuery: { query: ReturnType<StatementReader['query']>; text: string; pos: SqlPosition } | undefined;
    if (this.acceptWord('AS')) {
      const start = this.peek();
      // Flink's SqlCreateTableAs: the query gives the schema, and these are not supported yet.
      const ctas = (what: string): never => {
        throw new SqlError(at, `CREATE TABLE AS SELECT syntax does not support ${what} yet.`);
      };
      if (temporary) ctas('to create temporary table');
      if (columns.length > 0) ctas('to specify explicit columns');
      if (watermark) ctas('to specify explicit watermark');
      if (partitionedBy) ctas('to create partitioned table');
      if (primaryKey || columns.some((c) => c.primaryKey)) ctas('primary key constraints');
      if (like) ctas('to create table with LIKE clause');
      const query = this.query();
      asQuery = { query, text: this.text.slice(start.offset, this.previous().end), pos: this.pos(start) };
    }
    if (columns.length === 0 && !like && !asQuery) throw new SqlError(at, `table '${name.name}' declares no columns`);
    const inlineKey = columns.filter((c) => c.primaryKey).map((c) => c.name);
    const key = primaryKey ?? (inlineKey.length > 0 ? inlineKey : undefined);
    return {
      k: 'createTable',
      name: name.name,
      ...(name.qualifier ? { qualifier: name.qualifier } : {}),
      ...(temporary ? { temporary } : {}),
      ...(ifNotExists ? { ifNotExists } : {}),
      columns,
      ...(watermark ? { watermark } : {}),
      ...(key ? { primaryKey: key } : {}),
      ...(primaryKeyName !== undefined ? { primaryKeyName } : {}),
      ...(comment !== undefined ? { comment } : {}),
      ...(partitionedBy ? { partitionedBy } : {}),
      ...(like ? { like } : {}),
      ...(asQuery ? { asQuery } : {}),
      options,
      pos: at,
    };
  }

  /**
   * `LIKE source [(INCLUDING ALL, EXCLUDING OPTIONS, …)]`, checked as Flink's SqlTableLike
   * does: each feature at most once, and no OVERWRITING of ALL, CONSTRAINTS or PARTITIONS.
   */
  private tableLike(): SqlTableLike {
    const at = this.pos();
    this.expectWord('LIKE');
    const name = this.qualifiedName();
    const options: SqlTableLike['options'][number][] = [];
    if (this.acceptOp('(')) {
      do {
        const strategy = this.acceptOneOf(['INCLUDING', 'EXCLUDING', 'OVERWRITING']) ?? this.fail('expected INCLUDING, EXCLUDING or OVERWRITING');
        const what = this.acceptOneOf(LIKE_WHAT) ?? this.fail(`expected one of ${LIKE_WHAT.join(', ')}`);
        options.push({ strategy: strategy as 'INCLUDING', what: what as 'ALL' });
      } while (this.isWord('INCLUDING') || this.isWord('EXCLUDING') || this.isWord('OVERWRITING') || this.acceptOp(','));
      this.expectOp(')');
    }
    if (new Set(options.map((o) => o.what)).size !== options.length) throw new SqlError(at, 'Each like option feature can be declared only once.');
    const illegal = options.find((o) => o.strategy === 'OVERWRITING' && ['ALL', 'CONSTRAINTS', 'PARTITIONS'].includes(o.what));
    if (illegal) throw new SqlError(at, `Illegal merging strategy '${illegal.strategy}' for '${illegal.what}' option.`);
    return { name: name.name, ...(name.qualifier ? { qualifier: name.qualifier } : {}), options, pos: name.pos };
  }
}
