/**
 * Tokenizer of the SQL reader. Every token keeps its offset and 1-based line:column so
 * later phases can point errors at it. Comments are dropped, except optimizer hints
 * (`/*+ LOOKUP(…) *\/`), which become `hint` tokens.
 */
import { SqlError } from '../errors.ts';

/** Token kinds. `ident` is a bare word (keywords included), `qident` a back-quoted name. */
export type TokenKind = 'ident' | 'qident' | 'string' | 'number' | 'op' | 'hint' | 'eof';

/** One token. */
export interface Token {
  readonly kind: TokenKind;
  /** The token's value: the name for identifiers, the unquoted text for strings, the hint body. */
  readonly text: string;
  /** Upper-cased text of bare identifiers (for keyword checks); the text otherwise. */
  readonly upper: string;
  readonly offset: number;
  /** Offset just past the token. */
  readonly end: number;
  readonly line: number;
  readonly column: number;
}

const OPERATORS = ['<>', '!=', '<=', '>=', '||', '=>', '=', '<', '>', '+', '-', '*', '/', '%', '(', ')', '[', ']', ',', '.', ';'];

/** Splits SQL text into tokens, ending with an `eof` token. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const pos = (offset: number): { line: number; column: number } => ({ line, column: offset - lineStart + 1 });
  const advanceLines = (from: number, to: number): void => {
    for (let k = from; k < to; k++) {
      if (text[k] === '\n') {
        line++;
        lineStart = k + 1;
      }
    }
  };
  const push = (kind: TokenKind, value: string, start: number, end: number, at: { line: number; column: number }): void => {
    tokens.push({ kind, text: value, upper: kind === 'ident' ? value.toUpperCase() : value, offset: start, end, ...at });
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      advanceLines(i, i + 1);
      i++;
      continue;
    }
    const start = i;
    const at = pos(i);
    if (c === '-' && text[i + 1] === '-') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) throw new SqlError(at, 'unterminated comment');
      const isHint = text[i + 2] === '+';
      if (isHint) push('hint', text.slice(i + 3, close).trim(), start, close + 2, at);
      advanceLines(i, close + 2);
      i = close + 2;
      continue;
    }
    if (c === "'") {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new SqlError(at, 'unterminated string literal');
        if (text[i] === "'") {
          if (text[i + 1] === "'") {
            value += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += text[i];
        i++;
      }
      push('string', value, start, i, at);
      advanceLines(start, i);
      continue;
    }
    if (c === '`') {
      // A doubled back-quote stands for one inside the name: `a``b` is a`b.
      let name = '';
      let j = i + 1;
      for (;;) {
        const close = text.indexOf('`', j);
        if (close < 0) throw new SqlError(at, 'unterminated quoted identifier');
        name += text.slice(j, close);
        if (text[close + 1] !== '`') {
          j = close + 1;
          break;
        }
        name += '`';
        j = close + 2;
      }
      push('qident', name, start, j, at);
      advanceLines(start, j);
      i = j;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(text[i + 1] ?? ''))) {
      const m = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(text.slice(i)) as RegExpExecArray;
      push('number', m[0], start, i + m[0].length, at);
      i += m[0].length;
      continue;
    }
    if (/[\p{L}_$]/u.test(c)) {
      const m = /^[\p{L}_$][\p{L}\p{N}_$]*/u.exec(text.slice(i)) as RegExpExecArray;
      push('ident', m[0], start, i + m[0].length, at);
      i += m[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (!op) throw new SqlError(at, `unexpected character '${c}'`);
    push('op', op, start, i + op.length, at);
    i += op.length;
  }
  tokens.push({ kind: 'eof', text: '', upper: '<EOF>', offset: text.length, end: text.length, ...pos(text.length) });
  return tokens;
}
