/**
 * Recursive-descent parser for the Flink SQL subset Flambda compiles: CREATE TABLE / CREATE
 * VIEW / INSERT INTO / SELECT / SET, keeping positions on every node for error messages.
 *
 * The front end (grammar-check.ts `parseScript`) builds the AST from dt-sql-parser's Flink
 * grammar parse tree (tree-to-ast.ts); this parser is its fallback for the statements the tree
 * walker leaves (ORDER BY / LIMIT / UNION and non-lookup joins, which it reports as unsupported,
 * and scripts the grammar rejects when the grammar check is off). It reads the SESSION window
 * TVF with PARTITION BY and aggregate `FILTER (WHERE …)` natively.
 */
import type { SqlColumn, SqlCte, SqlExpr, SqlFrame, SqlFrameBound, SqlFrom, SqlHint, SqlOrderItem, SqlQuery, SqlSelect, SqlSelectItem, SqlStatement } from './ast.ts';
import { SqlError, type SqlPosition } from './errors.ts';
import { parseHints } from './hints.ts';
import { tokenize, type Token } from './lexer.ts';

/** Words that end an expression or cannot be an alias. */
const RESERVED = new Set([
  'SELECT', 'FROM', 'WHERE', 'GROUP', 'BY', 'HAVING', 'ORDER', 'LIMIT', 'UNION', 'JOIN', 'LEFT', 'RIGHT', 'INNER', 'FULL',
  'OUTER', 'CROSS', 'ON', 'AND', 'OR', 'NOT', 'AS', 'FOR', 'WITH', 'INSERT', 'INTO', 'CREATE', 'TABLE', 'VIEW', 'WHEN',
  'THEN', 'ELSE', 'END', 'CASE', 'IS', 'IN', 'BETWEEN', 'LIKE', 'OVER', 'PARTITION', 'FILTER', 'DISTINCT', 'WATERMARK',
  'PRIMARY', 'SET', 'NULL', 'TRUE', 'FALSE', 'INTERVAL', 'CAST', 'ASC', 'DESC', 'NULLS', 'DESCRIPTOR', 'VALUES', 'OFFSET',
  'UNNEST', 'LATERAL', 'EXISTS', 'ROWS', 'RANGE', 'WINDOW', 'INTERSECT', 'EXCEPT', 'FETCH',
]);

/** A statement before its source text is attached. */
type WithoutText<T> = T extends unknown ? Omit<T, 'text'> : never;

const TVFS = new Set(['TUMBLE', 'HOP', 'CUMULATE', 'SESSION']);

/** Parses a script into statements. @throws SqlError with the position of the offending token. */
export function parseSql(text: string): SqlStatement[] {
  return new Parser(text, tokenize(text)).script();
}

class Parser {
  private i = 0;

  constructor(
    private readonly text: string,
    private readonly tokens: readonly Token[],
  ) {}

  script(): SqlStatement[] {
    const out: SqlStatement[] = [];
    while (this.peek().kind !== 'eof') {
      if (this.acceptOp(';')) continue;
      const start = this.peek();
      const stmt = this.statement();
      const end = this.tokens[this.i - 1] as Token;
      out.push({ ...stmt, text: this.text.slice(start.offset, end.end) } as SqlStatement);
      if (this.peek().kind !== 'eof') this.expectOp(';');
    }
    return out;
  }

  // ---- token helpers ----

  private peek(ahead = 0): Token {
    return this.tokens[Math.min(this.i + ahead, this.tokens.length - 1)] as Token;
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.i++;
    return t;
  }

  private pos(t: Token = this.peek()): SqlPosition {
    return { line: t.line, column: t.column };
  }

  private isWord(word: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'ident' && t.upper === word;
  }

  private acceptWord(...words: string[]): boolean {
    if (!words.every((w, k) => this.isWord(w, k))) return false;
    this.i += words.length;
    return true;
  }

  private expectWord(...words: string[]): void {
    for (const w of words) {
      if (!this.acceptWord(w)) this.fail(`expected ${w}`);
    }
  }

