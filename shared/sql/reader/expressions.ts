/**
 * Reading expressions by precedence: OR, AND, NOT, the predicates (comparison, IS …, BETWEEN,
 * IN, LIKE, SIMILAR TO), `+ - ||`, `* / %`, unary sign, then postfix `[i]` / `.field` on a
 * primary. Functions with their own syntax (CAST, EXTRACT, TRIM, POSITION, FLOOR … TO, JSON_*)
 * are in function-syntax.ts.
 */
import type { SqlExpr, SqlFrameBound, SqlOrderItem, SqlOver, SqlQuery } from '../ast.ts';
import type { SqlPosition } from '../errors.ts';
import { RESERVED } from './cursor.ts';
import type { Token } from './lexer.ts';
import { TypeReader } from './types.ts';

type Call = Extract<SqlExpr, { k: 'call' }>;

/** Functions written without parentheses (`CURRENT_TIMESTAMP`): read as calls with no arguments. */
const NILADIC = new Set(['CURRENT_TIMESTAMP', 'CURRENT_DATE', 'CURRENT_TIME', 'LOCALTIMESTAMP', 'LOCALTIME', 'CURRENT_ROW_TIMESTAMP']);

const COMPARISONS = ['=', '<>', '!=', '<', '<=', '>', '>='];

/** Words that start a query, inside parentheses or after IN / EXISTS. */
export const QUERY_START = ['SELECT', 'WITH', 'VALUES'];

/** The expression reader; queries (for subqueries) come from the subclass. */
export abstract class ExpressionReader extends TypeReader {
  /** OVER clauses naming a window of the WINDOW clause, resolved when the clause is read. */
  protected pendingWindows: { over: SqlOver; name: string; pos: SqlPosition }[] = [];

  /** A query expression (SELECT, set operation, VALUES, WITH …, ORDER BY …). */
  abstract query(): SqlQuery;

  /** The function-syntax reader's hook (function-syntax.ts): a call with special syntax, or undefined. */
  protected abstract specialCall(name: Token): SqlExpr | undefined;

  expr(): SqlExpr {
    return this.orExpr();
  }

  /** True when `(` at `ahead` opens a query (`(SELECT …`, `((SELECT …`). */
  protected opensQuery(ahead = 0): boolean {
    let k = ahead;
    while (this.isOp('(', k)) k++;
    return k > ahead && QUERY_START.some((w) => this.isWord(w, k));
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
    return this.predicate();
  }

  /** A value with any number of postfix predicates: `a = b`, `x IS NOT NULL`, `s LIKE 'a%'`. */
  private predicate(): SqlExpr {
    let left = this.additive();
    for (;;) {
      const at = this.pos();
      const t = this.peek();
      if (t.kind === 'op' && COMPARISONS.includes(t.text)) {
        this.next();
        left = { k: 'bin', op: t.text === '!=' ? '<>' : t.text, left, right: this.additive(), pos: at };
        continue;
      }
      if (this.acceptWord('IS')) {
        left = this.isPredicate(left, at);
        continue;
      }
      const not = this.isWord('NOT') && ['BETWEEN', 'IN', 'LIKE', 'SIMILAR'].some((w) => this.isWord(w, 1));
      if (not) this.next();
      if (this.acceptWord('BETWEEN')) {
        const symmetric = this.acceptWord('SYMMETRIC');
        if (!symmetric) this.acceptWord('ASYMMETRIC');
        const low = this.additive();
        this.expectWord('AND');
        left = { k: 'between', expr: left, low, high: this.additive(), not, ...(symmetric ? { symmetric } : {}), pos: at };
        continue;
      }
      if (this.acceptWord('IN')) {
        if (this.opensQuery()) {
          this.expectOp('(');
          const query = this.query();
          this.expectOp(')');
          left = { k: 'inQuery', expr: left, query, not, pos: at };
          continue;
        }
        this.expectOp('(');
        const list: SqlExpr[] = [];
        do list.push(this.expr());
        while (this.acceptOp(','));
        this.expectOp(')');
        left = { k: 'in', expr: left, list, not, pos: at };
        continue;
      }
      const similar = this.acceptWord('SIMILAR', 'TO');
      if (similar || this.acceptWord('LIKE')) {
        const pattern = this.additive();
        const escape = this.acceptWord('ESCAPE') ? this.additive() : undefined;
        left = { k: 'like', expr: left, pattern, ...(escape ? { escape } : {}), not, ...(similar ? { similar } : {}), pos: at };
        continue;
      }
      if (not) this.fail('expected BETWEEN, IN, LIKE or SIMILAR TO after NOT');
      return left;
    }
  }

