/**
 * Builds the syntax tree of ast.ts from dt-sql-parser's Flink SQL parse tree (the ANTLR
 * `ProgramContext` of the pre-passed text, see prepass.ts), producing what parser.ts produces:
 * the same nodes with the same line:column positions. The two constructs the grammar rejects are
 * restored from the pre-pass: a masked SESSION TVF (parsed as TUMBLE) gets its name and
 * PARTITION BY columns back, a blanked aggregate `FILTER (WHERE …)` its condition.
 *
 * A statement shape this walker does not know throws `TreeUnsupported`; the caller then reads
 * that statement with the hand-written parser (which also reports the subset's own errors, such
 * as ORDER BY in a streaming query).
 */
import { ParserRuleContext, TerminalNode, type ParseTree, type Token as AntlrToken, type TokenStream } from 'antlr4ng';
import { FlinkSqlParser } from 'dt-sql-parser/dist/lib/flink/FlinkSqlParser.js';
import type { SqlColumn, SqlExpr, SqlFrom, SqlHint, SqlOrderItem, SqlSelect, SqlSelectItem, SqlStatement } from './ast.ts';
import type { SqlPosition } from './errors.ts';
import { parseHints } from './hints.ts';
import { tokenize, type Token } from './lexer.ts';

/** The join words between two table expressions → the join type. */
const JOIN_WORDS: Readonly<Record<string, 'INNER' | 'LEFT' | 'RIGHT' | 'FULL'>> = {
  JOIN: 'INNER',
  'INNER JOIN': 'INNER',
  'LEFT JOIN': 'LEFT',
  'LEFT OUTER JOIN': 'LEFT',
  'RIGHT JOIN': 'RIGHT',
  'RIGHT OUTER JOIN': 'RIGHT',
  'FULL JOIN': 'FULL',
  'FULL OUTER JOIN': 'FULL',
};

/** The tree holds a construct this walker does not convert. */
export class TreeUnsupported extends Error {}

type WithoutText<T> = T extends unknown ? Omit<T, 'text'> : never;

const RULES = FlinkSqlParser.ruleNames;

function rule(n: ParseTree): string {
  return n instanceof ParserRuleContext ? (RULES[n.ruleIndex] ?? '?') : '#';
}

function unsupported(n: ParseTree | undefined | null, what = ''): never {
  const shape = n instanceof ParserRuleContext ? ` [${kids(n).map(rule).join(' ')}] ${n.start?.line ?? 0}:${(n.start?.column ?? 0) + 1}` : '';
  throw new TreeUnsupported(`${n ? rule(n) : 'missing'}${shape}${what ? `: ${what}` : ''}`);
}

function kids(n: ParserRuleContext): ParseTree[] {
  return n.children ?? [];
}

function rules(n: ParserRuleContext, name: string): ParserRuleContext[] {
  return kids(n).filter((c): c is ParserRuleContext => c instanceof ParserRuleContext && rule(c) === name);
}

function one(n: ParserRuleContext, name: string): ParserRuleContext | undefined {
  return rules(n, name)[0];
}

function need(n: ParserRuleContext, name: string): ParserRuleContext {
  return one(n, name) ?? unsupported(n, `no ${name}`);
}

function terms(n: ParserRuleContext): TerminalNode[] {
  return kids(n).filter((c): c is TerminalNode => c instanceof TerminalNode);
}

function hasWord(n: ParserRuleContext, word: string): boolean {
  return terms(n).some((t) => t.getText().toUpperCase() === word);
}

function posOf(t: AntlrToken | null | undefined): SqlPosition {
  if (!t) return unsupported(undefined, 'no token');
  return { line: t.line, column: t.column + 1 };
}

function pos(n: ParseTree): SqlPosition {
  return n instanceof TerminalNode ? posOf(n.symbol) : posOf((n as ParserRuleContext).start);
}

function unquote(text: string): string {
  if (text.startsWith("'") && text.endsWith("'")) return text.slice(1, -1).replace(/''/g, "'");
  return unsupported(undefined, `not a string literal: ${text}`);
}

function identText(text: string): string {
  if (text.startsWith('`')) {
    if (text.slice(1, -1).includes('`')) unsupported(undefined, 'escaped back-quote');
    return text.slice(1, -1);
  }
  if (text.startsWith("'") || text.startsWith('"')) unsupported(undefined, 'quoted identifier');
  return text;
}

/** The names of a dotted identifier rule (`uid`, `columnNamePath`, `tablePath`, `identifier` …). */
function nameParts(n: ParserRuleContext): { parts: string[]; pos: SqlPosition } {
  const parts: string[] = [];
  const walk = (c: ParseTree): void => {
    if (c instanceof TerminalNode) {
      if (c.getText() !== '.') parts.push(identText(c.getText()));
      return;
    }
    const r = rule(c);
    if (!['uid', 'uidAllowEmpty', 'identifier', 'unquotedIdentifier', 'quotedIdentifier', 'nonReservedKeywords', 'columnName', 'columnNamePath', 'tablePath', 'tablePathCreate', 'viewPath', 'viewPathCreate', 'columnNameCreate', 'timeAttrColumn'].includes(r)) {
      unsupported(c, 'in a name');
    }
    for (const k of kids(c as ParserRuleContext)) walk(k);
  };
  walk(n);
  if (parts.length === 0) unsupported(n, 'empty name');
  return { parts, pos: pos(n) };
}

/** A table name: the last part of a dotted path (as parser.ts keeps it). */
function lastName(n: ParserRuleContext): { name: string; pos: SqlPosition } {
  const { parts, pos: at } = nameParts(n);
  return { name: parts[parts.length - 1] as string, pos: at };
}

function singleName(n: ParserRuleContext): { name: string; pos: SqlPosition } {
  const { parts, pos: at } = nameParts(n);
  if (parts.length !== 1) unsupported(n, 'dotted name');
  return { name: parts[0] as string, pos: at };
}