  private isOp(op: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'op' && t.text === op;
  }

  private acceptOp(op: string): boolean {
    if (!this.isOp(op)) return false;
    this.i++;
    return true;
  }

  private expectOp(op: string): void {
    if (!this.acceptOp(op)) this.fail(`expected '${op}'`);
  }

  private fail(what: string, t: Token = this.peek()): never {
    const found = t.kind === 'eof' ? 'end of input' : `'${t.kind === 'string' ? `'${t.text}'` : t.text}'`;
    throw new SqlError(this.pos(t), `${what}, found ${found}`);
  }

  private identifier(what = 'an identifier'): { name: string; pos: SqlPosition } {
    const t = this.peek();
    if (t.kind === 'qident' || (t.kind === 'ident' && !RESERVED.has(t.upper))) {
      this.i++;
      return { name: t.text, pos: this.pos(t) };
    }
    return this.fail(`expected ${what}`);
  }

  /** `a.b.c` as a dotted name (catalog and database prefixes are kept in the text). */
  private qualifiedName(): { name: string; pos: SqlPosition } {
    const first = this.identifier('a table name');
    let name = first.name;
    while (this.isOp('.') && (this.peek(1).kind === 'ident' || this.peek(1).kind === 'qident')) {
      this.i++;
      name = this.identifier('a table name').name;
    }
    return { name, pos: first.pos };
  }

  private stringLiteral(what: string): { value: string; pos: SqlPosition } {
    const t = this.peek();
    if (t.kind !== 'string') this.fail(`expected ${what} (a quoted string)`);
    this.i++;
    return { value: t.text, pos: this.pos(t) };
  }

  // ---- statements ----

  private statement(): WithoutText<SqlStatement> {
    const t = this.peek();
    if (this.acceptWord('CREATE')) {
      this.acceptWord('TEMPORARY');
      if (this.acceptWord('TABLE')) return this.createTable(t);
      if (this.acceptWord('VIEW')) {
        this.acceptWord('IF', 'NOT', 'EXISTS');
        const name = this.qualifiedName();
        let columns: { name: string; pos: SqlPosition }[] | undefined;
        if (this.acceptOp('(')) {
          columns = [this.identifier('a column name')];
          while (this.acceptOp(',')) columns.push(this.identifier('a column name'));
          this.expectOp(')');
        }
        this.expectWord('AS');
        return { k: 'createView', name: name.name, ...(columns ? { columns } : {}), query: this.query(), pos: this.pos(t) };
      }
      return this.fail('expected TABLE or VIEW after CREATE');
    }
    if (this.acceptWord('INSERT')) {
      if (!this.acceptWord('INTO')) this.expectWord('OVERWRITE');
      const name = this.qualifiedName();
      let columns: { name: string; pos: SqlPosition }[] | undefined;
      if (this.isOp('(') && !this.isWord('SELECT', 1) && !this.isWord('WITH', 1) && !this.isWord('VALUES', 1)) {
        this.next();
        columns = [this.identifier('a column name')];
        while (this.acceptOp(',')) columns.push(this.identifier('a column name'));
        this.expectOp(')');
      }
      return { k: 'insert', table: name.name, ...(columns ? { columns } : {}), query: this.query(), pos: this.pos(t) };
    }
    if (this.isWord('SELECT') || this.isWord('WITH') || this.isWord('VALUES') || this.isOp('(')) return { k: 'select', query: this.query(), pos: this.pos(t) };
    if (this.acceptWord('SET')) {
      const key = this.stringLiteral('a configuration key');
      this.expectOp('=');
      const value = this.stringLiteral('a configuration value');
      return { k: 'set', key: key.value, value: value.value, pos: this.pos(t) };
    }
    return this.fail('expected CREATE TABLE, CREATE VIEW, INSERT INTO, SELECT or SET');
  }

