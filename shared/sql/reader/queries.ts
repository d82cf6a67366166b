/**
 * Reading queries: WITH, set operations (INTERSECT binds tighter than UNION / EXCEPT), VALUES,
 * SELECT with its clauses (GROUP BY with grouping sets, HAVING, WINDOW), ORDER BY / LIMIT /
 * OFFSET / FETCH, and FROM items: tables (with hints and FOR SYSTEM_TIME AS OF), subqueries,
 * window TVFs, table functions, UNNEST and joins.
 */
import type { SqlCte, SqlExpr, SqlFrom, SqlHint, SqlName, SqlOrderItem, SqlOver, SqlQuery, SqlSelect, SqlSelectItem } from '../ast.ts';
import { SqlError, type SqlPosition } from '../errors.ts';
import { QUERY_START } from './expressions.ts';
import { FunctionSyntaxReader } from './function-syntax.ts';
import { expandGroupingSets, type GroupItem } from './grouping-sets.ts';

const TVFS = new Set(['TUMBLE', 'HOP', 'CUMULATE', 'SESSION']);

/** The parameter names of the window TVFs after DATA and TIMECOL, in positional order. */
const TVF_PARAMS: Readonly<Record<string, readonly string[]>> = {
  TUMBLE: ['SIZE', 'OFFSET'],
  HOP: ['SLIDE', 'SIZE', 'OFFSET'],
  CUMULATE: ['STEP', 'SIZE', 'OFFSET'],
  SESSION: ['GAP'],
};

/** The query reader. */
export abstract class QueryReader extends FunctionSyntaxReader {
  query(): SqlQuery {
    const start = this.peek();
    if (this.acceptWord('WITH')) {
      const ctes: SqlCte[] = [];
      do {
        const name = this.identifier('a WITH query name');
        const columns = this.isOp('(') ? this.nameList('a column name') : undefined;
        this.expectWord('AS');
        this.expectOp('(');
        const query = this.query();
        this.expectOp(')');
        ctes.push({ name: name.name, ...(columns ? { columns } : {}), query, pos: name.pos });
      } while (this.acceptOp(','));
      return { k: 'with', ctes, body: this.query(), pos: this.pos(start) };
    }
    const body = this.setExpression();
    return this.orderedTail(body);
  }

  /** `ORDER BY … [LIMIT n] [OFFSET m [ROWS]] [FETCH FIRST n ROWS ONLY]` after a query. */
  private orderedTail(body: SqlQuery): SqlQuery {
    const at = this.peek();
    let orderBy: SqlOrderItem[] = [];
    if (this.acceptWord('ORDER')) {
      this.expectWord('BY');
      orderBy = this.orderItems();
    }
    let limit: SqlExpr | undefined;
    let offset: SqlExpr | undefined;
    if (this.acceptWord('LIMIT')) limit = this.expr();
    if (this.acceptWord('OFFSET')) {
      offset = this.expr();
      this.acceptOneOf(['ROW', 'ROWS']);
    }
    if (this.acceptWord('FETCH')) {
      if (!this.acceptOneOf(['FIRST', 'NEXT'])) this.fail('expected FIRST or NEXT');
      limit = this.isWord('ROW') || this.isWord('ROWS') ? { k: 'num', text: '1', pos: this.pos() } : this.expr();
      if (!this.acceptOneOf(['ROW', 'ROWS'])) this.fail('expected ROWS');
      this.expectWord('ONLY');
    }
    if (orderBy.length === 0 && limit === undefined && offset === undefined) return body;
    return { k: 'ordered', query: body, orderBy, ...(limit ? { limit } : {}), ...(offset ? { offset } : {}), pos: this.pos(at) };
  }

  private setExpression(): SqlQuery {
    let left = this.intersectExpression();
    for (;;) {
      const t = this.peek();
      const op = this.acceptOneOf(['UNION', 'EXCEPT', 'MINUS']);
      if (!op) return left;
      const all = this.acceptWord('ALL');
      if (!all) this.acceptWord('DISTINCT');
      const right = this.intersectExpression();
      left = { k: 'setOp', op: op === 'UNION' ? 'UNION' : 'EXCEPT', all, left, right, pos: this.pos(t) };
    }
  }

  private intersectExpression(): SqlQuery {
    let left = this.queryTerm();
    while (this.isWord('INTERSECT')) {
      const t = this.next();
      const all = this.acceptWord('ALL');
      if (!all) this.acceptWord('DISTINCT');
      left = { k: 'setOp', op: 'INTERSECT', all, left, right: this.queryTerm(), pos: this.pos(t) };
    }
    return left;
  }