/** What the pre-pass changed in the text, by the position of the masked token. */
interface Masks {
  /** SESSION TVFs by the position of their (masked) name, with their PARTITION BY columns. */
  readonly sessions: Map<string, { name: string; pos: SqlPosition }[]>;
  /** FILTER conditions by the position of the `)` closing the aggregate call they follow. */
  readonly filters: Map<string, SqlExpr>;
}

const key = (p: SqlPosition): string => `${p.line}:${p.column}`;

/** Converts the parse tree of the pre-passed `text` into statements. */
export class TreeToAst {
  private readonly masks: Masks;
  /** Token indexes of the hints read after SELECT. */
  private readonly hintsRead = new Set<number>();

  constructor(
    private readonly text: string,
    private readonly tokens: TokenStream,
    filterExpr: (tokens: readonly Token[]) => SqlExpr,
    private readonly reparser?: (text: string) => SqlExpr,
  ) {
    this.masks = collectMasks(text, filterExpr);
  }

  /** One statement per `singleStatement`, or undefined for an empty one. */
  statement(n: ParserRuleContext): SqlStatement | undefined {
    if (rule(n) !== 'singleStatement') unsupported(n);
    const sql = one(n, 'sqlStatement');
    if (!sql) {
      if (one(n, 'emptyStatement')) return undefined;
      return unsupported(n);
    }
    const body = this.sqlStatement(sql);
    const stop = sql.stop;
    if (!stop || !sql.start) return unsupported(sql);
    // Hints other than right after SELECT (e.g. table OPTIONS hints) are not read by the tree
    // walker: parser.ts reports them.
    for (let k = sql.start.tokenIndex; ; k++) {
      const t = this.tokens.get(k);
      if (t.type === -1 || (t.channel === 0 && t.text === ';')) break;
      if (t.channel !== 0 && t.text?.startsWith('/*+') && !this.hintsRead.has(k)) unsupported(sql, 'hint outside SELECT');
    }
    return { ...body, text: this.text.slice(sql.start.start, stop.stop + 1) } as SqlStatement;
  }

  private sqlStatement(n: ParserRuleContext): WithoutText<SqlStatement> {
    const [inner] = kids(n);
    if (!(inner instanceof ParserRuleContext)) return unsupported(n);
    const at = pos(n);
    const [child] = kids(inner);
    switch (rule(inner)) {
      case 'setStatement': {
        const prop = need(inner, 'tableProperty');
        const k = need(prop, 'tablePropertyKey');
        const v = need(prop, 'tablePropertyValue');
        return { k: 'set', key: stringOf(k), value: stringOf(v), pos: at };
      }
      case 'ddlStatement':
        if (!(child instanceof ParserRuleContext)) return unsupported(inner);
        if (rule(child) === 'createTable') return this.createTable(need(child, 'simpleCreateTable'), at);
        if (rule(child) === 'createView') {
          if (hasWord(child, 'COMMENT') || one(child, 'columnNameList')) unsupported(child);
          const name = lastName(need(child, 'viewPathCreate'));
          return { k: 'createView', name: name.name, query: this.query(need(child, 'queryStatement')), pos: at };
        }
        return unsupported(child);
      case 'dmlStatement':
        if (!(child instanceof ParserRuleContext)) return unsupported(inner);
        if (rule(child) === 'queryStatement') return { k: 'select', query: this.query(child), pos: at };
        if (rule(child) === 'insertStatement') return this.insert(child, at);
        return unsupported(child);
      default:
        return unsupported(inner);
    }
  }

  private insert(n: ParserRuleContext, at: SqlPosition): WithoutText<SqlStatement> {
    if (kids(n).length !== 1) unsupported(n);
    const simple = need(n, 'insertSimpleStatement');
    if (one(simple, 'insertPartitionDefinition') || one(simple, 'valuesDefinition')) unsupported(simple);
    const name = lastName(need(simple, 'tablePath'));
    const list = one(simple, 'columnNameList');
    const columns = list ? rules(list, 'columnName').map(singleName) : undefined;
    return { k: 'insert', table: name.name, ...(columns ? { columns } : {}), query: this.query(need(simple, 'queryStatement')), pos: at };
  }

  private createTable(n: ParserRuleContext, at: SqlPosition): WithoutText<SqlStatement> {
    if (one(n, 'partitionDefinition') || one(n, 'likeDefinition') || one(n, 'distribution')) unsupported(n);
    const name = lastName(need(n, 'tablePathCreate'));
    const columns: SqlColumn[] = [];
    let watermark: { column: string; expr: SqlExpr; pos: SqlPosition } | undefined;
    let primaryKey: string[] | undefined;
    for (const c of kids(n)) {
      if (!(c instanceof ParserRuleContext)) continue;
      switch (rule(c)) {
        case 'columnOptionDefinition':
          columns.push(this.column(c));
          break;
        case 'watermarkDefinition': {
          const column = singleName(need(c, 'columnName')).name;
          watermark = { column, expr: this.expr(need(c, 'expression')), pos: pos(c) };
          break;
        }
        case 'tableConstraint':
          primaryKey = rules(need(c, 'columnNameList'), 'columnName').map((k) => singleName(k).name);
          break;
        case 'tablePathCreate':
        case 'ifNotExists':
        case 'withOption':
          break;
        default:
          unsupported(c);
      }
    }
    const options = new Map<string, { value: string; pos: SqlPosition }>();
    const withOption = one(n, 'withOption');
    if (withOption) {
      for (const p of rules(need(withOption, 'tablePropertyList'), 'tableProperty')) {
        const v = need(p, 'tablePropertyValue');
        options.set(stringOf(need(p, 'tablePropertyKey')), { value: stringOf(v), pos: pos(v) });
      }
    }
    const inlineKey = columns.filter((c) => c.primaryKey).map((c) => c.name);
    const pk = primaryKey ?? (inlineKey.length > 0 ? inlineKey : undefined);
    return { k: 'createTable', name: name.name, columns, ...(watermark ? { watermark } : {}), ...(pk ? { primaryKey: pk } : {}), options, pos: at };
  }