  private createTable(start: Token): WithoutText<SqlStatement> {
    this.acceptWord('IF', 'NOT', 'EXISTS');
    const name = this.qualifiedName();
    this.expectOp('(');
    const columns: SqlColumn[] = [];
    let watermark: { column: string; expr: SqlExpr; pos: SqlPosition } | undefined;
    let primaryKey: string[] | undefined;
    do {
      const at = this.peek();
      if (this.acceptWord('WATERMARK')) {
        this.expectWord('FOR');
        const column = this.identifier('the watermark column').name;
        this.expectWord('AS');
        watermark = { column, expr: this.expr(), pos: this.pos(at) };
      } else if (this.isWord('PRIMARY') || this.isWord('CONSTRAINT')) {
        if (this.acceptWord('CONSTRAINT')) this.identifier('a constraint name');
        this.expectWord('PRIMARY', 'KEY');
        this.expectOp('(');
        primaryKey = [this.identifier('a key column').name];
        while (this.acceptOp(',')) primaryKey.push(this.identifier('a key column').name);
        this.expectOp(')');
        this.expectWord('NOT', 'ENFORCED');
      } else {
        columns.push(this.column());
      }
    } while (this.acceptOp(','));
    this.expectOp(')');
    const options = new Map<string, { value: string; pos: SqlPosition }>();
    if (this.acceptWord('COMMENT')) this.stringLiteral('a comment');
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
    const inlineKey = columns.filter((c) => c.primaryKey).map((c) => c.name);
    const key = primaryKey ?? (inlineKey.length > 0 ? inlineKey : undefined);
    return {
      k: 'createTable',
      name: name.name,
      columns,
      ...(watermark ? { watermark } : {}),
      ...(key ? { primaryKey: key } : {}),
      options,
      pos: this.pos(start),
    };
  }

  private column(): SqlColumn {
    const name = this.identifier('a column name');
    if (this.acceptWord('AS')) return { name: name.name, computed: this.expr(), pos: name.pos };
    const type = this.typeText();
    let metadata = false;
    let metadataKey: string | undefined;
    let virtual = false;
    let primaryKey = false;
    for (;;) {
      if (this.acceptWord('METADATA')) {
        metadata = true;
        if (this.acceptWord('FROM')) metadataKey = this.stringLiteral('a metadata key').value;
        virtual = this.acceptWord('VIRTUAL');
      } else if (this.acceptWord('PRIMARY', 'KEY')) {
        this.expectWord('NOT', 'ENFORCED');
        primaryKey = true;
      } else if (this.acceptWord('COMMENT')) {
        this.stringLiteral('a comment');
      } else break;
    }
    return {
      name: name.name,
      type,
      ...(metadata ? { metadata } : {}),
      ...(metadataKey !== undefined ? { metadataKey } : {}),
      ...(virtual ? { virtual } : {}),
      ...(primaryKey ? { primaryKey } : {}),
      pos: name.pos,
    };
  }

  /** The text of a type: words and a parenthesized argument list, e.g. `DECIMAL(10, 2) NOT NULL`. */
  private typeText(): string {
    const first = this.peek();
    if (first.kind !== 'ident') this.fail('expected a column type');
    const parts: string[] = [];
    let depth = 0;
    while (this.peek().kind !== 'eof') {
      const t = this.peek();
      if (depth === 0 && t.kind === 'op' && (t.text === ',' || t.text === ')')) break;
      if (depth === 0 && t.kind === 'ident' && ['METADATA', 'PRIMARY', 'COMMENT'].includes(t.upper)) break;
      if (t.kind === 'op' && t.text === '(') depth++;
      if (t.kind === 'op' && t.text === ')') depth--;
      parts.push(t.text);
      this.i++;
    }
    return parts.join(' ').replace(/ \( /g, '(').replace(/ \)/g, ')').replace(/ , /g, ', ');
  }

  // ---- queries ----