  private queryTerm(): SqlQuery {
    if (this.isOp('(')) {
      this.next();
      const inner = this.query();
      this.expectOp(')');
      return inner;
    }
    if (this.isWord('VALUES')) return this.values();
    if (this.isWord('SELECT')) return this.select();
    return this.fail('expected SELECT, VALUES or WITH');
  }

  /** `VALUES (1, 'a'), (2, 'b')` (a row may be a single value without parentheses). */
  protected values(): SqlQuery {
    const at = this.pos(this.next());
    const rows: SqlExpr[][] = [];
    do {
      if (this.isOp('(') && !this.opensQuery()) {
        this.next();
        const row: SqlExpr[] = [];
        if (!this.isOp(')')) {
          do row.push(this.expr());
          while (this.acceptOp(','));
        }
        this.expectOp(')');
        rows.push(row);
      } else if (this.acceptWord('ROW')) {
        this.expectOp('(');
        const row: SqlExpr[] = [];
        do row.push(this.expr());
        while (this.acceptOp(','));
        this.expectOp(')');
        rows.push(row);
      } else rows.push([this.expr()]);
    } while (this.acceptOp(','));
    return { k: 'values', rows, pos: at };
  }

  protected select(): SqlSelect {
    const start = this.peek();
    this.expectWord('SELECT');
    const hints: SqlHint[] = this.takeHints();
    const pendingBefore = this.pendingWindows.length;
    const distinct = this.acceptWord('DISTINCT');
    if (!distinct) this.acceptWord('ALL');
    const items: SqlSelectItem[] = [];
    do items.push(this.selectItem());
    while (this.acceptOp(','));
    const from: SqlFrom = this.acceptWord('FROM')
      ? this.fromClause()
      : { k: 'subquery', query: { k: 'values', rows: [[]], pos: this.pos(start) }, pos: this.pos(start) };
    const where = this.acceptWord('WHERE') ? this.expr() : undefined;
    let groupBy: SqlExpr[] = [];
    let groupingSets: SqlExpr[][] | undefined;
    if (this.acceptWord('GROUP')) {
      this.expectWord('BY');
      const items: GroupItem[] = [];
      do items.push(this.groupItem());
      while (this.acceptOp(','));
      ({ groupBy, groupingSets } = expandGroupingSets(items));
    }
    const having = this.acceptWord('HAVING') ? this.expr() : undefined;
    if (this.acceptWord('WINDOW')) this.windowClause(pendingBefore);
    const unresolved = this.pendingWindows[pendingBefore];
    if (unresolved) throw new SqlError(unresolved.pos, `unknown window '${unresolved.name}': declare it with WINDOW ${unresolved.name} AS (…)`);
    return {
      k: 'select',
      hints,
      distinct,
      items,
      from,
      ...(where ? { where } : {}),
      groupBy,
      ...(groupingSets ? { groupingSets } : {}),
      ...(having ? { having } : {}),
      pos: this.pos(start),
    };
  }

  /** `WINDOW w AS (…), …`: fills the OVER clauses that named these windows. */
  private windowClause(pendingBefore: number): void {
    const specs = new Map<string, SqlOver>();
    do {
      const name = this.identifier('a window name');
      this.expectWord('AS');
      specs.set(name.name.toUpperCase(), this.windowSpec());
    } while (this.acceptOp(','));
    const pending = this.pendingWindows.splice(pendingBefore);
    for (const p of pending) {
      const spec = specs.get(p.name.toUpperCase());
      if (!spec) throw new SqlError(p.pos, `unknown window '${p.name}' (declared: ${[...specs.keys()].join(', ')})`);
      Object.assign(p.over, spec);
    }
  }

  /** A GROUP BY item: an expression, `()`, `GROUPING SETS (…)`, `ROLLUP (…)` or `CUBE (…)`. */
  private groupItem(): GroupItem {
    if (this.isOp('(') && this.isOp(')', 1)) {
      this.i += 2;
      return { k: 'set', exprs: [] };
    }
    if (this.acceptWord('GROUPING', 'SETS')) {
      this.expectOp('(');
      const sets: GroupItem[] = [];
      do sets.push(this.groupItem());
      while (this.acceptOp(','));
      this.expectOp(')');
      return { k: 'groupingSets', items: sets };
    }
    const kind = (this.isWord('ROLLUP') || this.isWord('CUBE')) && this.isOp('(', 1) ? this.next().upper : undefined;
    if (kind) {
      this.expectOp('(');
      const elements: SqlExpr[][] = [];
      do elements.push(this.exprOrRow());
      while (this.acceptOp(','));
      this.expectOp(')');
      return { k: kind === 'ROLLUP' ? 'rollup' : 'cube', elements };
    }
    if (this.isOp('(') && !this.opensQuery()) {
      // `(a, b)`: one composite set, as inside GROUPING SETS; `(a)` or `(a + 1)` is an expression.
      const exprs = this.exprOrRow();
      return exprs.length === 1 ? { k: 'expr', expr: exprs[0] as SqlExpr } : { k: 'set', exprs };
    }
    return { k: 'expr', expr: this.expr() };
  }