  private column(n: ParserRuleContext): SqlColumn {
    const [def] = kids(n);
    if (!(def instanceof ParserRuleContext) || kids(n).length !== 1) return unsupported(n);
    const name = singleName(need(def, 'columnNameCreate'));
    switch (rule(def)) {
      case 'computedColumnDefinition': {
        return { name: name.name, computed: this.expr(need(need(def, 'computedColumnExpression'), 'expression')), pos: name.pos };
      }
      case 'physicalColumnDefinition':
      case 'metadataColumnDefinition': {
        const metadata = rule(def) === 'metadataColumnDefinition';
        let primaryKey = false;
        const typeTokens: string[] = [...tokenTexts(need(def, 'columnType'))];
        for (const c of rules(def, 'columnConstraint')) {
          const words = tokenTexts(c).map((w) => w.toUpperCase());
          if (words.join(' ') === 'PRIMARY KEY NOT ENFORCED') primaryKey = true;
          else if (words.join(' ') === 'NOT NULL' || words.join(' ') === 'NULL') typeTokens.push(...tokenTexts(c));
          else unsupported(c);
        }
        if (kids(def).some((c) => c instanceof ParserRuleContext && !['columnNameCreate', 'columnType', 'columnConstraint', 'metadataKey', 'commentSpec'].includes(rule(c)))) unsupported(def);
        // parser.ts reads NOT NULL as part of the type only before PRIMARY KEY.
        const constraints = rules(def, 'columnConstraint');
        if (constraints.some((c, k) => k < constraints.length - 1 && tokenTexts(c)[0]?.toUpperCase() === 'PRIMARY')) unsupported(def);
        const keyNode = metadata ? rules(def, 'metadataKey')[0] : undefined;
        const metadataKey = keyNode ? stringOf(keyNode) : undefined;
        const virtual = metadata && hasWord(def, 'VIRTUAL');
        return {
          name: name.name,
          type: typeText(typeTokens),
          ...(metadata ? { metadata } : {}),
          ...(metadataKey !== undefined ? { metadataKey } : {}),
          ...(virtual ? { virtual } : {}),
          ...(primaryKey ? { primaryKey } : {}),
          pos: name.pos,
        };
      }
      default:
        return unsupported(def);
    }
  }

  // ---- queries ----

  query(n: ParserRuleContext): SqlSelect {
    if (rule(n) !== 'queryStatement') unsupported(n);
    const parts = kids(n);
    // `( query )`
    if (parts.length === 3 && parts[0]?.getText() === '(' && parts[2]?.getText() === ')' && parts[1] instanceof ParserRuleContext) {
      return this.query(parts[1]);
    }
    // ORDER BY / LIMIT / UNION / WITH: parser.ts reports them as unsupported.
    if (parts.length !== 1) return unsupported(n, 'ORDER BY, LIMIT, set operation or WITH');
    return this.select(need(n, 'selectStatement'));
  }

  private select(n: ParserRuleContext): SqlSelect {
    const clause = need(n, 'selectClause');
    for (const c of kids(n)) {
      if (!(c instanceof ParserRuleContext) || !['selectClause', 'fromClause', 'whereClause', 'groupByClause', 'havingClause'].includes(rule(c))) unsupported(c);
    }
    const selectTok = clause.start;
    if (!selectTok) return unsupported(clause);
    const hints: SqlHint[] = [];
    for (const h of hiddenRight(this.tokens, selectTok.tokenIndex)) {
      const t = h.text ?? '';
      if (t.startsWith('/*+')) this.hintsRead.add(h.tokenIndex);
      if (t.startsWith('/*+')) hints.push(...parseHints({ text: t.slice(3, -2).trim(), line: h.line, column: h.column + 1 }));
    }
    let distinct = false;
    const quantifier = one(clause, 'setQuantifier');
    if (quantifier) distinct = quantifier.getText().toUpperCase() === 'DISTINCT';
    const list = need(clause, 'selectList');
    const items = kids(list)
      .filter((c): c is ParserRuleContext => c instanceof ParserRuleContext)
      .map((c) => this.selectItem(c));
    if (kids(clause).some((c) => c instanceof ParserRuleContext && !['setQuantifier', 'selectList'].includes(rule(c)))) unsupported(clause);
    const from = this.from(need(need(n, 'fromClause'), 'tableExpression'));
    const whereClause = one(n, 'whereClause');
    const where = whereClause ? this.boolean(kids(whereClause)[1]) : undefined;
    const groupBy: SqlExpr[] = [];
    const group = one(n, 'groupByClause');
    if (group) {
      for (const g of rules(group, 'groupItemDefinition')) groupBy.push(this.groupItem(g));
    }
    const havingClause = one(n, 'havingClause');
    const having = havingClause ? this.boolean(kids(havingClause)[1]) : undefined;
    return { k: 'select', hints, distinct, items, from, ...(where ? { where } : {}), groupBy, ...(having ? { having } : {}), pos: pos(clause) };
  }

  private groupItem(g: ParserRuleContext): SqlExpr {
    const [c] = kids(g);
    if (kids(g).length !== 1 || !(c instanceof ParserRuleContext)) return unsupported(g);
    if (rule(c) === 'columnName') return this.columnNameExpr(c);
    if (rule(c) === 'expression') return this.expr(c);
    if (rule(c) === 'groupWindowFunction') return this.groupWindow(c);
    return unsupported(c);
  }

