/** Optimizer hints (`/*+ LOOKUP('table'='t') *\/`), read from a hint comment's body. */
import type { SqlHint } from './ast.ts';
import { SqlError, type SqlPosition } from './errors.ts';
import { tokenize, type Token } from './reader/lexer.ts';

/** Reads `LOOKUP('table'='t', 'shuffle'='true'), OTHER(…)` from a hint token. */
export function parseHints(token: { readonly text: string; readonly line: number; readonly column: number }): SqlHint[] {
  const inner = tokenize(token.text);
  const hints: SqlHint[] = [];
  let k = 0;
  const at = (t: Token): SqlPosition => ({ line: token.line + t.line - 1, column: t.line === 1 ? token.column + 3 + t.column - 1 : t.column });
  const expect = (ok: boolean, t: Token, what: string): void => {
    if (!ok) throw new SqlError(at(t), `malformed hint: expected ${what}, found '${t.text}'`);
  };
  while (inner[k] && (inner[k] as Token).kind !== 'eof') {
    const name = inner[k++] as Token;
    expect(name.kind === 'ident', name, 'a hint name');
    const options = new Map<string, string>();
    if ((inner[k] as Token).text === '(') {
      k++;
      while ((inner[k] as Token).text !== ')') {
        const key = inner[k++] as Token;
        expect(key.kind === 'string' || key.kind === 'ident', key, 'an option key');
        const eq = inner[k++] as Token;
        if (eq.text === '=') {
          const value = inner[k++] as Token;
          expect(value.kind === 'string' || value.kind === 'ident' || value.kind === 'number', value, 'an option value');
          options.set(key.text, value.text);
        } else {
          options.set(String(options.size), key.text);
          k--;
        }
        if ((inner[k] as Token).text === ',') k++;
        else expect((inner[k] as Token).text === ')', inner[k] as Token, "',' or ')'");
      }
      k++;
    }
    hints.push({ name: name.upper, options, pos: at(name) });
    if ((inner[k] as Token | undefined)?.text === ',') k++;
  }
  return hints;
}
