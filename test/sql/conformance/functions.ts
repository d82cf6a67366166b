/**
 * The user functions the conformance cases declare with CREATE FUNCTION, by their
 * 'module.ts#export' identifier (the CLI imports such modules next to the script).
 */
import { scalarFunction, tableFunction, type UserFunctionDefinition } from '../../../shared/api/user-functions.ts';
import { countChar } from '../../../examples/sql/nexmark/count-char.ts';

/** Flink's SplitFunction example: one row (word, length) per space-separated word. */
export const splitWords = tableFunction({ word: 'STRING', len: 'INT' }, function* splitWords(line: string | null) {
  for (const word of (line ?? '').split(' ')) if (word !== '') yield { word, len: word.length };
});

/** Flink's SubstringFunction example: `s` from `begin` to `end` (exclusive). */
export const substringOf = scalarFunction('STRING', (s: string | null, begin: number | null, end: number | null) => (s === null || begin === null || end === null ? null : s.substring(begin, end)));

/** The functions by identifier. */
export const FUNCTIONS: ReadonlyMap<string, UserFunctionDefinition> = new Map<string, UserFunctionDefinition>([
  ['split.ts#splitWords', splitWords],
  ['substring.ts#substringOf', substringOf],
  ['count-char.ts#countChar', countChar],
]);
