/**
 * Functions with their own argument syntax, read into plain calls with keyword arguments
 * (ast.ts `keyword`): `CAST(x AS t)`, `EXTRACT(HOUR FROM ts)` → `EXTRACT(HOUR, ts)`,
 * `SUBSTRING(s FROM 1 FOR 2)` → `SUBSTRING(s, 1, 2)`, `TRIM(BOTH 'x' FROM s)` → `TRIM(BOTH, 'x', s)`,
 * `POSITION(a IN b)` → `POSITION(a, b)`, `OVERLAY(s PLACING r FROM 2 FOR 3)`, `FLOOR(ts TO HOUR)`
 * → `FLOOR(ts, HOUR)`, `TIMESTAMPADD(HOUR, n, ts)`, and the JSON functions, whose clauses
 * (`RETURNING INT`, `DEFAULT 0 ON EMPTY`, `WITH ARRAY WRAPPER`, `ABSENT ON NULL`) become
 * keyword arguments after the plain ones (`DEFAULT ON EMPTY` followed by its value).
 */
import type { SqlExpr } from '../ast.ts';
import type { SqlPosition } from '../errors.ts';
import { ExpressionReader } from './expressions.ts';
import type { Token } from './lexer.ts';

type Call = Extract<SqlExpr, { k: 'call' }>;

