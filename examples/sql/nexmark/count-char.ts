/**
 * Nexmark q14's user function `count_char(s, c)`: how many times the character `c` occurs in `s`
 * (the benchmark's CountChar scalar function, `long eval(String s, String character)`), for
 * `CREATE FUNCTION count_char AS 'count-char.ts#countChar'`. Its declared parameter types type
 * `s` and `c` as `string | null`.
 */
import { scalarFunction } from 'flambda';

export const countChar = scalarFunction('BIGINT', { input: ['STRING', 'STRING'] }, function countChar(s, c): number | null {
  if (s === null || c === null || c.length !== 1) return null;
  let n = 0;
  for (const ch of s) if (ch === c) n++;
  return n;
});
