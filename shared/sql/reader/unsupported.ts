/**
 * Flink SQL constructs the reader recognizes but Flambda does not run: an error names them
 * instead of saying which token the reader expected.
 */
import type { Token } from './lexer.ts';

const CONSTRUCTS: Readonly<Record<string, string>> = {
  MATCH_RECOGNIZE: 'MATCH_RECOGNIZE is not supported',
  NATURAL: 'NATURAL JOIN is not supported: write JOIN … USING (…) or JOIN … ON …',
  TABLESAMPLE: 'TABLESAMPLE is not supported',
  APPLY: 'CROSS APPLY / OUTER APPLY are not supported: write CROSS JOIN LATERAL TABLE(…)',
};

/** Statements Flink has and Flambda does not (by their first word or two). */
const STATEMENTS: Readonly<Record<string, string>> = {
  LOAD: 'LOAD MODULE',
  UNLOAD: 'UNLOAD MODULE',
  ANALYZE: 'ANALYZE TABLE',
  TRUNCATE: 'TRUNCATE TABLE',
  DELETE: 'DELETE',
  UPDATE: 'UPDATE',
  CALL: 'CALL',
  ADD: 'ADD JAR',
  REMOVE: 'REMOVE JAR',
};

/**
 * The message naming an unsupported construct that starts with `word`, or undefined.
 * `ahead(k)` is the token k places after the word.
 */
export function unsupportedWord(word: string, ahead: (k: number) => Token): string | undefined {
  if (word === 'OUTER' && ahead(1).upper === 'APPLY') return CONSTRUCTS.APPLY;
  return CONSTRUCTS[word];
}

/** The message for a statement Flink has and Flambda does not, by its first word. */
export function unsupportedStatement(word: string): string | undefined {
  const name = STATEMENTS[word];
  if (name === undefined) return undefined;
  return `${name} statements are not supported (a script declares its tables, views and functions and runs its queries)`;
}
