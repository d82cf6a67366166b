/**
 * The token cursor the reader's parts share: looking ahead, accepting and expecting words and
 * operators, and failing with one message at the offending token (`line 2:8: expected …, found
 * 'x'`). Optimizer hints are kept off the token stream; the reader takes them where Flink reads
 * them (after SELECT, after a table name) and a statement with a hint anywhere else fails.
 */
import type { SqlHint } from '../ast.ts';
import { SqlError, type SqlPosition } from '../errors.ts';
import { parseHints } from '../hints.ts';
import { tokenize, type Token } from './lexer.ts';
import { unsupportedWord } from './unsupported.ts';

/** Words that end an expression or cannot be an alias (quote them to use them as names). */
export const RESERVED = new Set([
  'SELECT', 'FROM', 'WHERE', 'GROUP', 'BY', 'HAVING', 'ORDER', 'LIMIT', 'OFFSET', 'FETCH', 'UNION', 'INTERSECT', 'EXCEPT',
  'MINUS', 'JOIN', 'LEFT', 'RIGHT', 'INNER', 'FULL', 'OUTER', 'CROSS', 'NATURAL', 'ON', 'USING', 'AND', 'OR', 'NOT', 'AS',
  'FOR', 'WITH', 'INSERT', 'INTO', 'CREATE', 'TABLE', 'VIEW', 'WHEN', 'THEN', 'ELSE', 'END', 'CASE', 'IS', 'IN', 'BETWEEN',
  'LIKE', 'SIMILAR', 'ESCAPE', 'OVER', 'PARTITION', 'FILTER', 'DISTINCT', 'ALL', 'WATERMARK', 'PRIMARY', 'SET', 'NULL',
  'TRUE', 'FALSE', 'UNKNOWN', 'INTERVAL', 'CAST', 'ASC', 'DESC', 'NULLS', 'DESCRIPTOR', 'VALUES', 'LATERAL', 'UNNEST',
  'WINDOW', 'MATCH_RECOGNIZE', 'EXISTS', 'WITHIN',
]);

/** Token-level reading shared by the expression, query and statement readers. */
export class Cursor {
  /** Index into `tokens` of the next token. */
  protected i = 0;
  protected readonly tokens: readonly Token[];
  /** Hint tokens by the index of the token they precede. */
  private readonly hints = new Map<number, Token[]>();

  constructor(protected readonly text: string) {
    const all = tokenize(text);
    const tokens: Token[] = [];
    for (const t of all) {
      if (t.kind === 'hint') {
        const list = this.hints.get(tokens.length) ?? [];
        list.push(t);
        this.hints.set(tokens.length, list);
      } else tokens.push(t);
    }
    this.tokens = tokens;
  }

  protected peek(ahead = 0): Token {
    return this.tokens[Math.min(this.i + ahead, this.tokens.length - 1)] as Token;
  }

  protected next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.i++;
    return t;
  }

  /** The last token consumed. */
  protected previous(): Token {
    return this.tokens[Math.max(0, this.i - 1)] as Token;
  }

  protected pos(t: Token = this.peek()): SqlPosition {
    return { line: t.line, column: t.column };
  }

  protected isWord(word: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'ident' && t.upper === word;
  }

  /** Consumes the words when they all come next. */
  protected acceptWord(...words: string[]): boolean {
    if (!words.every((w, k) => this.isWord(w, k))) return false;
    this.i += words.length;
    return true;
  }

  protected expectWord(...words: string[]): void {
    for (const w of words) {
      if (!this.acceptWord(w)) this.fail(`expected ${w}`);
    }
  }

  /** Consumes one of the words and returns it (upper case), or undefined. */
  protected acceptOneOf(words: readonly string[]): string | undefined {
    const t = this.peek();
    if (t.kind !== 'ident' || !words.includes(t.upper)) return undefined;
    this.i++;
    return t.upper;
  }

  protected isOp(op: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'op' && t.text === op;
  }

  protected acceptOp(op: string): boolean {
    if (!this.isOp(op)) return false;
    this.i++;
    return true;
  }

  protected expectOp(op: string): void {
    if (!this.acceptOp(op)) this.fail(`expected '${op}'`);
  }

  /**
   * Throws `what, found 'x'` at the token; a word that starts a construct the reader knows but
   * Flambda does not support is named instead (`MATCH_RECOGNIZE is not supported`).
   */
  protected fail(what: string, t: Token = this.peek()): never {
    const named = t.kind === 'ident' ? unsupportedWord(t.upper, (k) => this.peek(this.tokens.indexOf(t) - this.i + k)) : undefined;
    if (named !== undefined) throw new SqlError(this.pos(t), named);
    const found = t.kind === 'eof' ? 'end of input' : `'${t.kind === 'string' ? `'${t.text}'` : t.text}'`;
    throw new SqlError(this.pos(t), `${what}, found ${found}`);
  }

  /** True when the next token can be a name (a quoted name or a non-reserved word). */
  protected isName(ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'qident' || (t.kind === 'ident' && !RESERVED.has(t.upper));
  }

  protected identifier(what = 'an identifier'): { name: string; pos: SqlPosition } {
    const t = this.peek();
    if (this.isName()) {
      this.i++;
      return { name: t.text, pos: this.pos(t) };
    }
    return this.fail(`expected ${what}`);
  }

  /**
   * `a.b.c`: the last part is the name, the parts before it (a catalog and a database) its
   * qualifier, resolved against the script's catalog when the statement compiles (catalog.ts).
   */
  protected qualifiedName(what = 'a table name'): { name: string; pos: SqlPosition; qualifier?: string[] } {
    const first = this.identifier(what);
    const parts = [first.name];
    while (this.isOp('.') && (this.peek(1).kind === 'ident' || this.peek(1).kind === 'qident')) {
      this.i++;
      parts.push(this.identifier(what).name);
    }
    const name = parts.pop() as string;
    return { name, pos: first.pos, ...(parts.length > 0 ? { qualifier: parts } : {}) };
  }

  /** `(a, b, c)`. */
  protected nameList(what: string): { name: string; pos: SqlPosition }[] {
    this.expectOp('(');
    const names = [this.identifier(what)];
    while (this.acceptOp(',')) names.push(this.identifier(what));
    this.expectOp(')');
    return names;
  }

  protected stringLiteral(what: string): { value: string; pos: SqlPosition } {
    const t = this.peek();
    if (t.kind !== 'string') this.fail(`expected ${what} (a quoted string)`);
    this.i++;
    return { value: t.text, pos: this.pos(t) };
  }

  /** The hints written just before the next token (and marks them read). */
  protected takeHints(): SqlHint[] {
    const list = this.hints.get(this.i);
    if (!list) return [];
    this.hints.delete(this.i);
    return list.flatMap((t) => parseHints(t));
  }

  /** Fails at the first hint between token indexes `from` and `to` that no clause took. */
  protected checkNoHintsLeft(from: number, to: number): void {
    for (const [index, list] of this.hints) {
      if (index > from && index <= to) {
        throw new SqlError(this.pos(list[0] as Token), 'a hint /*+ … */ is read only right after SELECT or after a table name');
      }
    }
  }
}