  /** `[WITH …] term [UNION [ALL] term]… [ORDER BY …] [LIMIT n] [OFFSET n]`. */
  query(): SqlQuery {
    const start = this.peek();
    if (this.acceptWord('WITH')) {
      const ctes: SqlCte[] = [];
      do {
        const name = this.identifier('a WITH query name');
        let columns: string[] | undefined;
        if (this.acceptOp('(')) {
          columns = [this.identifier('a column name').name];
          while (this.acceptOp(',')) columns.push(this.identifier('a column name').name);
          this.expectOp(')');
        }
        this.expectWord('AS');
        this.expectOp('(');
        const query = this.query();
        this.expectOp(')');
        ctes.push({ name: name.name, ...(columns ? { columns } : {}), query, pos: name.pos });
      } while (this.acceptOp(','));
      return { k: 'with', ctes, body: this.query(), pos: this.pos(start) };
    }
    let query = this.queryTerm();
    for (;;) {
      const at = this.peek();
      const op = this.isWord('UNION') ? 'UNION' : this.isWord('INTERSECT') ? 'INTERSECT' : this.isWord('EXCEPT') ? 'EXCEPT' : undefined;
      if (!op) break;
      this.next();
      const all = this.acceptWord('ALL');
      if (!all) this.acceptWord('DISTINCT');
      query = { k: 'setOp', op, all, left: query, right: this.queryTerm(), pos: this.pos(at) };
    }
    const orderAt = this.peek();
    const orderBy: SqlOrderItem[] = [];
    if (this.acceptWord('ORDER')) {
      this.expectWord('BY');
      do orderBy.push(this.orderItem());
      while (this.acceptOp(','));
    }
    const limit = this.acceptWord('LIMIT') ? this.primary() : undefined;
    const offset = this.acceptWord('OFFSET') ? this.primary() : undefined;
    if (offset) this.acceptWord('ROWS');
    if (orderBy.length === 0 && !limit && !offset) return query;
    return { k: 'orderBy', query, orderBy, ...(limit ? { limit } : {}), ...(offset ? { offset } : {}), pos: this.pos(orderAt) };
  }

  /** `( query )`, `VALUES (…), (…)` or a SELECT block. */
  private queryTerm(): SqlQuery {
    const start = this.peek();
    if (this.acceptOp('(')) {
      const inner = this.query();
      this.expectOp(')');
      return inner;
    }
    if (this.acceptWord('VALUES')) {
      const rows: SqlExpr[][] = [];
      do {
        this.expectOp('(');
        const row = [this.expr()];
        while (this.acceptOp(',')) row.push(this.expr());
        this.expectOp(')');
        rows.push(row);
      } while (this.acceptOp(','));
      return { k: 'values', rows, pos: this.pos(start) };
    }
    return this.select();
  }

  private orderItem(): SqlOrderItem {
    const expr = this.expr();
    const direction = this.acceptWord('DESC') ? 'DESC' : (this.acceptWord('ASC'), 'ASC');
    let nulls: 'FIRST' | 'LAST' | undefined;
    if (this.acceptWord('NULLS')) nulls = this.acceptWord('FIRST') ? 'FIRST' : (this.expectWord('LAST'), 'LAST');
    return { expr, direction, ...(nulls ? { nulls } : {}) };
  }

  select(): SqlSelect {
    const start = this.peek();
    this.expectWord('SELECT');
    const hints: SqlHint[] = [];
    while (this.peek().kind === 'hint') hints.push(...parseHints(this.next()));
    const distinct = this.acceptWord('DISTINCT');
    this.acceptWord('ALL');
    const items: SqlSelectItem[] = [];
    do items.push(this.selectItem());
    while (this.acceptOp(','));
    this.expectWord('FROM');
    const from = this.fromClause();
    const where = this.acceptWord('WHERE') ? this.expr() : undefined;
    const groupBy: SqlExpr[] = [];
    if (this.acceptWord('GROUP')) {
      this.expectWord('BY');
      do groupBy.push(this.expr());
      while (this.acceptOp(','));
    }
    const having = this.acceptWord('HAVING') ? this.expr() : undefined;
    return {
      k: 'select',
      hints,
      distinct,
      items,
      from,
      ...(where ? { where } : {}),
      groupBy,
      ...(having ? { having } : {}),
      pos: this.pos(start),
    };
  }