  /** `(a, b)` as its expressions, a single expression as a list of one. */
  private exprOrRow(): SqlExpr[] {
    const paren = this.isOp('(');
    const e = this.expr();
    return paren && e.k === 'constructor' && e.type === 'ROW' ? [...e.args] : [e];
  }

  private selectItem(): SqlSelectItem {
    const start = this.peek();
    const expr = this.expr();
    let alias: string | undefined;
    if (this.acceptWord('AS')) alias = this.identifier('an alias').name;
    else if (this.isName()) alias = this.identifier().name;
    return { expr, ...(alias !== undefined ? { alias } : {}), pos: this.pos(start) };
  }

  private fromClause(): SqlFrom {
    let left = this.fromItem(false).from;
    for (;;) {
      const at = this.peek();
      if (this.acceptOp(',')) {
        const right = this.fromItem(false).from;
        left = { k: 'join', joinType: 'CROSS', left, right, pos: right.pos };
        continue;
      }
      let joinType: 'INNER' | 'LEFT' | 'RIGHT' | 'FULL' | 'CROSS' | undefined;
      if (this.acceptWord('JOIN') || this.acceptWord('INNER', 'JOIN')) joinType = 'INNER';
      else if (this.acceptWord('CROSS', 'JOIN')) joinType = 'CROSS';
      else {
        const side = this.acceptOneOf(['LEFT', 'RIGHT', 'FULL']);
        if (side) {
          this.acceptWord('OUTER');
          this.expectWord('JOIN');
          joinType = side as 'LEFT';
        }
      }
      if (!joinType) {
        if (this.isWord('NATURAL') || this.isWord('CROSS') || this.isWord('OUTER')) this.fail('expected JOIN');
        return left;
      }
      const { from: right, systemTime } = this.fromItem(true);
      let on: SqlExpr | undefined;
      let using: SqlName[] | undefined;
      if (joinType !== 'CROSS') {
        if (this.acceptWord('ON')) on = this.expr();
        else if (this.acceptWord('USING')) using = this.nameList('a column name');
      }
      left = { k: 'join', joinType, left, right, ...(systemTime ? { systemTime } : {}), ...(on ? { on } : {}), ...(using ? { using } : {}), pos: this.pos(at) };
    }
  }

  /** `[AS] name [(a, b)]`. */
  private alias(): { alias?: string; columns?: SqlName[] } {
    let alias: string | undefined;
    if (this.acceptWord('AS')) alias = this.identifier('an alias').name;
    else if (this.isName()) alias = this.identifier().name;
    if (alias === undefined) return {};
    const columns = this.isOp('(') ? this.nameList('a column name') : undefined;
    return { alias, ...(columns ? { columns } : {}) };
  }

  /** One FROM item; `FOR SYSTEM_TIME AS OF` is allowed only on the right side of a join. */
  private fromItem(joined: boolean): { from: SqlFrom; systemTime?: SqlExpr } {
    const start = this.peek();
    const at = this.pos(start);
    if (this.isOp('(')) {
      if (this.opensQuery()) {
        this.next();
        const query = this.query();
        this.expectOp(')');
        return { from: this.noMatchRecognize({ k: 'subquery', query, ...this.alias(), pos: at }) };
      }
      this.next();
      const inner = this.fromClause();
      this.expectOp(')');
      return { from: inner };
    }
    if (this.acceptWord('LATERAL')) {
      if (this.acceptWord('TABLE')) return { from: this.tableFunction(true, at) };
      this.expectOp('(');
      const query = this.query();
      this.expectOp(')');
      return { from: { k: 'subquery', query, lateral: true, ...this.alias(), pos: at } };
    }
    if (this.isWord('TABLE') && this.isOp('(', 1)) {
      const fn = this.peek(2);
      if (fn.kind === 'ident' && TVFS.has(fn.upper) && this.isOp('(', 3)) return { from: this.windowTvf() };
      this.next();
      return { from: this.tableFunction(false, at) };
    }
    if (this.isWord('UNNEST') && this.isOp('(', 1)) {
      this.i += 2;
      const args: SqlExpr[] = [];
      do args.push(this.expr());
      while (this.acceptOp(','));
      this.expectOp(')');
      const ordinality = this.acceptWord('WITH', 'ORDINALITY');
      return { from: { k: 'unnest', args, ordinality, ...this.alias(), pos: at } };
    }
    const name = this.qualifiedName();
    const hints = this.takeHints();
    let systemTime: SqlExpr | undefined;
    if (this.isWord('FOR') && this.isWord('SYSTEM_TIME', 1)) {
      if (!joined) this.fail('FOR SYSTEM_TIME AS OF applies to the right side of a JOIN');
      this.expectWord('FOR', 'SYSTEM_TIME', 'AS', 'OF');
      systemTime = this.expr();
    }
    const from: SqlFrom = { k: 'table', name: name.name, ...(name.qualifier ? { qualifier: name.qualifier } : {}), ...this.alias(), ...(hints.length > 0 ? { hints } : {}), pos: name.pos };
    return { from: this.noMatchRecognize(from), ...(systemTime ? { systemTime } : {}) };
  }

