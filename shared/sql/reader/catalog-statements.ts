/**
 * Reading the catalog statements of Flink's sql/show, describe, drop, alter and use pages —
 * `SHOW …`, `DESCRIBE`, `DROP …`, `ALTER TABLE / VIEW`, `USE`, `CREATE DATABASE` — and the
 * parts of a table definition they share with CREATE TABLE (a column, a `WITH (…)` list).
 * Forms Flink has and Flambda does not (`SHOW PARTITIONS`, `ALTER FUNCTION` …) are named.
 */
import type { SqlAlterTableAction, SqlCatalogStatement, SqlColumn, SqlName, SqlObjectName, SqlSchemaComponent, SqlShowLike, SqlShowWhat } from '../ast.ts';
import { SqlError, type SqlPosition } from '../errors.ts';
import { QueryReader } from './queries.ts';

/** A statement before its source text is attached. */
type WithoutText<T> = T extends unknown ? Omit<T, 'text'> : never;

/** The option list of `WITH (…)` / `SET (…)`, each value with its position (errors about an option point at its value). */
export type OptionList = Map<string, { value: string; pos: SqlPosition }>;

/** SHOW forms Flink has and Flambda does not, by the word after SHOW. */
const UNSUPPORTED_SHOW: Readonly<Record<string, string>> = {
  PARTITIONS: 'SHOW PARTITIONS is not supported (Flambda does not write partitioned tables)',
  JARS: 'SHOW JARS is not supported (a script loads no JARs: functions are TypeScript modules)',
  PROCEDURES: 'SHOW PROCEDURES is not supported (Flambda has no stored procedures)',
  MODELS: 'SHOW MODELS is not supported',
  CONNECTIONS: 'SHOW CONNECTIONS is not supported',
  MATERIALIZED: 'SHOW MATERIALIZED TABLES is not supported',
  JOBS: 'SHOW JOBS lists the jobs of the SQL shell (flambda sql); a script has one job',
};

/** The reader of the catalog statements; the statement reader builds on it. */
export abstract class CatalogStatementReader extends QueryReader {
  /** A catalog statement starting at the next token, or undefined when it starts none. */
  protected catalogStatement(at: SqlPosition): WithoutText<SqlCatalogStatement> | undefined {
    if (this.acceptWord('DROP')) return this.drop(at);
    if (this.acceptWord('SHOW')) return this.show(at);
    if (this.acceptOneOf(['DESCRIBE', 'DESC'])) {
      if (this.isWord('CATALOG') || this.isWord('DATABASE') || this.isWord('FUNCTION') || this.isWord('MODEL')) {
        throw new SqlError(this.pos(), `DESCRIBE ${this.peek().upper} is not supported (DESCRIBE takes a table or view)`);
      }
      const extended = this.acceptWord('EXTENDED');
      return { k: 'describe', target: this.objectName(), extended, pos: at };
    }
    if (this.acceptWord('USE')) {
      if (this.isWord('MODULES')) throw new SqlError(this.pos(), 'USE MODULES is not supported (Flambda has the one core module)');
      if (this.acceptWord('CATALOG')) return { k: 'use', catalog: true, target: this.objectName('a catalog name'), pos: at };
      return { k: 'use', catalog: false, target: this.objectName('a database name'), pos: at };
    }
    if (this.acceptWord('ALTER')) return this.alter(at);
    return undefined;
  }

  /** `CREATE DATABASE [IF NOT EXISTS] [cat.]db [COMMENT '…'] [WITH (…)]`, after CREATE DATABASE. */
  protected createDatabase(at: SqlPosition): WithoutText<SqlCatalogStatement> {
    const ifNotExists = this.acceptWord('IF', 'NOT', 'EXISTS');
    const target = this.objectName('a database name');
    const comment = this.acceptWord('COMMENT') ? this.stringLiteral('a comment').value : undefined;
    if (this.acceptWord('WITH')) this.optionList();
    return { k: 'createDatabase', target, ifNotExists, ...(comment !== undefined ? { comment } : {}), pos: at };
  }

  /** A possibly qualified name: `t`, `db.t`, `cat.db.t`. */
  protected objectName(what = 'a table name'): SqlObjectName {
    const n = this.qualifiedName(what);
    return { name: n.name, pos: n.pos, ...(n.qualifier ? { qualifier: n.qualifier } : {}) };
  }

  /** `('key' = 'value', …)`. */
  protected optionList(): OptionList {
    const options: OptionList = new Map();
    this.expectOp('(');
    do {
      const key = this.stringLiteral('an option key');
      this.expectOp('=');
      const value = this.stringLiteral('an option value');
      options.set(key.value, { value: value.value, pos: value.pos });
    } while (this.acceptOp(','));
    this.expectOp(')');
    return options;
  }