  /** Legacy `GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE)`: a call, as parser.ts reads it. */
  private groupWindow(c: ParserRuleContext): SqlExpr {
    const args: SqlExpr[] = [];
    for (const k of kids(c).slice(1)) {
      if (k instanceof TerminalNode) {
        if (!['(', ')', ','].includes(k.getText())) unsupported(c);
        continue;
      }
      if (rule(k) === 'timeAttrColumn') args.push({ k: 'id', ...nameParts(k as ParserRuleContext) });
      else if (rule(k) === 'timeIntervalExpression') args.push(this.interval(k as ParserRuleContext));
      else unsupported(k);
    }
    const name = need(c, 'groupWindowFunctionName').getText().toUpperCase();
    return { k: 'call', name, args, distinct: false, star: false, pos: pos(c) };
  }

  private columnNameExpr(c: ParserRuleContext): SqlExpr {
    if (one(c, 'expression')) return this.expr(need(c, 'expression'));
    const text = c.getText();
    if (/^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(text)) return { k: 'num', text, pos: pos(c) };
    if (text.startsWith("'")) return { k: 'str', value: unquote(text), pos: pos(c) };
    if (/^(?:TRUE|FALSE|NULL)$/i.test(text)) return text.toUpperCase() === 'NULL' ? { k: 'null', pos: pos(c) } : { k: 'bool', value: text.toUpperCase() === 'TRUE', pos: pos(c) };
    const { parts, pos: at } = nameParts(c);
    return { k: 'id', parts, pos: at };
  }

  private selectItem(n: ParserRuleContext): SqlSelectItem {
    if (rule(n) !== 'columnProjectItem') unsupported(n);
    const [c, ...rest] = kids(n);
    if (!(c instanceof ParserRuleContext)) return unsupported(n);
    const split = rest.filter((k): k is ParserRuleContext => k instanceof ParserRuleContext && rule(k) === 'expression');
    if (split.length > 0 && rule(c) === 'selectLiteralColumnName' && kids(c).length === 1) {
      // The grammar splits `a + 1` into the column `a` and the expression `+ 1`: the item is
      // read again as a whole expression (in a WHERE clause, where it is not split).
      if (rest.some((k) => !(k instanceof ParserRuleContext) || !['expression', 'columnAlias'].includes(rule(k)))) unsupported(n);
      const expr = this.reparse(c.start, (split[split.length - 1] as ParserRuleContext).stop);
      return { expr, ...this.alias(n), pos: pos(c) };
    }
    const trailing = rest[0];
    if (rest.length > 1 || (trailing && rule(trailing) !== 'columnAlias')) return unsupported(n);
    const outer = trailing instanceof ParserRuleContext ? this.alias(n) : {};
    const at = pos(c);
    switch (rule(c)) {
      case 'tableAllColumns': {
        const names = kids(c).filter((k): k is ParserRuleContext => k instanceof ParserRuleContext);
        if (names.length === 0) return { expr: { k: 'star', pos: at }, pos: at };
        const qualifier = names.map((k) => nameParts(k).parts.join('.')).join('.');
        return { expr: { k: 'star', qualifier, pos: at }, pos: at };
      }
      case 'selectLiteralColumnName': {
        const exprs = rules(c, 'expression');
        if (exprs.length > 0) {
          // The grammar splits `a + 1` into the column `a` and the expression `+ 1`: the item is
          // read again as a whole expression (in a WHERE clause, where it is not split).
          const last = exprs[exprs.length - 1] as ParserRuleContext;
          const expr = this.reparse(c.start, last.stop);
          return { expr, ...this.alias(c), ...outer, pos: at };
        }
        const expr = this.columnNameExpr(need(c, 'columnName'));
        return { expr, ...this.alias(c), ...outer, pos: at };
      }
      case 'selectExpressionColumnName': {
        const expr = this.expr(need(c, 'expression'));
        return { expr, ...this.alias(c), ...outer, pos: at };
      }
      case 'selectWindowItemColumnName': {
        const over = need(c, 'overWindowItem');
        const expr = this.overItem(over);
        const alias = one(over, 'identifier');
        return { expr, ...(alias ? { alias: singleName(alias).name } : {}), pos: at };
      }
      default:
        return unsupported(c);
    }
  }

  private alias(c: ParserRuleContext): { alias?: string } {
    const a = one(c, 'columnAlias') ?? one(c, 'identifier');
    if (!a) return {};
    if (rule(a) === 'identifier') return { alias: singleName(a).name };
    return { alias: singleName(need(a, 'identifier')).name };
  }

  private overItem(n: ParserRuleContext): SqlExpr {
    const callCtx = need(n, 'primaryExpression');
    const call = this.primary(callCtx);
    if (call.k !== 'call') return unsupported(n);
    const spec = one(n, 'windowSpec') ?? unsupported(n, 'named window');
    if (one(spec, 'windowFrame') || one(spec, 'errorCapturingIdentifier')) unsupported(spec);
    const partitionBy: SqlExpr[] = [];
    const orderBy: SqlOrderItem[] = [];
    const partition = one(spec, 'partitionByClause');
    if (partition) {
      for (const c of kids(partition)) {
        if (!(c instanceof ParserRuleContext)) continue;
        partitionBy.push(rule(c) === 'columnName' ? this.columnNameExpr(c) : rule(c) === 'expression' ? this.expr(c) : unsupported(c));
      }
    }
    const order = one(spec, 'orderByClause');
    if (order) {
      for (const item of rules(order, 'orderItemDefinition')) {
        const target = kids(item)[0];
        if (!(target instanceof ParserRuleContext)) return unsupported(item);
        const expr = rule(target) === 'columnName' ? this.columnNameExpr(target) : rule(target) === 'expression' ? this.expr(target) : unsupported(target);
        const words = terms(item).map((t) => t.getText().toUpperCase());
        const direction = words.includes('DESC') ? 'DESC' : 'ASC';
        const nulls = words.includes('NULLS') ? (words.includes('FIRST') ? 'FIRST' : 'LAST') : undefined;
        orderBy.push({ expr, direction, ...(nulls ? { nulls } : {}) });
      }
    }
    return { ...call, over: { partitionBy, orderBy } };
  }