  private selectItem(): SqlSelectItem {
    const start = this.peek();
    const expr = this.expr();
    let alias: string | undefined;
    if (this.acceptWord('AS')) alias = this.identifier('an alias').name;
    else if (this.peek().kind === 'qident' || (this.peek().kind === 'ident' && !RESERVED.has(this.peek().upper))) alias = this.identifier().name;
    return { expr, ...(alias !== undefined ? { alias } : {}), pos: this.pos(start) };
  }

  private fromClause(): SqlFrom {
    let left = this.fromItem();
    for (;;) {
      const at = this.peek();
      let joinType: 'INNER' | 'LEFT' | undefined;
      if (this.acceptWord('JOIN') || this.acceptWord('INNER', 'JOIN')) joinType = 'INNER';
      else if (this.acceptWord('LEFT', 'JOIN') || this.acceptWord('LEFT', 'OUTER', 'JOIN')) joinType = 'LEFT';
      else if (this.isWord('RIGHT') || this.isWord('FULL') || this.isWord('CROSS') || this.isOp(',')) {
        this.fail('only INNER and LEFT lookup joins (JOIN … FOR SYSTEM_TIME AS OF …) are supported');
      }
      if (!joinType) return left;
      const name = this.qualifiedName();
      let systemTime: SqlExpr | undefined;
      if (this.acceptWord('FOR')) {
        this.expectWord('SYSTEM_TIME', 'AS', 'OF');
        systemTime = this.primary();
      }
      const alias = this.alias();
      const right: SqlFrom = { k: 'table', name: name.name, ...(alias ? { alias } : {}), pos: name.pos };
      this.expectWord('ON');
      const on = this.expr();
      left = { k: 'join', joinType, left, right, ...(systemTime ? { systemTime } : {}), on, pos: this.pos(at) };
    }
  }

  /** `(a, b)` after an alias. */
  private aliasColumns(): string[] | undefined {
    if (!this.isOp('(')) return undefined;
    this.next();
    const columns = [this.identifier('a column name').name];
    while (this.acceptOp(',')) columns.push(this.identifier('a column name').name);
    this.expectOp(')');
    return columns;
  }

  private alias(): string | undefined {
    if (this.acceptWord('AS')) return this.identifier('an alias').name;
    const t = this.peek();
    if (t.kind === 'qident' || (t.kind === 'ident' && !RESERVED.has(t.upper))) return this.identifier().name;
    return undefined;
  }