  /** One column of a table definition: `name type [METADATA …] [PRIMARY KEY NOT ENFORCED] [COMMENT '…']` or `name AS expr [COMMENT '…']`. */
  protected column(): SqlColumn {
    const name = this.identifier('a column name');
    if (this.acceptWord('AS')) {
      const computed = this.expr();
      const comment = this.acceptWord('COMMENT') ? this.stringLiteral('a comment').value : undefined;
      return { name: name.name, computed, ...(comment !== undefined ? { comment } : {}), pos: name.pos };
    }
    const type = this.typeText(['FIRST', 'AFTER']);
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

  private drop(at: SqlPosition): WithoutText<SqlCatalogStatement> {
    const temporary = this.acceptWord('TEMPORARY');
    const system = temporary && this.acceptWord('SYSTEM');
    const what = this.acceptOneOf(['TABLE', 'VIEW', 'FUNCTION', 'DATABASE', 'CATALOG']);
    if (what === undefined) {
      const t = this.peek();
      if (t.kind === 'ident' && ['MODEL', 'MATERIALIZED', 'CONNECTION'].includes(t.upper)) throw new SqlError(this.pos(t), `DROP ${t.upper} is not supported`);
      this.fail('expected TABLE, VIEW, FUNCTION, DATABASE or CATALOG after DROP');
    }
    if (temporary && (what === 'DATABASE' || what === 'CATALOG')) throw new SqlError(at, `DROP TEMPORARY ${what} is not valid: only tables, views and functions are temporary`);
    const ifExists = this.acceptWord('IF', 'EXISTS');
    const target = this.objectName(`a ${what.toLowerCase()} name`);
    const cascade = what === 'DATABASE' && this.acceptOneOf(['RESTRICT', 'CASCADE']) === 'CASCADE';
    return { k: 'drop', what: what as 'TABLE', temporary, ...(system ? { system } : {}), ifExists, target, ...(cascade ? { cascade } : {}), pos: at };
  }

  private show(at: SqlPosition): WithoutText<SqlCatalogStatement> {
    const t = this.peek();
    const word = t.kind === 'ident' ? t.upper : '';
    const unsupported = UNSUPPORTED_SHOW[word];
    if (unsupported !== undefined) throw new SqlError(this.pos(t), unsupported);
    const listing = (what: SqlShowWhat, fromWhat?: string): WithoutText<SqlCatalogStatement> => {
      const from = fromWhat !== undefined && this.acceptOneOf(['FROM', 'IN']) ? this.objectName(fromWhat) : undefined;
      const like = this.showLike();
      return { k: 'show', what, ...(from ? { from } : {}), ...(like ? { like } : {}), pos: at };
    };
    if (this.acceptWord('TABLES')) return listing('TABLES', 'a database name');
    if (this.acceptWord('VIEWS')) return listing('VIEWS', 'a database name');
    if (this.acceptWord('FUNCTIONS')) return listing('FUNCTIONS', 'a database name');
    if (this.acceptWord('USER', 'FUNCTIONS')) return listing('USER FUNCTIONS', 'a database name');
    if (this.acceptWord('CATALOGS')) return listing('CATALOGS');
    if (this.acceptWord('DATABASES')) return listing('DATABASES', 'a catalog name');
    if (this.acceptWord('CURRENT', 'CATALOG')) return { k: 'show', what: 'CURRENT CATALOG', pos: at };
    if (this.acceptWord('CURRENT', 'DATABASE')) return { k: 'show', what: 'CURRENT DATABASE', pos: at };
    if (this.acceptWord('MODULES')) return { k: 'show', what: 'MODULES', pos: at };
    if (this.acceptWord('FULL', 'MODULES')) return { k: 'show', what: 'FULL MODULES', pos: at };
    if (this.acceptWord('COLUMNS')) {
      if (!this.acceptOneOf(['FROM', 'IN'])) this.fail('expected FROM or IN after SHOW COLUMNS');
      const target = this.objectName();
      const like = this.showLike();
      return { k: 'show', what: 'COLUMNS', target, ...(like ? { like } : {}), pos: at };
    }
    if (this.acceptWord('CREATE')) {
      const what = this.acceptOneOf(['TABLE', 'VIEW']);
      if (what === undefined) {
        const n = this.peek();
        if (n.kind === 'ident' && ['CATALOG', 'MODEL', 'MATERIALIZED', 'CONNECTION', 'DATABASE', 'FUNCTION'].includes(n.upper)) throw new SqlError(this.pos(n), `SHOW CREATE ${n.upper} is not supported (SHOW CREATE TABLE and SHOW CREATE VIEW are)`);
        this.fail('expected TABLE or VIEW after SHOW CREATE');
      }
      return { k: 'show', what: what === 'TABLE' ? 'CREATE TABLE' : 'CREATE VIEW', target: this.objectName(what === 'TABLE' ? 'a table name' : 'a view name'), pos: at };
    }
    return this.fail('expected TABLES, VIEWS, [USER] FUNCTIONS, CATALOGS, DATABASES, CURRENT CATALOG, CURRENT DATABASE, COLUMNS, CREATE TABLE, CREATE VIEW or [FULL] MODULES after SHOW');
  }

  /** `[NOT] LIKE | ILIKE 'pattern'`. */
  private showLike(): SqlShowLike | undefined {
    const not = this.acceptWord('NOT');
    const op = this.acceptOneOf(['LIKE', 'ILIKE']);
    if (op === undefined) {
      if (not) this.fail('expected LIKE or ILIKE after NOT');
      return undefined;
    }
    return { pattern: this.stringLiteral('a LIKE pattern').value, not, ignoreCase: op === 'ILIKE' };
  }

  private alter(at: SqlPosition): WithoutText<SqlCatalogStatement> {
    if (this.acceptWord('VIEW')) {
      const target = this.objectName('a view name');
      if (this.acceptWord('RENAME', 'TO')) return { k: 'alterView', target, action: { k: 'rename', to: this.objectName('a view name') }, pos: at };
      this.expectWord('AS');
      const start = this.peek();
      const query = this.query();
      return { k: 'alterView', target, action: { k: 'as', query, queryText: this.text.slice(start.offset, this.previous().end) }, pos: at };
    }
    if (!this.acceptWord('TABLE')) {
      const t = this.peek();
      if (t.kind === 'ident' && ['FUNCTION', 'TEMPORARY', 'DATABASE', 'CATALOG', 'MODEL', 'MATERIALIZED', 'CONNECTION'].includes(t.upper)) {
        throw new SqlError(this.pos(t), `ALTER ${t.upper === 'TEMPORARY' ? 'TEMPORARY FUNCTION' : t.upper} is not supported (ALTER TABLE and ALTER VIEW are)`);
      }
      this.fail('expected TABLE or VIEW after ALTER');
    }
    const ifExists = this.acceptWord('IF', 'EXISTS');
    const target = this.objectName();
    return { k: 'alterTable', target, ifExists, action: this.alterTableAction(), pos: at };
  }

  private alterTableAction(): SqlAlterTableAction {
    if (this.acceptWord('RENAME')) {
      if (this.acceptWord('TO')) return { k: 'renameTable', to: this.objectName() };
      const from = this.identifier('a column name');
      this.expectWord('TO');
      return { k: 'renameColumn', from, to: this.identifier('a column name') };
    }
    if (this.acceptWord('SET')) return { k: 'setOptions', options: this.optionList() };
    if (this.acceptWord('RESET')) {
      this.expectOp('(');
      const keys: { value: string; pos: SqlPosition }[] = [];
      do keys.push(this.stringLiteral('an option key'));
      while (this.acceptOp(','));
      this.expectOp(')');
      return { k: 'resetOptions', keys };
    }
    const change = this.acceptOneOf(['ADD', 'MODIFY']);
    if (change !== undefined) {
      const components: SqlSchemaComponent[] = [];
      if (this.isOp('(')) {
        this.next();
        do components.push(this.schemaComponent());
        while (this.acceptOp(','));
        this.expectOp(')');
      } else components.push(this.schemaComponent());
      return { k: change === 'ADD' ? 'add' : 'modify', components };
    }
    if (this.acceptWord('DROP')) {
      if (this.acceptWord('PRIMARY', 'KEY')) return { k: 'dropPrimaryKey' };
      if (this.acceptWord('WATERMARK')) return { k: 'dropWatermark' };
      if (this.acceptWord('CONSTRAINT')) return { k: 'dropConstraint', name: this.identifier('a constraint name') };
      const columns: SqlName[] = this.isOp('(') ? this.nameList('a column name') : [this.identifier('a column name')];
      return { k: 'dropColumns', columns };
    }
    return this.fail('expected ADD, MODIFY, DROP, RENAME, SET or RESET after ALTER TABLE name');
  }

  /** One `ADD` / `MODIFY` component: a column with its position, a primary key or a watermark. */
  private schemaComponent(): SqlSchemaComponent {
    const at = this.pos();
    if (this.acceptWord('WATERMARK')) {
      this.expectWord('FOR');
      const column = this.identifier('the watermark column').name;
      this.expectWord('AS');
      return { k: 'watermark', column, expr: this.expr(), pos: at };
    }
    if (this.isWord('PRIMARY') || this.isWord('CONSTRAINT')) {
      const constraintName = this.acceptWord('CONSTRAINT') ? this.identifier('a constraint name').name : undefined;
      this.expectWord('PRIMARY', 'KEY');
      const columns = this.nameList('a key column');
      this.expectWord('NOT', 'ENFORCED');
      return { k: 'primaryKey', columns, ...(constraintName !== undefined ? { constraintName } : {}), pos: at };
    }
    const column = this.column();
    if (this.acceptWord('FIRST')) return { k: 'column', column, position: { first: true } };
    if (this.acceptWord('AFTER')) return { k: 'column', column, position: { after: this.identifier('a column name') } };
    return { k: 'column', column };
  }
}
