/**
 * Nexmark q13's side input: the bounded table `side_input (key BIGINT, value VARCHAR)` the bids
 * join on `mod(auction, 10000) = key` — 10,000 rows `{"key": i, "value": "i"}`, i = 0..9999, as
 * examples/nexmark/q13.ts and examples/sql/nexmark/q13.sql read it (one JSON object per line).
 */

/** Rows of the side input (the modulus q13 joins on). */
export const NEXMARK_SIDE_INPUT_ROWS = 10_000;

/** The side input's file name, as q13's `CREATE TABLE side_input … 'path' = 'side_input.jsonl'` names it. */
export const NEXMARK_SIDE_INPUT_FILE = 'side_input.jsonl';

/** The side input as JSON lines, each line ending with a newline. */
export function nexmarkSideInputJsonl(): string {
  const lines: string[] = [];
  for (let i = 0; i < NEXMARK_SIDE_INPUT_ROWS; i++) lines.push(JSON.stringify({ key: i, value: String(i) }));
  return `${lines.join('\n')}\n`;
}