/** Units of EXTRACT, FLOOR/CEIL … TO, TIMESTAMPADD/TIMESTAMPDIFF. */
const TIME_UNITS = ['MILLENNIUM', 'CENTURY', 'DECADE', 'YEAR', 'QUARTER', 'MONTH', 'WEEK', 'DAY', 'DOY', 'DOW', 'ISODOW', 'ISOYEAR', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND', 'MICROSECOND', 'NANOSECOND', 'EPOCH'];

/** The SQL spellings of units: `SQL_TSI_HOUR` and plurals name the same unit. */
function normalUnit(word: string): string {
  const w = word.replace(/^SQL_TSI_/, '').replace(/^FRAC_SECOND$/, 'MICROSECOND');
  return TIME_UNITS.includes(w) ? w : TIME_UNITS.includes(w.replace(/S$/, '')) ? w.replace(/S$/, '') : w;
}

/** Reads the special-syntax functions; plain calls are left to the expression reader. */
export abstract class FunctionSyntaxReader extends ExpressionReader {
  protected specialCall(name: Token): SqlExpr | undefined {
    switch (name.upper) {
      case 'CAST':
      case 'TRY_CAST':
        return this.cast();
      case 'EXTRACT':
        return this.extract();
      case 'SUBSTRING':
      case 'SUBSTR':
        return this.fromFor(name.upper);
      case 'OVERLAY':
        return this.overlay();
      case 'TRIM':
        return this.trim();
      case 'POSITION':
        return this.position();
      case 'FLOOR':
      case 'CEIL':
      case 'CEILING':
        return this.floorTo(name.upper === 'FLOOR' ? 'FLOOR' : 'CEIL');
      case 'TIMESTAMPADD':
      case 'TIMESTAMPDIFF':
        return this.timestampArith(name.upper);
      case 'JSON_VALUE':
      case 'JSON_QUERY':
      case 'JSON_EXISTS':
        return this.jsonQuery(name.upper);
      case 'JSON_OBJECT':
      case 'JSON_OBJECTAGG':
        return this.jsonObject(name.upper);
      case 'JSON_ARRAY':
      case 'JSON_ARRAYAGG':
        return this.jsonArray(name.upper);
      default:
        return undefined;
    }
  }

  /** Consumes the function name and `(`, returning the name's position. */
  private open(): SqlPosition {
    const at = this.pos(this.next());
    this.expectOp('(');
    return at;
  }

  private call(name: string, args: SqlExpr[], at: SqlPosition, extra: Partial<Call> = {}): Call {
    return { k: 'call', name, args, distinct: false, star: false, ...extra, pos: at };
  }

  private keyword(word: string, at: SqlPosition = this.pos()): SqlExpr {
    return { k: 'keyword', word, pos: at };
  }

  private unit(): SqlExpr {
    const t = this.peek();
    if (t.kind !== 'ident') this.fail('expected a time unit such as HOUR');
    const unit = normalUnit(t.upper);
    if (!TIME_UNITS.includes(unit)) this.fail('expected a time unit such as HOUR');
    this.next();
    return this.keyword(unit, this.pos(t));
  }

  private cast(): SqlExpr {
    const nameTok = this.peek();
    const at = this.open();
    const expr = this.expr();
    this.expectWord('AS');
    const type = this.typeText();
    this.expectOp(')');
    return { k: 'cast', expr, type, pos: at, ...(nameTok.upper === 'TRY_CAST' ? { safe: true } : {}) };
  }

  private extract(): SqlExpr {
    const at = this.open();
    const unit = this.unit();
    this.expectWord('FROM');
    const arg = this.expr();
    this.expectOp(')');
    return this.call('EXTRACT', [unit, arg], at);
  }

  /** `SUBSTRING(s FROM a [FOR b])` or `SUBSTRING(s, a[, b])`. */
  private fromFor(name: string): SqlExpr {
    const at = this.open();
    const args = [this.expr()];
    if (this.acceptWord('FROM')) {
      args.push(this.expr());
      if (this.acceptWord('FOR')) args.push(this.expr());
    } else {
      while (this.acceptOp(',')) args.push(this.expr());
    }
    this.expectOp(')');
    return this.call(name === 'SUBSTR' ? 'SUBSTR' : 'SUBSTRING', args, at);
  }

  /** `OVERLAY(s PLACING r FROM a [FOR b])`. */
  private overlay(): SqlExpr {
    const at = this.open();
    const args = [this.expr()];
    this.expectWord('PLACING');
    args.push(this.expr());
    this.expectWord('FROM');
    args.push(this.expr());
    if (this.acceptWord('FOR')) args.push(this.expr());
    this.expectOp(')');
    return this.call('OVERLAY', args, at);
  }

  /** `TRIM(s)`, or `TRIM([BOTH | LEADING | TRAILING] [chars] FROM s)` → `TRIM(side, chars, s)`. */
  private trim(): SqlExpr {
    const at = this.open();
    const sideTok = this.peek();
    const side = this.acceptOneOf(['BOTH', 'LEADING', 'TRAILING']);
    if (!side) {
      const first = this.expr();
      if (!this.acceptWord('FROM')) {
        this.expectOp(')');
        return this.call('TRIM', [first], at);
      }
      const s = this.expr();
      this.expectOp(')');
      return this.call('TRIM', [this.keyword('BOTH', first.pos), first, s], at);
    }
    const chars: SqlExpr = this.isWord('FROM') ? { k: 'str', value: ' ', pos: this.pos() } : this.expr();
    this.expectWord('FROM');
    const s = this.expr();
    this.expectOp(')');
    return this.call('TRIM', [this.keyword(side, this.pos(sideTok)), chars, s], at);
  }

  /** `POSITION(a IN b [FROM n])` → `POSITION(a, b[, n])`. */
  private position(): SqlExpr {
    const at = this.open();
    // The needle is read below the predicates, so that IN is the keyword, not a predicate.
    const needle = this.additive();
    this.expectWord('IN');
    const args = [needle, this.expr()];
    if (this.acceptWord('FROM')) args.push(this.expr());
    this.expectOp(')');
    return this.call('POSITION', args, at);
  }

  /** `FLOOR(x)`, or `FLOOR(ts TO HOUR)` → `FLOOR(ts, HOUR)`; CEIL alike. */
  private floorTo(name: 'FLOOR' | 'CEIL'): SqlExpr {
    const at = this.open();
    const args = [this.expr()];
    if (this.acceptWord('TO')) args.push(this.unit());
    this.expectOp(')');
    return this.call(name, args, at);
  }

  /** `TIMESTAMPADD(unit, n, ts)`, `TIMESTAMPDIFF(unit, a, b)`. */
  private timestampArith(name: string): SqlExpr {
    const at = this.open();
    const args = [this.unit()];
    while (this.acceptOp(',')) args.push(this.expr());
    this.expectOp(')');
    return this.call(name, args, at);
  }

  /** JSON_VALUE / JSON_QUERY / JSON_EXISTS: `(json, path [clauses])`. */
  private jsonQuery(name: string): SqlExpr {
    const at = this.open();
    const args = [this.expr()];
    this.expectOp(',');
    args.push(this.expr());
    let returning: string | undefined;
    if (name !== 'JSON_EXISTS' && this.acceptWord('RETURNING')) returning = this.typeText(['NULL', 'ERROR', 'DEFAULT', 'EMPTY', 'WITH', 'WITHOUT']);
    for (;;) {
      const t = this.peek();
      if (this.isOp(')')) break;
      if (name === 'JSON_QUERY' && (this.isWord('WITH') || this.isWord('WITHOUT'))) {
        const without = this.next().upper === 'WITHOUT';
        const kind = without ? undefined : this.acceptOneOf(['CONDITIONAL', 'UNCONDITIONAL']);
        this.acceptWord('ARRAY');
        this.expectWord('WRAPPER');
        args.push(this.keyword(without ? 'WITHOUT WRAPPER' : `WITH ${kind ?? 'UNCONDITIONAL'} WRAPPER`, this.pos(t)));
        continue;
      }
      let behaviour: string | undefined;
      let value: SqlExpr | undefined;
      if (this.acceptWord('DEFAULT')) {
        behaviour = 'DEFAULT';
        value = this.expr();
      } else if (this.acceptWord('EMPTY')) {
        behaviour = `EMPTY ${this.acceptOneOf(['ARRAY', 'OBJECT']) ?? this.fail('expected ARRAY or OBJECT after EMPTY')}`;
      } else {
        behaviour = this.acceptOneOf(name === 'JSON_EXISTS' ? ['TRUE', 'FALSE', 'UNKNOWN', 'ERROR'] : ['NULL', 'ERROR']);
      }
      if (behaviour === undefined) return this.fail(`expected ')' or a ${name} clause`);
      this.expectWord('ON');
      const on = this.acceptOneOf(['EMPTY', 'ERROR']) ?? this.fail('expected EMPTY or ERROR');
      args.push(this.keyword(`${behaviour} ON ${on}`, this.pos(t)));
      if (value) args.push(value);
    }
    this.expectOp(')');
    return this.call(name, args, at, returning !== undefined ? { returning } : {});
  }

  /** `JSON_OBJECT([KEY] k VALUE v, … [NULL | ABSENT ON NULL])` → `(k1, v1, …, NULL ON NULL)`. */
  private jsonObject(name: string): SqlExpr {
    const at = this.open();
    const args: SqlExpr[] = [];
    while (!this.isOp(')') && !this.onNullAhead()) {
      this.acceptWord('KEY');
      args.push(this.expr());
      this.expectWord('VALUE');
      args.push(this.expr());
      if (!this.acceptOp(',')) break;
    }
    this.onNull(args);
    this.expectOp(')');
    return this.callSuffixes(this.call(name, args, at));
  }

  /** `JSON_ARRAY(v, … [NULL | ABSENT ON NULL])`. */
  private jsonArray(name: string): SqlExpr {
    const at = this.open();
    const args: SqlExpr[] = [];
    while (!this.isOp(')') && !this.onNullAhead()) {
      args.push(this.expr());
      if (!this.acceptOp(',')) break;
    }
    this.onNull(args);
    this.expectOp(')');
    return this.callSuffixes(this.call(name, args, at));
  }

  private onNullAhead(): boolean {
    return (this.isWord('NULL') || this.isWord('ABSENT')) && this.isWord('ON', 1) && this.isWord('NULL', 2);
  }

  private onNull(args: SqlExpr[]): void {
    if (!this.onNullAhead()) return;
    const t = this.next();
    this.i += 2;
    args.push(this.keyword(`${t.upper} ON NULL`, this.pos(t)));
  }
}