  /** The text between two tokens, parsed by the grammar as a WHERE condition, with positions. */
  private reparse(from: AntlrToken | null, to: AntlrToken | null): SqlExpr {
    if (!from || !to || !this.reparser) return unsupported(undefined, 'reparse');
    const item = this.text.slice(from.start, to.stop + 1);
    if (/FILTER|SESSION|\/\*\+/i.test(item)) unsupported(undefined, 'reparse with a masked construct');
    const prefix = 'SELECT 1 FROM t WHERE ';
    const expr = this.reparser(prefix + item);
    const shift = (p: SqlPosition): SqlPosition =>
      p.line === 1 ? { line: from.line, column: p.column - prefix.length + from.column } : { line: p.line + from.line - 1, column: p.column };
    return shiftPositions(expr, shift);
  }

  // ---- FROM ----

  private from(n: ParserRuleContext): SqlFrom {
    const parts = kids(n);
    const tvf = one(n, 'windowTVFClause');
    if (tvf) {
      if (parts.length !== 1 && !(parts.length === 2 && one(n, 'tableAlias'))) unsupported(n);
      return this.tvf(tvf, one(n, 'tableAlias'));
    }
    const refs = rules(n, 'tableReference');
    if (refs.length === 1 && parts.length === 1) return this.tableReference(refs[0] as ParserRuleContext);
    if (refs.length > 1 && parts.every((c) => (c instanceof ParserRuleContext ? rule(c) === 'tableReference' : c.getText() === ','))) {
      // A comma join `FROM a, b, c`: cross joins from the left, their conditions in the WHERE.
      return refs
        .map((r) => this.tableReference(r))
        .reduce((left, right) => ({ k: 'join', joinType: 'CROSS', left, right, pos: right.pos }));
    }
    const subs = rules(n, 'tableExpression');
    if (subs.length === 2 && one(n, 'joinCondition')) {
      const words = terms(n).map((t) => t.getText().toUpperCase()).join(' ');
      const joinType = JOIN_WORDS[words];
      if (joinType === undefined) return unsupported(n, words);
      const left = this.from(subs[0] as ParserRuleContext);
      const rightExpr = subs[1] as ParserRuleContext;
      const rightRef = rules(rightExpr, 'tableReference');
      const primary = rightRef.length === 1 && kids(rightExpr).length === 1 ? one(rightRef[0] as ParserRuleContext, 'tablePrimary') : undefined;
      const period = primary ? one(primary, 'systemTimePeriod') : undefined;
      let right: SqlFrom;
      let systemTime: SqlExpr | undefined;
      if (primary && period) {
        // `JOIN t FOR SYSTEM_TIME AS OF expr [AS alias]`: a lookup or temporal join.
        if (kids(primary).some((c) => c instanceof ParserRuleContext && !['tablePath', 'systemTimePeriod'].includes(rule(c))) || hasWord(primary, 'TABLE')) unsupported(primary);
        const name = lastName(need(primary, 'tablePath'));
        systemTime = this.expr(need(need(period, 'dateTimeExpression'), 'expression'));
        const alias = this.tableAlias(one(rightRef[0] as ParserRuleContext, 'tableAlias'));
        right = { k: 'table', name: name.name, ...(alias ? { alias } : {}), pos: name.pos };
      } else {
        right = this.from(rightExpr);
      }
      const cond = need(n, 'joinCondition');
      const firstWord = terms(n)[0] as TerminalNode;
      return { k: 'join', joinType, left, right, ...(systemTime ? { systemTime } : {}), on: this.boolean(kids(cond)[1]), pos: pos(firstWord) };
    }
    return unsupported(n, 'join form');
  }

  private tableAlias(a: ParserRuleContext | undefined): string | undefined {
    if (!a) return undefined;
    if (one(a, 'identifierList')) unsupported(a);
    return singleName(need(a, 'identifier')).name;
  }

  private tableReference(n: ParserRuleContext): SqlFrom {
    const primary = need(n, 'tablePrimary');
    if (kids(n).some((c) => c instanceof ParserRuleContext && !['tablePrimary', 'tableAlias'].includes(rule(c)))) unsupported(n);
    const alias = this.tableAlias(one(n, 'tableAlias'));
    const atom = one(primary, 'atomExpressionTable');
    if (atom) {
      const q = need(atom, 'queryStatement');
      if (kids(atom).length !== 3) unsupported(atom);
      return { k: 'subquery', query: this.query(q), ...(alias ? { alias } : {}), pos: pos(atom) };
    }
    if (kids(primary).length !== 1) unsupported(primary);
    const name = lastName(need(primary, 'tablePath'));
    return { k: 'table', name: name.name, ...(alias ? { alias } : {}), pos: name.pos };
  }

  private tvf(n: ParserRuleContext, aliasCtx: ParserRuleContext | undefined): SqlFrom {
    const e = need(n, 'windowTVFExpression');
    const fnCtx = need(e, 'windowTVFName');
    const fnPos = pos(fnCtx);
    const session = this.masks.sessions.get(key(fnPos));
    const fn = session ? 'SESSION' : fnCtx.getText().toUpperCase();
    if (!['TUMBLE', 'HOP', 'CUMULATE'].includes(fnCtx.getText().toUpperCase())) unsupported(fnCtx);
    const params = rules(e, 'windowTVFParam');
    const [first, desc, ...rest] = params;
    if (!first || !desc) return unsupported(e);
    let input: SqlFrom;
    const tableWord = terms(first)[0];
    if (tableWord?.getText().toUpperCase() === 'TABLE' && kids(first).length === 2) {
      const name = lastName(need(first, 'timeAttrColumn'));
      input = { k: 'table', name: name.name, pos: name.pos };
    } else {
      return unsupported(first, 'window input');
    }
    const descriptor = need(desc, 'columnDescriptor');
    if (kids(desc).length !== 1) unsupported(desc);
    const timeColumn = singleName(need(descriptor, 'columnName'));
    const args = rest.map((p) => {
      if (kids(p).length !== 1) return unsupported(p);
      const [c] = kids(p);
      if (!(c instanceof ParserRuleContext)) return unsupported(p);
      if (rule(c) === 'timeIntervalExpression') return this.interval(c);
      if (rule(c) === 'expression') return this.expr(c);
      return unsupported(c);
    });
    const alias = this.tableAlias(aliasCtx);
    return { k: 'tvf', fn: fn as 'TUMBLE', input, partitionBy: session ?? [], timeColumn, args, ...(alias ? { alias } : {}), pos: fnPos };
  }

