/**
 * dt-sql-parser's Flink grammar rejects two constructs Flink runs: the SESSION window TVF
 * (`TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' MINUTE))`) and aggregate
 * `FILTER (WHERE …)`. Before the grammar check, this pre-pass rewrites them into text the grammar
 * accepts — keeping every other character at the same offset, line and column (replaced text is
 * blanked with spaces, newlines kept), so the grammar's error positions still point at the
 * user's script. tree-to-ast.ts restores both constructs when it builds the AST from the parse
 * tree of the rewritten text (the SESSION name and PARTITION BY columns, the FILTER condition).
 */
import { tokenize, type Token } from './lexer.ts';

/** Blanks `text[from, to)` except newlines. */
function blank(chars: string[], from: number, to: number): void {
  for (let k = from; k < to; k++) if (chars[k] !== '\n' && chars[k] !== '\r') chars[k] = ' ';
}

function isWord(t: Token | undefined, word: string): boolean {
  return t !== undefined && t.kind === 'ident' && t.upper === word;
}

function isOp(t: Token | undefined, op: string): boolean {
  return t !== undefined && t.kind === 'op' && t.text === op;
}

/** Index of the token closing the parenthesis opened at `open`. */
function closingParen(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let k = open; k < tokens.length; k++) {
    if (isOp(tokens[k], '(')) depth++;
    if (isOp(tokens[k], ')') && --depth === 0) return k;
  }
  return tokens.length - 1;
}

/**
 * Rewrites SESSION TVFs into TUMBLE TVFs without PARTITION BY and blanks aggregate FILTER
 * clauses. Returns the text unchanged when neither occurs (or when it does not tokenize: the
 * parser reports that error with its position).
 */
export function maskForGrammar(text: string): string {
  let tokens: Token[];
  try {
    tokens = tokenize(text);
  } catch {
    return text;
  }
  const chars = [...text];
  // Spread splits astral characters into one element each; offsets are UTF-16 code units.
  if (chars.length !== text.length) return maskByCodeUnits(text, tokens);
  applyMasks(chars, tokens);
  return chars.join('');
}

function maskByCodeUnits(text: string, tokens: readonly Token[]): string {
  const units = text.split('');
  applyMasks(units, tokens);
  return units.join('');
}

function applyMasks(chars: string[], tokens: readonly Token[]): void {
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    // `TABLE ( SESSION ( TABLE x PARTITION BY a, b , DESCRIPTOR …`
    if (isWord(t, 'SESSION') && isOp(tokens[k - 1], '(') && isWord(tokens[k - 2], 'TABLE') && isOp(tokens[k + 1], '(')) {
      chars.splice(t.offset, 7, ...'TUMBLE ');
      const partition = tokens.findIndex((p, j) => j > k && isWord(p, 'PARTITION') && isWord(tokens[j + 1], 'BY'));
      const descriptor = tokens.findIndex((p, j) => j > k && isWord(p, 'DESCRIPTOR'));
      if (partition > 0 && descriptor > partition) {
        // Blank from PARTITION up to (not including) the comma before DESCRIPTOR.
        const comma = tokens[descriptor - 1] as Token;
        blank(chars, (tokens[partition] as Token).offset, comma.offset);
      }
    }
    // `agg(…) FILTER ( WHERE … )`
    if (isWord(t, 'FILTER') && isOp(tokens[k - 1], ')') && isOp(tokens[k + 1], '(') && isWord(tokens[k + 2], 'WHERE')) {
      const close = closingParen(tokens, k + 1);
      blank(chars, t.offset, (tokens[close] as Token).end);
    }
  }
}