  /** After `IS`: `[NOT] NULL | TRUE | FALSE | UNKNOWN | DISTINCT FROM x | JSON [kind]`. */
  private isPredicate(left: SqlExpr, at: SqlPosition): SqlExpr {
    const not = this.acceptWord('NOT');
    if (this.acceptWord('NULL') || this.acceptWord('UNKNOWN')) return { k: 'isnull', expr: left, not, pos: at };
    if (this.acceptWord('TRUE')) return { k: 'isbool', expr: left, value: true, not, pos: at };
    if (this.acceptWord('FALSE')) return { k: 'isbool', expr: left, value: false, not, pos: at };
    if (this.acceptWord('DISTINCT')) {
      this.expectWord('FROM');
      return { k: 'distinctFrom', left, right: this.additive(), not, pos: at };
    }
    if (this.acceptWord('JSON')) {
      const kind = (this.acceptOneOf(['VALUE', 'SCALAR', 'ARRAY', 'OBJECT']) ?? 'VALUE') as 'VALUE';
      return { k: 'isjson', expr: left, kind, not, pos: at };
    }
    return this.fail('expected NULL, TRUE, FALSE, UNKNOWN, DISTINCT FROM or JSON after IS');
  }

  protected additive(): SqlExpr {
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
    return this.postfix(this.primary());
  }

  /** `x[i]` and `x.field` after a primary that is not a plain column path. */
  private postfix(base: SqlExpr): SqlExpr {
    let e = base;
    for (;;) {
      if (this.isOp('[')) {
        const at = this.pos(this.next());
        const index = this.expr();
        this.expectOp(']');
        e = { k: 'index', expr: e, index, pos: at };
      } else if (this.isOp('.') && e.k !== 'id' && e.k !== 'star') {
        const at = this.pos(this.next());
        e = { k: 'field', expr: e, name: this.identifier('a field name').name, pos: at };
      } else return e;
    }
  }

