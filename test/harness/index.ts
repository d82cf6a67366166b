/**
 * Test utilities for operators: a Flink-style harness over the real runner, plus changelog row
 * factories and a materializer that checks a changelog is well formed.
 */
export { OperatorHarness } from './operator-harness.ts';
export type { HarnessOptions } from './operator-harness.ts';
export { insert, updateBefore, updateAfter, del, materialize, formatRow, MalformedChangelogError } from './rows.ts';
