/**
 * Reading statements: CREATE TABLE / VIEW / FUNCTION, INSERT (a query or VALUES), SELECT and the
 * other queries, STATEMENT SET, EXPLAIN, SET and RESET. Statements Flink has and Flambda does
 * not (DROP, SHOW, USE …) are named in the error.
 */
import type { SqlColumn, SqlExpr, SqlInsert, SqlName, SqlStatement, SqlTableLike } from '../ast.ts';
import { SqlError, type SqlPosition } from '../errors.ts';
import { QueryReader } from './queries.ts';
import { unsupportedStatement } from './unsupported.ts';

/** A statement before its source text is attached. */
type WithoutText<T> = T extends unknown ? Omit<T, 'text'> : never;

const LIKE_WHAT = ['ALL', 'CONSTRAINTS', 'GENERATED', 'METADATA', 'OPTIONS', 'PARTITIONS', 'WATERMARKS'];

/** The statement reader: a whole script. */
export class StatementReader extends QueryReader {
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
    if (t.kind === 'ident') {
      const named = unsupportedStatement(t.upper, this.peek(1));
      if (named) throw new SqlError(at, named);
    }
    return this.fail('expected a statement (CREATE TABLE, CREATE VIEW, CREATE FUNCTION, INSERT INTO, SELECT, WITH, VALUES, EXPLAIN, SET, RESET or EXECUTE STATEMENT SET)');
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
    if (this.isWord('PARTITION')) throw new SqlError(this.pos(), 'INSERT … PARTITION (…) is not supported');
    let columns: { name: string; pos: SqlPosition }[] | undefined;
    if (this.isOp('(') && !this.opensQuery()) columns = this.nameList('a column name');
    const query = this.query();
    return { k: 'insert', table: name.name, ...(overwrite ? { overwrite } : {}), ...(hints.length > 0 ? { hints } : {}), ...(columns ? { columns } : {}), query, pos: at };
  }

  private create(at: SqlPosition): WithoutText<SqlStatement> {
    const temporary = this.acceptWord('TEMPORARY');
    if (temporary) this.acceptWord('SYSTEM');
    if (this.acceptWord('TABLE')) return this.createTable(at);
    if (this.acceptWord('VIEW')) {
      const ifNotExists = this.acceptWord('IF', 'NOT', 'EXISTS');
      const name = this.qualifiedName('a view name');
      const columns = this.isOp('(') ? this.nameList('a column name') : undefined;
      if (this.acceptWord('COMMENT')) this.stringLiteral('a comment');
      this.expectWord('AS');
      return { k: 'createView', name: name.name, ...(ifNotExists ? { ifNotExists } : {}), ...(columns ? { columns } : {}), query: this.query(), pos: at };
    }
    if (this.acceptWord('FUNCTION')) {
      this.acceptWord('IF', 'NOT', 'EXISTS');
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
      return { k: 'createFunction', name: name.name, identifier, ...(language ? { language } : {}), pos: at };
    }
    const what = this.peek();
    if (what.kind === 'ident' && ['CATALOG', 'DATABASE', 'MODEL'].includes(what.upper)) {
      throw new SqlError(this.pos(what), `CREATE ${what.upper} statements are not supported (a script declares its tables, views and functions and runs its queries)`);
    }
    return this.fail('expected TABLE, VIEW or FUNCTION after CREATE');
  }

  private createTable(at: SqlPosition): WithoutText<SqlStatement> {
    const ifNotExists = this.acceptWord('IF', 'NOT', 'EXISTS');
    const name = this.qualifiedName();
    const columns: SqlColumn[] = [];
    let watermark: { column: string; expr: SqlExpr; pos: SqlPosition } | undefined;
    let primaryKey: string[] | undefined;
    if (this.acceptOp('(')) {
      do {
        const c = this.peek();
        if (this.acceptWord('WATERMARK')) {
          this.expectWord('FOR');
          const column = this.identifier('the watermark column').name;
          this.expectWord('AS');
          watermark = { column, expr: this.expr(), pos: this.pos(c) };
        } else if (this.isWord('PRIMARY') || this.isWord('CONSTRAINT')) {
          if (this.acceptWord('CONSTRAINT')) this.identifier('a constraint name');
          this.expectWord('PRIMARY', 'KEY');
          primaryKey = this.nameList('a key column').map((k) => k.name);
          this.expectWord('NOT', 'ENFORCED');
        } else {
          columns.push(this.column());
        }
      } while (this.acceptOp(','));
      this.expectOp(')');
    }
    if (this.acceptWord('COMMENT')) this.stringLiteral('a comment');
    if (this.isWord('DISTRIBUTED')) throw new SqlError(this.pos(), 'DISTRIBUTED BY is not supported');
    const partitionedBy: SqlName[] | undefined = this.acceptWord('PARTITIONED', 'BY') ? this.nameList('a partition column') : undefined;
    const options = new Map<string, { value: string; pos: SqlPosition }>();
    if (this.acceptWord('WITH')) {
      this.expectOp('(');
      do {
        const key = this.stringLiteral('an option key');
        this.expectOp('=');
        const value = this.stringLiteral('an option value');
        // Errors about an option point at its value, the token to fix.
        options.set(key.value, { value: value.value, pos: value.pos });
      } while (this.acceptOp(','));
      this.expectOp(')');
    }
    const like = this.isWord('LIKE') ? this.tableLike() : undefined;
    if (this.isWord('AS')) throw new SqlError(this.pos(), 'CREATE TABLE … AS SELECT is not supported: declare the table, then INSERT INTO it');
    if (columns.length === 0 && !like) throw new SqlError(at, `table '${name.name}' declares no columns`);
    const inlineKey = columns.filter((c) => c.primaryKey).map((c) => c.name);
    const key = primaryKey ?? (inlineKey.length > 0 ? inlineKey : undefined);
    return {
      k: 'createTable',
      name: name.name,
      ...(ifNotExists ? { ifNotExists } : {}),
      columns,
      ...(watermark ? { watermark } : {}),
      ...(key ? { primaryKey: key } : {}),
      ...(partitionedBy ? { partitionedBy } : {}),
      ...(like ? { like } : {}),
      options,
      pos: at,
    };
  }

  /** `LIKE source [(INCLUDING ALL, EXCLUDING OPTIONS, …)]`. */
  private tableLike(): SqlTableLike {
    this.expectWord('LIKE');
    const name = this.qualifiedName();
    const options: { strategy: 'INCLUDING'; what: 'ALL' }[] = [];
    if (this.acceptOp('(')) {
      do {
        const strategy = this.acceptOneOf(['INCLUDING', 'EXCLUDING', 'OVERWRITING']) ?? this.fail('expected INCLUDING, EXCLUDING or OVERWRITING');
        const what = this.acceptOneOf(LIKE_WHAT) ?? this.fail(`expected one of ${LIKE_WHAT.join(', ')}`);
        options.push({ strategy: strategy as 'INCLUDING', what: what as 'ALL' });
      } while (this.isWord('INCLUDING') || this.isWord('EXCLUDING') || this.isWord('OVERWRITING') || this.acceptOp(','));
      this.expectOp(')');
    }
    return { name: name.name, options, pos: name.pos };
  }

  private column(): SqlColumn {
    const name = this.identifier('a column name');
    if (this.acceptWord('AS')) {
      const computed = this.expr();
      const comment = this.acceptWord('COMMENT') ? this.stringLiteral('a comment').value : undefined;
      return { name: name.name, computed, ...(comment !== undefined ? { comment } : {}), pos: name.pos };
    }
    const type = this.typeText();
    let metadata = false;
    let metadataKey: string | undefined;
    let virtual = false;
    let primaryKey = false;
    let comment: string | undefined;
    for (;;) {
      if (this.acceptWord('METADATA')) {
        metadata = true;
        if (this.acceptWord('FROM')) metadataKey = this.stringLiteral('a metadata key').value;
        virtual = this.acceptWord('VIRTUAL');
      } else if (this.acceptWord('PRIMARY', 'KEY')) {
        this.expectWord('NOT', 'ENFORCED');
        primaryKey = true;
      } else if (this.acceptWord('CONSTRAINT')) {
        this.identifier('a constraint name');
        this.expectWord('PRIMARY', 'KEY', 'NOT', 'ENFORCED');
        primaryKey = true;
      } else if (this.acceptWord('COMMENT')) {
        comment = this.stringLiteral('a comment').value;
      } else break;
    }
    return {
      name: name.name,
      type,
      ...(metadata ? { metadata } : {}),
      ...(metadataKey !== undefined ? { metadataKey } : {}),
      ...(virtual ? { virtual } : {}),
      ...(primaryKey ? { primaryKey } : {}),
      ...(comment !== undefined ? { comment } : {}),
      pos: name.pos,
    };
  }
}