  // ---- expressions ----

  expr(n: ParserRuleContext): SqlExpr {
    if (rule(n) !== 'expression' || kids(n).length !== 1) return unsupported(n);
    return this.boolean(kids(n)[0]);
  }

  /** The WHERE condition of a single `SELECT … WHERE cond` statement. */
  whereOf(n: ParserRuleContext): SqlExpr {
    const stmt = this.statement(n);
    if (stmt?.k !== 'select' || stmt.query.k !== 'select' || !stmt.query.where) return unsupported(n, 'no WHERE');
    return stmt.query.where;
  }

  private boolean(n: ParseTree | undefined): SqlExpr {
    if (!(n instanceof ParserRuleContext)) return unsupported(n);
    const r = rule(n);
    if (r === 'expression') return this.expr(n);
    if (r !== 'booleanExpression') return unsupported(n);
    const c = kids(n);
    switch (n.constructor.name) {
      case 'LogicalNotContext':
        return { k: 'not', arg: this.boolean(c[1]), pos: pos(c[0] as ParseTree) };
      case 'LogicalBinaryContext': {
        const op = (c[1] as ParseTree).getText().toUpperCase();
        if (op !== 'AND' && op !== 'OR') return unsupported(n);
        return { k: 'bin', op, left: this.boolean(c[0]), right: this.boolean(c[2]), pos: pos(c[1] as ParseTree) };
      }
      case 'ExistsContext':
        return { k: 'exists', query: this.query(need(n, 'queryStatement')), pos: pos(c[0] as ParseTree) };
      case 'LogicalNestedContext':
        if (c.length === 3 && c[0]?.getText() === '(') return this.boolean(c[1]);
        return unsupported(n);
      case 'PredicatedContext': {
        const left = this.value(c[0]);
        if (c.length === 1) return left;
        const pred = c[1];
        if (c.length !== 2 || !(pred instanceof ParserRuleContext) || rule(pred) !== 'predicate') return unsupported(n);
        return this.predicate(left, pred);
      }
      default:
        return unsupported(n, n.constructor.name);
    }
  }

  private predicate(left: SqlExpr, outer: ParserRuleContext): SqlExpr {
    const at = pos(outer);
    const like = one(outer, 'likePredicate');
    if (like && kids(outer).length !== 1) unsupported(outer);
    const p = like ?? outer;
    const words = terms(p).map((t) => t.getText().toUpperCase());
    const not = words.includes('NOT');
    const values = rules(p, 'valueExpression');
    if (words.includes('BETWEEN')) {
      if (words.includes('SYMMETRIC') || values.length !== 2) unsupported(p);
      return { k: 'between', expr: left, low: this.value(values[0]), high: this.value(values[1]), not, pos: at };
    }
    if (words.includes('IN')) {
      const sub = one(p, 'queryStatement');
      if (sub) return { k: 'inQuery', expr: left, query: this.query(sub), not, pos: at };
      return { k: 'in', expr: left, list: rules(p, 'expression').map((e) => this.expr(e)), not, pos: at };
    }
    if (words.includes('LIKE')) {
      if (words.includes('ESCAPE') || values.length !== 1) unsupported(p);
      return { k: 'like', expr: left, pattern: this.value(values[0]), not, pos: at };
    }
    if (words[0] === 'IS' && words[words.length - 1] === 'NULL' && words.length <= 3) return { k: 'isnull', expr: left, not, pos: at };
    return unsupported(p, words.join(' '));
  }

  private value(n: ParseTree | undefined): SqlExpr {
    if (!(n instanceof ParserRuleContext) || rule(n) !== 'valueExpression') return unsupported(n);
    const c = kids(n);
    switch (n.constructor.name) {
      case 'ValueExpressionDefaultContext':
        return this.primary(c[0]);
      case 'ComparisonContext': {
        const opCtx = c[1] as ParseTree;
        const op = opCtx.getText();
        if (!['=', '<>', '!=', '<', '<=', '>', '>='].includes(op)) return unsupported(n, op);
        return { k: 'bin', op: op === '!=' ? '<>' : op, left: this.value(c[0]), right: this.value(c[2]), pos: pos(opCtx) };
      }
      case 'ArithmeticBinaryContext': {
        const opTok = c[1] as ParseTree;
        const op = opTok.getText();
        if (!['+', '-', '*', '/', '%', '||'].includes(op)) return unsupported(n, op);
        return { k: 'bin', op, left: this.value(c[0]), right: this.value(c[2]), pos: pos(opTok) };
      }
      case 'ArithmeticUnaryContext': {
        const op = (c[0] as ParseTree).getText();
        if (op === '-') return { k: 'neg', arg: this.value(c[1]), pos: pos(c[0] as ParseTree) };
        if (op === '+') return this.value(c[1]);
        return unsupported(n, op);
      }
      default:
        return unsupported(n, n.constructor.name);
    }
  }