  private noMatchRecognize(from: SqlFrom): SqlFrom {
    if (this.isWord('MATCH_RECOGNIZE')) throw new SqlError(this.pos(), 'MATCH_RECOGNIZE is not supported');
    return from;
  }

  /** After `[LATERAL] TABLE`: `(f(args)) [AS] t (a, b)`. */
  private tableFunction(lateral: boolean, at: SqlPosition): SqlFrom {
    this.expectOp('(');
    const t = this.peek();
    if (t.kind !== 'ident' || !this.isOp('(', 1)) this.fail('expected a table function call');
    const call = this.functionCall();
    this.expectOp(')');
    return { k: 'tableFunction', call, lateral, ...this.alias(), pos: at };
  }

  /** `TABLE(TUMBLE(TABLE t | (query), DESCRIPTOR(ts), args…))`, positional or with `name => value`. */
  private windowTvf(): SqlFrom {
    this.i += 2;
    const fnTok = this.next();
    const fn = fnTok.upper;
    this.expectOp('(');
    if (this.isWord('DATA') && this.isOp('=>', 1)) this.i += 2;
    let input: SqlFrom;
    if (this.isWord('TABLE') && !this.isOp('(', 1)) {
      this.next();
      const name = this.qualifiedName();
      input = { k: 'table', name: name.name, ...(name.qualifier ? { qualifier: name.qualifier } : {}), pos: name.pos };
    } else if (this.isOp('(') || (this.acceptWord('TABLE') && this.isOp('('))) {
      input = this.fromItem(false).from;
    } else {
      input = this.fail('expected TABLE name or a subquery as the window function input');
    }
    const partitionBy: { name: string; pos: SqlPosition }[] = [];
    if (this.isWord('PARTITION') && this.isWord('BY', 1)) {
      if (fn !== 'SESSION') this.fail(`${fn} takes no PARTITION BY (only SESSION does)`);
      this.i += 2;
      // `PARTITION BY (a, b)` or `PARTITION BY a, b` — the latter ends at `, DESCRIPTOR`.
      const paren = this.acceptOp('(');
      partitionBy.push(this.identifier('a partition column'));
      while (this.isOp(',') && (paren || !(this.isWord('DESCRIPTOR', 1) || this.isOp('=>', 2)))) {
        this.next();
        partitionBy.push(this.identifier('a partition column'));
      }
      if (paren) this.expectOp(')');
    }
    this.expectOp(',');
    if (this.isWord('TIMECOL') && this.isOp('=>', 1)) this.i += 2;
    this.expectWord('DESCRIPTOR');
    this.expectOp('(');
    const timeColumn = this.identifier('the time column');
    this.expectOp(')');
    const params = TVF_PARAMS[fn] ?? [];
    const positional: SqlExpr[] = [];
    const named = new Map<string, SqlExpr>();
    while (this.acceptOp(',')) {
      if (this.peek().kind === 'ident' && this.isOp('=>', 1)) {
        const p = this.next();
        if (!params.includes(p.upper)) this.fail(`${fn} has no parameter ${p.upper} (its parameters: DATA, TIMECOL, ${params.join(', ')})`, p);
        this.next();
        named.set(p.upper, this.expr());
      } else {
        if (named.size > 0) this.fail('expected a named parameter (name => value) after a named one');
        positional.push(this.expr());
      }
    }
    const args = [...positional];
    for (const p of params.slice(positional.length)) {
      const v = named.get(p);
      if (v === undefined) break;
      args.push(v);
    }
    if (args.length !== positional.length + named.size) this.fail(`${fn}: named parameters must not leave a gap (order: ${params.join(', ')})`);
    this.expectOp(')');
    this.expectOp(')');
    const alias = this.alias();
    if (alias.columns) throw new SqlError(this.pos(fnTok), 'a column list on a window TVF alias is not supported');
    return { k: 'tvf', fn: fn as 'TUMBLE', input, partitionBy, timeColumn, args, ...(alias.alias !== undefined ? { alias: alias.alias } : {}), pos: this.pos(fnTok) };
  }

  /** True at a token that starts a query. */
  protected startsQuery(): boolean {
    return QUERY_START.some((w) => this.isWord(w)) || this.opensQuery();
  }
}
