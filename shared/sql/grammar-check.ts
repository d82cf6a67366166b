/**
 * Syntax check of a script with dt-sql-parser's Flink SQL grammar (after the pre-pass in
 * prepass.ts), so scripts are held to Flink's syntax, not only to the subset parser.ts reads.
 * The parser instance is created once and shared: building it takes about two seconds.
 */
// The Flink dialect only: the package index loads every dialect (~20 MB of generated parsers),
// which costs about ten seconds per test file; the Flink parser alone is 1.6 MB.
import { FlinkSQL } from 'dt-sql-parser/dist/parser/flink/index.js';
import { SqlError } from './errors.ts';
import { maskForGrammar } from './prepass.ts';

let shared: FlinkSQL | undefined;

/** The process-wide dt-sql-parser instance. */
export function flinkGrammar(): FlinkSQL {
  shared ??= new FlinkSQL();
  return shared;
}

/**
 * Throws the grammar's first syntax error as a SqlError (`line 2:8: …`).
 *
 * @throws SqlError for the first syntax error.
 */
export function checkGrammar(text: string): void {
  const errors = flinkGrammar().validate(maskForGrammar(text));
  const first = errors[0];
  if (first) {
    throw new SqlError({ line: first.startLine, column: first.startColumn }, `syntax error: ${first.message}`);
  }
}