  private primary(n: ParseTree | undefined): SqlExpr {
    if (!(n instanceof ParserRuleContext) || rule(n) !== 'primaryExpression') return unsupported(n);
    const c = kids(n);
    const at = pos(n);
    switch (n.constructor.name) {
      case 'ColumnReferenceContext': {
        const { parts } = nameParts(need(n, 'columnNamePath'));
        return { k: 'id', parts, pos: at };
      }
      case 'DereferenceContext': {
        const base = this.primary(c[0]);
        if (base.k !== 'id' || c.length !== 3) return unsupported(n);
        return { k: 'id', parts: [...base.parts, ...nameParts(c[2] as ParserRuleContext).parts], pos: base.pos };
      }
      case 'StarContext': {
        if (c.length === 1) return { k: 'star', pos: at };
        const names = c.filter((k): k is ParserRuleContext => k instanceof ParserRuleContext);
        return { k: 'star', qualifier: names.map((k) => nameParts(k).parts.join('.')).join('.'), pos: at };
      }
      case 'ParenthesizedExpressionContext':
        return this.expr(need(n, 'expression'));
      case 'ConstantDefaultContext':
        return this.constant(need(n, 'constant'));
      case 'CastContext': {
        if (c[0]?.getText().toUpperCase() !== 'CAST') return unsupported(n);
        return { k: 'cast', expr: this.expr(need(n, 'expression')), type: typeText(tokenTexts(need(n, 'columnType'))), pos: at };
      }
      case 'SearchedCaseContext':
      case 'SimpleCaseContext': {
        const exprs = rules(n, 'expression');
        const simple = n.constructor.name === 'SimpleCaseContext';
        const operand = simple ? this.expr(exprs[0] as ParserRuleContext) : undefined;
        const whens = rules(n, 'whenClause').map((w) => {
          const [cond, result] = rules(w, 'expression');
          return [this.expr(cond as ParserRuleContext), this.expr(result as ParserRuleContext)] as [SqlExpr, SqlExpr];
        });
        const elseExprs = exprs.slice(simple ? 1 : 0);
        const otherwise = elseExprs[0] ? this.expr(elseExprs[0]) : undefined;
        return { k: 'case', ...(operand ? { operand } : {}), whens, ...(otherwise ? { otherwise } : {}), pos: at };
      }
      case 'FunctionCallContext':
        return this.call(need(n, 'functionCallExpression'));
      default:
        return unsupported(n, n.constructor.name);
    }
  }

  private call(n: ParserRuleContext): SqlExpr {
    const noParams = one(n, 'reservedKeywordsNoParamsUsedAsFuncName');
    if (noParams && kids(n).length === 1) return { k: 'id', parts: [noParams.getText()], pos: pos(n) };
    const typed = one(n, 'functionNameAndParams');
    if (typed && kids(n).length === 1) {
      const [fn, value] = kids(typed);
      const word = fn?.getText().toUpperCase();
      if ((word === 'TIMESTAMP' || word === 'DATE') && value instanceof TerminalNode && kids(typed).length === 2) {
        return { k: 'typed', type: word, value: unquote(value.getText()), pos: pos(n) };
      }
      return unsupported(typed);
    }
    const nameCtx = one(n, 'functionNameWithParams') ?? one(n, 'functionName') ?? unsupported(n, 'function name');
    const at = pos(n);
    const name = nameCtx.getText();
    if (name.startsWith('`') || name.includes('.')) unsupported(nameCtx);
    if (kids(n)[1]?.getText() !== '(') unsupported(n);
    const distinct = one(n, 'setQuantifier')?.getText().toUpperCase() === 'DISTINCT';
    if (one(n, 'setQuantifier') && !distinct) unsupported(n);
    const params = rules(n, 'functionParam');
    let star = false;
    const args: SqlExpr[] = [];
    for (const p of params) {
      const pk = kids(p);
      if (pk.length === 0) continue;
      const [c] = pk;
      if (pk.length !== 1 || !(c instanceof ParserRuleContext)) return unsupported(p);
      switch (rule(c)) {
        case 'expression':
          args.push(this.expr(c));
          break;
        case 'jsonObjectParams':
          if (kids(c).length !== 0) unsupported(c);
          break;
        case 'reservedKeywordsUsedAsFuncParam':
          if (c.getText() === '*' && params.length === 1) star = true;
          else unsupported(c);
          break;
        case 'timeIntervalExpression':
          args.push(this.interval(c));
          break;
        case 'columnName':
          args.push(this.columnNameExpr(c));
          break;
        default:
          unsupported(c);
      }
    }
    if (kids(n).filter((c) => c.getText() === ',').length !== Math.max(0, params.length - 1)) unsupported(n);
    const close = kids(n)[kids(n).length - 1];
    const filter = close instanceof TerminalNode ? this.masks.filters.get(key(pos(close))) : undefined;
    return { k: 'call', name: name.toUpperCase(), args, distinct, star, ...(filter ? { filter } : {}), pos: at };
  }

  private interval(n: ParserRuleContext): SqlExpr {
    const multi = need(need(n, 'errorCapturingMultiUnitsInterval'), 'multiUnitsInterval');
    const values = rules(multi, 'intervalValue');
    const units = rules(multi, 'timeIntervalUnit');
    if (values.length !== 1 || units.length !== 1 || kids(n).length !== 2 || kids(need(n, 'errorCapturingMultiUnitsInterval')).length !== 1) unsupported(n);
    const v = (values[0] as ParserRuleContext).getText();
    return { k: 'interval', value: unquote(v), unit: (units[0] as ParserRuleContext).getText().toUpperCase(), pos: pos(n) };
  }