  private fromItem(): SqlFrom {
    const start = this.peek();
    if (this.isOp('(')) {
      this.next();
      const query = this.query();
      this.expectOp(')');
      const alias = this.alias();
      const columns = alias !== undefined ? this.aliasColumns() : undefined;
      return { k: 'subquery', query, ...(alias ? { alias } : {}), ...(columns ? { columns } : {}), pos: this.pos(start) };
    }
    if (this.isWord('UNNEST') && this.isOp('(', 1)) {
      this.i += 2;
      const args = [this.expr()];
      while (this.acceptOp(',')) args.push(this.expr());
      this.expectOp(')');
      const withOrdinality = this.acceptWord('WITH', 'ORDINALITY');
      const alias = this.alias();
      const columns = alias !== undefined ? this.aliasColumns() : undefined;
      return { k: 'unnest', args, withOrdinality, ...(alias ? { alias } : {}), ...(columns ? { columns } : {}), pos: this.pos(start) };
    }
    if (this.isWord('LATERAL') && this.isWord('TABLE', 1) && this.isOp('(', 2)) {
      this.i += 3;
      const call = this.expr();
      this.expectOp(')');
      const alias = this.alias();
      const columns = alias !== undefined ? this.aliasColumns() : undefined;
      return { k: 'lateral', call, ...(alias ? { alias } : {}), ...(columns ? { columns } : {}), pos: this.pos(start) };
    }
    if (this.isWord('TABLE') && this.isOp('(', 1)) {
      this.i += 2;
      const fnTok = this.next();
      if (fnTok.kind !== 'ident' || !TVFS.has(fnTok.upper)) this.fail('expected a window function TUMBLE, HOP, CUMULATE or SESSION', fnTok);
      this.expectOp('(');
      let input: SqlFrom;
      if (this.acceptWord('TABLE')) {
        const name = this.qualifiedName();
        input = { k: 'table', name: name.name, pos: name.pos };
      } else if (this.isOp('(')) {
        input = this.fromItem();
      } else {
        input = this.fail('expected TABLE name or a subquery as the window function input');
      }
      const partitionBy: { name: string; pos: SqlPosition }[] = [];
      if (this.isWord('PARTITION') && this.isWord('BY', 1)) {
        if (fnTok.upper !== 'SESSION') this.fail(`${fnTok.upper} takes no PARTITION BY (only SESSION does)`);
        this.i += 2;
        // `PARTITION BY (a, b)` or `PARTITION BY a, b` — the latter ends at `, DESCRIPTOR`.
        const paren = this.acceptOp('(');
        partitionBy.push(this.identifier('a partition column'));
        while (this.isOp(',') && (paren || !this.isWord('DESCRIPTOR', 1))) {
          this.next();
          partitionBy.push(this.identifier('a partition column'));
        }
        if (paren) this.expectOp(')');
      }
      this.expectOp(',');
      this.expectWord('DESCRIPTOR');
      this.expectOp('(');
      const timeColumn = this.identifier('the time column');
      this.expectOp(')');
      const args: SqlExpr[] = [];
      while (this.acceptOp(',')) args.push(this.expr());
      this.expectOp(')');
      this.expectOp(')');
      const alias = this.alias();
      return { k: 'tvf', fn: fnTok.upper as 'TUMBLE', input, partitionBy, timeColumn, args, ...(alias ? { alias } : {}), pos: this.pos(fnTok) };
    }
    const name = this.qualifiedName();
    const alias = this.alias();
    return { k: 'table', name: name.name, ...(alias ? { alias } : {}), pos: name.pos };
  }

  // ---- expressions ----

  expr(): SqlExpr {
    return this.orExpr();
  }

  private orExpr(): SqlExpr {
    let left = this.andExpr();
    while (this.isWord('OR')) {
      const at = this.pos(this.next());
      left = { k: 'bin', op: 'OR', left, right: this.andExpr(), pos: at };
    }
    return left;
  }

  private andExpr(): SqlExpr {
    let left = this.notExpr();
    while (this.isWord('AND')) {
      const at = this.pos(this.next());
      left = { k: 'bin', op: 'AND', left, right: this.notExpr(), pos: at };
    }
    return left;
  }

  private notExpr(): SqlExpr {
    if (this.isWord('NOT')) {
      const at = this.pos(this.next());
      return { k: 'not', arg: this.notExpr(), pos: at };
    }
    return this.comparison();
  }

  private comparison(): SqlExpr {
    const left = this.additive();
    const at = this.pos();
    const t = this.peek();
    if (t.kind === 'op' && ['=', '<>', '!=', '<', '<=', '>', '>='].includes(t.text)) {
      this.next();
      return { k: 'bin', op: t.text === '!=' ? '<>' : t.text, left, right: this.additive(), pos: at };
    }
    if (this.acceptWord('IS')) {
      const not = this.acceptWord('NOT');
      this.expectWord('NULL');
      return { k: 'isnull', expr: left, not, pos: at };
    }
    const not = this.isWord('NOT') && (this.isWord('BETWEEN', 1) || this.isWord('IN', 1) || this.isWord('LIKE', 1));
    if (not) this.next();
    if (this.acceptWord('BETWEEN')) {
      this.acceptWord('ASYMMETRIC');
      const low = this.additive();
      this.expectWord('AND');
      return { k: 'between', expr: left, low, high: this.additive(), not, pos: at };
    }
    if (this.acceptWord('IN')) {
      this.expectOp('(');
      if (this.isWord('SELECT') || this.isWord('WITH') || this.isWord('VALUES')) {
        const query = this.query();
        this.expectOp(')');
        return { k: 'inQuery', expr: left, query, not, pos: at };
      }
      const list: SqlExpr[] = [];
      do list.push(this.expr());
      while (this.acceptOp(','));
      this.expectOp(')');
      return { k: 'in', expr: left, list, not, pos: at };
    }
    if (this.acceptWord('LIKE')) return { k: 'like', expr: left, pattern: this.additive(), not, pos: at };
    return left;
  }