  protected primary(): SqlExpr {
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
        if (t.text === '(') return this.parenthesized();
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
      case 'INTERVAL':
        return this.interval();
      case 'CASE':
        return this.caseExpr();
      case 'EXISTS': {
        this.next();
        this.expectOp('(');
        const query = this.query();
        this.expectOp(')');
        return { k: 'exists', query, pos: at };
      }
      case 'TIMESTAMP':
      case 'DATE':
      case 'TIME':
        if (this.peek(1).kind === 'string') {
          this.next();
          return { k: 'typed', type: t.upper, value: this.next().text, pos: at };
        }
        if (t.upper === 'TIMESTAMP' && this.isWord('WITH', 1) && this.isWord('LOCAL', 2) && this.peek(5).kind === 'string') {
          this.i += 5;
          return { k: 'typed', type: 'TIMESTAMP_LTZ', value: this.next().text, pos: at };
        }
        break;
      case 'X': {
        // A binary literal X'466C' (the quote right after the X, as in Calcite).
        const quoted = this.peek(1);
        if (quoted.kind === 'string' && quoted.offset === t.end) {
          this.i += 2;
          return { k: 'typed', type: 'BINARY', value: quoted.text, pos: at };
        }
        break;
      }
      case 'ARRAY':
      case 'MAP':
        if (this.isOp('[', 1)) {
          this.i += 2;
          const args: SqlExpr[] = [];
          if (!this.isOp(']')) {
            do args.push(this.expr());
            while (this.acceptOp(','));
          }
          this.expectOp(']');
          return { k: 'constructor', type: t.upper, args, pos: at };
        }
        break;
      case 'ROW':
        if (this.isOp('(', 1)) {
          this.i += 2;
          const args: SqlExpr[] = [];
          if (!this.isOp(')')) {
            do args.push(this.expr());
            while (this.acceptOp(','));
          }
          this.expectOp(')');
          return { k: 'constructor', type: 'ROW', args, pos: at };
        }
        break;
    }
    if (NILADIC.has(t.upper) && !this.isOp('.', 1)) {
      this.next();
      // `CURRENT_ROW_TIMESTAMP()` is written with parentheses; the others without.
      if (this.isOp('(') && this.isOp(')', 1)) this.i += 2;
      return { k: 'call', name: t.upper, args: [], distinct: false, star: false, pos: at };
    }
    if (this.isOp('(', 1)) {
      const special = this.specialCall(t);
      if (special) return special;
      return this.functionCall();
    }
    if (RESERVED.has(t.upper)) return this.fail('expected an expression');
    return this.identifierChain();
  }

  /** `(expr)`, `(SELECT …)` as a value, or a row `(a, b)`. */
  private parenthesized(): SqlExpr {
    const at = this.pos();
    if (this.opensQuery()) {
      this.expectOp('(');
      const query = this.query();
      this.expectOp(')');
      return { k: 'scalarQuery', query, pos: at };
    }
    this.expectOp('(');
    const first = this.expr();
    if (this.isOp(',')) {
      const args = [first];
      while (this.acceptOp(',')) args.push(this.expr());
      this.expectOp(')');
      return { k: 'constructor', type: 'ROW', args, pos: at };
    }
    this.expectOp(')');
    return first;
  }

  /** `INTERVAL '5' SECOND`, `INTERVAL '1 02:00' DAY TO MINUTE`, `INTERVAL '10' MINUTES`. */
  protected interval(): SqlExpr {
    const at = this.pos(this.next());
    let sign = '';
    if (this.acceptOp('-')) sign = '-';
    else this.acceptOp('+');
    const valueTok = this.peek();
    if (valueTok.kind !== 'string' && valueTok.kind !== 'number') this.fail('expected the interval value (a quoted string)');
    this.next();
    const unit = this.next();
    if (unit.kind !== 'ident') this.fail('expected an interval unit such as SECOND', unit);
    this.precision();
    let toUnit: string | undefined;
    if (this.acceptWord('TO')) {
      const u = this.next();
      if (u.kind !== 'ident') this.fail('expected an interval unit such as SECOND', u);
      toUnit = u.upper;
      this.precision();
    }
    const value = sign === '-' && valueTok.text.startsWith('-') ? valueTok.text.slice(1) : sign + valueTok.text;
    return { k: 'interval', value, unit: unit.upper, ...(toUnit ? { toUnit } : {}), pos: at };
  }

  /** An optional `(p)` after an interval unit: `SECOND(3)`. */
  private precision(): void {
    if (this.isOp('(') && this.peek(1).kind === 'number') {
      this.i += 2;
      if (this.acceptOp(',')) this.next();
      this.expectOp(')');
    }
  }

  protected identifierChain(): SqlExpr {
    const first = this.next();
    const parts = [first.text];
    while (this.isOp('.')) {
      this.next();
      if (this.isOp('*')) {
        this.next();
        return { k: 'star', qualifier: parts.join('.'), pos: this.pos(first) };
      }
      const t = this.peek();
      if (t.kind !== 'ident' && t.kind !== 'qident') this.fail('expected a column name');
      this.next();
      parts.push(t.text);
    }
    return { k: 'id', parts, pos: this.pos(first) };
  }

  private caseExpr(): SqlExpr {
    const at = this.pos(this.next());
    const operand = this.isWord('WHEN') ? undefined : this.expr();
    const whens: [SqlExpr, SqlExpr][] = [];
    let listed = false;
    while (this.acceptWord('WHEN')) {
      const values = [this.expr()];
      // `CASE x WHEN 1, 7 THEN …`: any of the values.
      while (operand && this.acceptOp(',')) values.push(this.expr());
      this.expectWord('THEN');
      if (values.length > 1) listed = true;
      const cond: SqlExpr = values.length > 1 && operand ? { k: 'in', expr: operand, list: values, not: false, pos: (values[0] as SqlExpr).pos } : (values[0] as SqlExpr);
      whens.push([cond, this.expr()]);
    }
    if (whens.length === 0) this.fail('expected WHEN');
    const otherwise = this.acceptWord('ELSE') ? this.expr() : undefined;
    this.expectWord('END');
    if (listed && operand) {
      // A value list makes the simple CASE a searched one: `WHEN x IN (1, 7)`, `WHEN x = 2`.
      const searched = whens.map(([w, then]): [SqlExpr, SqlExpr] => [w.k === 'in' && w.expr === operand ? w : { k: 'bin', op: '=', left: operand, right: w, pos: w.pos }, then]);
      return { k: 'case', whens: searched, ...(otherwise ? { otherwise } : {}), pos: at };
    }
    return { k: 'case', ...(operand ? { operand } : {}), whens, ...(otherwise ? { otherwise } : {}), pos: at };
  }

  /** `name(args) [WITHIN GROUP (ORDER BY …)] [FILTER (WHERE …)] [OVER (…) | OVER w]`. */
  protected functionCall(): Call {
    const nameTok = this.next();
    const at = this.pos(nameTok);
    this.expectOp('(');
    const distinct = this.acceptWord('DISTINCT');
    if (!distinct) this.acceptWord('ALL');
    let star = false;
    const args: SqlExpr[] = [];
    if (this.isOp('*') && this.isOp(')', 1)) {
      this.next();
      star = true;
    } else if (!this.isOp(')')) {
      do args.push(this.expr());
      while (this.acceptOp(','));
    }
    // ARRAY_AGG(x RESPECT NULLS | IGNORE NULLS): the null treatment, as a keyword argument.
    const treatment = this.peek();
    const nulls = this.acceptOneOf(['RESPECT', 'IGNORE']);
    if (nulls !== undefined) {
      this.expectWord('NULLS');
      args.push({ k: 'keyword', word: `${nulls} NULLS`, pos: this.pos(treatment) });
    }
    this.expectOp(')');
    return this.callSuffixes({ k: 'call', name: nameTok.upper, args, distinct, star, pos: at });
  }

  /** The clauses after a call's parentheses. */
  protected callSuffixes(c: Call): Call {
    let call = c;
    if (this.acceptWord('WITHIN', 'GROUP')) {
      this.expectOp('(');
      this.expectWord('ORDER', 'BY');
      call = { ...call, withinGroup: this.orderItems() };
      this.expectOp(')');
    }
    if (this.isWord('FILTER') && this.isOp('(', 1)) {
      this.i += 2;
      this.expectWord('WHERE');
      call = { ...call, filter: this.expr() };
      this.expectOp(')');
    }
    if (this.acceptWord('OVER')) {
      if (this.isName()) {
        const name = this.identifier('a window name');
        const over: SqlOver = { partitionBy: [], orderBy: [] };
        this.pendingWindows.push({ over, name: name.name, pos: name.pos });
        return { ...call, over };
      }
      call = { ...call, over: this.windowSpec() };
    }
    return call;
  }

  /** `(PARTITION BY … ORDER BY … [ROWS | RANGE …])`. */
  protected windowSpec(): SqlOver {
    this.expectOp('(');
    const partitionBy: SqlExpr[] = [];
    if (this.acceptWord('PARTITION')) {
      this.expectWord('BY');
      do partitionBy.push(this.expr());
      while (this.acceptOp(','));
    }
    let orderBy: SqlOrderItem[] = [];
    if (this.acceptWord('ORDER')) {
      this.expectWord('BY');
      orderBy = this.orderItems();
    }
    let frame: SqlOver['frame'];
    const unitTok = this.peek();
    const unit = this.acceptOneOf(['ROWS', 'RANGE']) as 'ROWS' | 'RANGE' | undefined;
    if (unit) {
      if (this.acceptWord('BETWEEN')) {
        const start = this.frameBound();
        this.expectWord('AND');
        frame = { unit, start, end: this.frameBound(), pos: this.pos(unitTok) };
      } else {
        frame = { unit, start: this.frameBound(), end: { kind: 'CURRENT ROW', pos: this.pos() }, pos: this.pos(unitTok) };
      }
    }
    this.expectOp(')');
    return { partitionBy, orderBy, ...(frame ? { frame } : {}) };
  }

  private frameBound(): SqlFrameBound {
    const at = this.pos();
    if (this.acceptWord('UNBOUNDED')) {
      const side = this.acceptOneOf(['PRECEDING', 'FOLLOWING']);
      if (!side) this.fail('expected PRECEDING or FOLLOWING');
      return { kind: side === 'PRECEDING' ? 'UNBOUNDED PRECEDING' : 'UNBOUNDED FOLLOWING', pos: at };
    }
    if (this.acceptWord('CURRENT', 'ROW')) return { kind: 'CURRENT ROW', pos: at };
    const offset = this.additive();
    const side = this.acceptOneOf(['PRECEDING', 'FOLLOWING']);
    if (!side) this.fail('expected PRECEDING or FOLLOWING');
    return { kind: side as 'PRECEDING', offset, pos: at };
  }

  /** `e [ASC | DESC] [NULLS FIRST | LAST], …`. */
  protected orderItems(): SqlOrderItem[] {
    const items: SqlOrderItem[] = [];
    do {
      const expr = this.expr();
      const direction = this.acceptWord('DESC') ? 'DESC' : (this.acceptWord('ASC'), 'ASC');
      let nulls: 'FIRST' | 'LAST' | undefined;
      if (this.acceptWord('NULLS')) nulls = this.acceptWord('FIRST') ? 'FIRST' : (this.expectWord('LAST'), 'LAST');
      items.push({ expr, direction, ...(nulls ? { nulls } : {}) });
    } while (this.acceptOp(','));
    return items;
  }
}
