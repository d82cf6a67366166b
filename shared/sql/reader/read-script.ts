/**
 * The SQL reader: Flink SQL text → the statements of ast.ts, by one hand-written
 * recursive-descent reader (lexer.ts → cursor.ts → types.ts → expressions.ts →
 * function-syntax.ts → queries.ts → statements.ts). A syntax error is one SqlError at the
 * offending token (`line 2:1: expected a statement …, found 'SELEC'`); a construct Flambda does
 * not support is named (`MATCH_RECOGNIZE is not supported`).
 */
import type { SqlStatement } from '../ast.ts';
import { StatementReader } from './statements.ts';

/**
 * Reads a script into statements.
 *
 * @throws SqlError with the position of the offending token.
 */
export function readScript(text: string): SqlStatement[] {
  return new StatementReader(text).script();
}