  private additive(): SqlExpr {
    let left = this.multiplicative();
    while (this.isOp('+') || this.isOp('-') || this.isOp('||')) {
      const t = this.next();
      left = { k: 'bin', op: t.text, left, right: this.multiplicative(), pos: this.pos(t) };
    }
    return left;
  }

  private multiplicative(): SqlExpr {
    let left = this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      const t = this.next();
      left = { k: 'bin', op: t.text, left, right: this.unary(), pos: this.pos(t) };
    }
    return left;
  }

  private unary(): SqlExpr {
    if (this.isOp('-')) {
      const at = this.pos(this.next());
      return { k: 'neg', arg: this.unary(), pos: at };
    }
    if (this.acceptOp('+')) return this.unary();
    return this.primary();
  }

  private primary(): SqlExpr {
    const t = this.peek();
    const at = this.pos(t);
    switch (t.kind) {
      case 'number':
        this.next();
        return { k: 'num', text: t.text, pos: at };
      case 'string':
        this.next();
        return { k: 'str', value: t.text, pos: at };
      case 'op':
        if (t.text === '(') {
          this.next();
          const inner = this.expr();
          this.expectOp(')');
          return inner;
        }
        if (t.text === '*') {
          this.next();
          return { k: 'star', pos: at };
        }
        return this.fail('expected an expression');
      case 'qident':
        return this.identifierChain();
      case 'ident':
        break;
      default:
        return this.fail('expected an expression');
    }
    switch (t.upper) {
      case 'NULL':
        this.next();
        return { k: 'null', pos: at };
      case 'TRUE':
      case 'FALSE':
        this.next();
        return { k: 'bool', value: t.upper === 'TRUE', pos: at };
      case 'INTERVAL': {
        this.next();
        const value = this.stringLiteral('the interval value');
        const unit = this.next();
        if (unit.kind !== 'ident') this.fail('expected an interval unit such as SECOND', unit);
        return { k: 'interval', value: value.value, unit: unit.upper, pos: at };
      }
      case 'TIMESTAMP':
      case 'DATE':
        if (this.peek(1).kind === 'string') {
          this.next();
          return { k: 'typed', type: t.upper, value: this.next().text, pos: at };
        }
        break;
      case 'CASE':
        return this.caseExpr();
      case 'EXISTS':
        if (this.isOp('(', 1)) {
          this.i += 2;
          const query = this.query();
          this.expectOp(')');
          return { k: 'exists', query, pos: at };
        }
        break;
      case 'CAST':
      case 'TRY_CAST': {
        this.next();
        this.expectOp('(');
        const expr = this.expr();
        this.expectWord('AS');
        const type = this.typeText();
        this.expectOp(')');
        return { k: 'cast', expr, type, pos: at };
      }
      case 'SUBSTRING':
        if (this.isOp('(', 1)) return this.substring();
        break;
    }
    if (this.isOp('(', 1)) return this.functionCall();
    if (RESERVED.has(t.upper) && !['DESC', 'ASC'].includes(t.upper)) return this.fail('expected an expression');
    return this.identifierChain();
  }

  private identifierChain(): SqlExpr {
    const first = this.next();
    const parts = [first.text];
    while (this.isOp('.')) {
      this.next();
      if (this.isOp('*')) {
        this.next();
        return { k: 'star', qualifier: parts.join('.'), pos: this.pos(first) };
      }
      parts.push(this.identifier('a column name').name);
    }
    return { k: 'id', parts, pos: this.pos(first) };
  }

  private caseExpr(): SqlExpr {
    const at = this.pos(this.next());
    const operand = this.isWord('WHEN') ? undefined : this.expr();
    const whens: [SqlExpr, SqlExpr][] = [];
    while (this.acceptWord('WHEN')) {
      const cond = this.expr();
      this.expectWord('THEN');
      whens.push([cond, this.expr()]);
    }
    if (whens.length === 0) this.fail('expected WHEN');
    const otherwise = this.acceptWord('ELSE') ? this.expr() : undefined;
    this.expectWord('END');
    return { k: 'case', ...(operand ? { operand } : {}), whens, ...(otherwise ? { otherwise } : {}), pos: at };
  }

  /** `ROWS | RANGE BETWEEN bound AND bound`, or `ROWS | RANGE bound` (to CURRENT ROW). */
  private frame(): SqlFrame {
    const at = this.next();
    const unit = at.upper as 'ROWS' | 'RANGE';
    if (this.acceptWord('BETWEEN')) {
      const start = this.frameBound();
      this.expectWord('AND');
      return { unit, start, end: this.frameBound(), pos: this.pos(at) };
    }
    return { unit, start: this.frameBound(), end: { k: 'currentRow' }, pos: this.pos(at) };
  }

  private frameBound(): SqlFrameBound {
    if (this.acceptWord('UNBOUNDED', 'PRECEDING')) return { k: 'unboundedPreceding' };
    if (this.acceptWord('UNBOUNDED', 'FOLLOWING')) return { k: 'unboundedFollowing' };
    if (this.acceptWord('CURRENT', 'ROW')) return { k: 'currentRow' };
    const offset = this.primary();
    if (this.acceptWord('PRECEDING')) return { k: 'preceding', offset };
    this.expectWord('FOLLOWING');
    return { k: 'following', offset };
  }

  /** `SUBSTRING(s FROM a [FOR b])` or `SUBSTRING(s, a[, b])`. */
  private substring(): SqlExpr {
    const at = this.pos(this.next());
    this.expectOp('(');
    const args = [this.expr()];
    if (this.acceptWord('FROM')) {
      args.push(this.expr());
      if (this.acceptWord('FOR')) args.push(this.expr());
    } else {
      while (this.acceptOp(',')) args.push(this.expr());
    }
    this.expectOp(')');
    return { k: 'call', name: 'SUBSTRING', args, distinct: false, star: false, pos: at };
  }

  private functionCall(): SqlExpr {
    const nameTok = this.next();
    const at = this.pos(nameTok);
    this.expectOp('(');
    const distinct = this.acceptWord('DISTINCT');
    let star = false;
    const args: SqlExpr[] = [];
    if (this.isOp('*') && this.isOp(')', 1)) {
      this.next();
      star = true;
    } else if (!this.isOp(')')) {
      do args.push(this.expr());
      while (this.acceptOp(','));
    }
    this.expectOp(')');
    let filter: SqlExpr | undefined;
    if (this.isWord('FILTER') && this.isOp('(', 1)) {
      this.i += 2;
      this.expectWord('WHERE');
      filter = this.expr();
      this.expectOp(')');
    }
    let over: { partitionBy: SqlExpr[]; orderBy: SqlOrderItem[]; frame?: SqlFrame } | undefined;
    if (this.acceptWord('OVER')) {
      this.expectOp('(');
      const partitionBy: SqlExpr[] = [];
      const orderBy: SqlOrderItem[] = [];
      if (this.acceptWord('PARTITION')) {
        this.expectWord('BY');
        do partitionBy.push(this.expr());
        while (this.acceptOp(','));
      }
      if (this.acceptWord('ORDER')) {
        this.expectWord('BY');
        do orderBy.push(this.orderItem());
        while (this.acceptOp(','));
      }
      const frame = this.isWord('ROWS') || this.isWord('RANGE') ? this.frame() : undefined;
      this.expectOp(')');
      over = { partitionBy, orderBy, ...(frame ? { frame } : {}) };
    }
    return { k: 'call', name: nameTok.upper, args, distinct, star, ...(filter ? { filter } : {}), ...(over ? { over } : {}), pos: at };
  }
}