  private constant(n: ParserRuleContext): SqlExpr {
    const at = pos(n);
    const c = kids(n);
    const [first] = c;
    if (first instanceof ParserRuleContext) {
      switch (rule(first)) {
        case 'timeIntervalExpression':
          return this.interval(first);
        case 'decimalLiteral':
          if (c.length !== 1) return unsupported(n);
          return { k: 'num', text: first.getText(), pos: at };
        case 'stringLiteral':
          if (c.length !== 1 || kids(first).length !== 1) return unsupported(n);
          return { k: 'str', value: unquote(first.getText()), pos: at };
        case 'booleanLiteral':
          return { k: 'bool', value: first.getText().toUpperCase() === 'TRUE', pos: at };
        default:
          return unsupported(first);
      }
    }
    const words = c.map((k) => k.getText());
    // `-1`: the grammar reads the sign into the literal, parser.ts as a negation.
    if (words.length === 2 && words[0] === '-' && c[1] instanceof ParserRuleContext && rule(c[1]) === 'decimalLiteral') {
      return { k: 'neg', arg: { k: 'num', text: c[1].getText(), pos: pos(c[1]) }, pos: at };
    }
    if (words.length === 1 && words[0]?.toUpperCase() === 'NULL') return { k: 'null', pos: at };
    if (words.length === 1 && /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(words[0] ?? '')) return { k: 'num', text: words[0] as string, pos: at };
    if (words.length === 2 && ['TIMESTAMP', 'DATE'].includes(words[0]?.toUpperCase() ?? '') && c[1] instanceof TerminalNode) {
      return { k: 'typed', type: words[0]?.toUpperCase() as 'TIMESTAMP', value: unquote(words[1] as string), pos: at };
    }
    if (words.length === 2 && ['TIMESTAMP', 'DATE'].includes(words[0]?.toUpperCase() ?? '') && c[1] instanceof ParserRuleContext && rule(c[1]) === 'stringLiteral') {
      return { k: 'typed', type: words[0]?.toUpperCase() as 'TIMESTAMP', value: unquote(words[1] as string), pos: at };
    }
    return unsupported(n, words.join(' '));
  }
}

/** A copy of an expression with every position moved by `shift`. */
export function shiftPositions(expr: SqlExpr, shift: (p: SqlPosition) => SqlPosition): SqlExpr {
  return remap(expr, shift) as SqlExpr;
}

/** A copy of an AST value with every `pos` moved by `shift`. */
function remap(v: unknown, shift: (p: SqlPosition) => SqlPosition): unknown {
  if (Array.isArray(v)) return v.map((x) => remap(x, shift));
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = k === 'pos' ? shift(x as SqlPosition) : remap(x, shift);
  return out;
}

function hiddenRight(tokens: TokenStream, index: number): AntlrToken[] {
  const out: AntlrToken[] = [];
  for (let k = index + 1; ; k++) {
    const t = tokens.get(k);
    if (t.channel === 0 || t.type === -1) return out;
    out.push(t);
  }
}

/** The token texts of a rule, in order. */
function tokenTexts(n: ParserRuleContext): string[] {
  const out: string[] = [];
  const walk = (c: ParseTree): void => {
    if (c instanceof TerminalNode) out.push(c.getText());
    else for (const k of kids(c as ParserRuleContext)) walk(k);
  };
  walk(n);
  if (out.some((t) => t.startsWith("'") || t.startsWith('`'))) unsupported(n, 'quoted text in a type');
  return out;
}

/** The type text as parser.ts joins it: `DECIMAL(10, 2) NOT NULL`. */
function typeText(parts: readonly string[]): string {
  return parts.join(' ').replace(/ \( /g, '(').replace(/ \)/g, ')').replace(/ , /g, ', ');
}

function stringOf(n: ParserRuleContext): string {
  const text = n.getText();
  if (!text.startsWith("'")) return unsupported(n, 'unquoted');
  return unquote(text);
}

/** Reads the pre-pass's masks from the original text (same token walk as prepass.ts). */
function collectMasks(text: string, filterExpr: (tokens: readonly Token[]) => SqlExpr): Masks {
  const sessions = new Map<string, { name: string; pos: SqlPosition }[]>();
  const filters = new Map<string, SqlExpr>();
  if (!/SESSION|FILTER/i.test(text)) return { sessions, filters };
  const tokens = tokenize(text);
  const isWord = (t: Token | undefined, w: string): boolean => t !== undefined && t.kind === 'ident' && t.upper === w;
  const isOp = (t: Token | undefined, o: string): boolean => t !== undefined && t.kind === 'op' && t.text === o;
  const tpos = (t: Token): SqlPosition => ({ line: t.line, column: t.column });
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    if (isWord(t, 'SESSION') && isOp(tokens[k - 1], '(') && isWord(tokens[k - 2], 'TABLE') && isOp(tokens[k + 1], '(')) {
      const partition = tokens.findIndex((p, j) => j > k && isWord(p, 'PARTITION') && isWord(tokens[j + 1], 'BY'));
      const descriptor = tokens.findIndex((p, j) => j > k && isWord(p, 'DESCRIPTOR'));
      const columns: { name: string; pos: SqlPosition }[] = [];
      if (partition > 0 && descriptor > partition) {
        for (let j = partition + 2; j < descriptor - 1; j++) {
          const c = tokens[j] as Token;
          if (c.kind === 'ident' || c.kind === 'qident') columns.push({ name: c.text, pos: tpos(c) });
          else if (!isOp(c, ',') && !isOp(c, '(') && !isOp(c, ')')) throw new TreeUnsupported('SESSION PARTITION BY');
        }
      }
      sessions.set(key(tpos(t)), columns);
    }
    if (isWord(t, 'FILTER') && isOp(tokens[k - 1], ')') && isOp(tokens[k + 1], '(') && isWord(tokens[k + 2], 'WHERE')) {
      let depth = 0;
      let close = k + 1;
      for (; close < tokens.length; close++) {
        if (isOp(tokens[close], '(')) depth++;
        if (isOp(tokens[close], ')') && --depth === 0) break;
      }
      // The condition is an expression the grammar never saw (it was blanked): the tokens between
      // WHERE and the closing parenthesis, read by the caller's expression reader.
      filters.set(key(tpos(tokens[k - 1] as Token)), filterExpr(tokens.slice(k + 3, close)));
    }
  }
  return { sessions, filters };
}
