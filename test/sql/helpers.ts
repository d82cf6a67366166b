/** Shared helpers of the SQL tests. */
import { readFileSync } from 'node:fs';
import { SqlError } from '../../shared/sql/errors.ts';

/** The text of an example script in examples/sql/ (`name` may be `nexmark/q15.sql`). */
export function example(name: string): string {
  return readFileSync(new URL(`../../examples/sql/${name}`, import.meta.url), 'utf8');
}

/**
 * The SQL example of a Nexmark query that plans like its API version in examples/nexmark/: q5 and
 * q7 as the window Top-N of examples/sql/, every other query in the benchmark's own form of
 * examples/sql/nexmark/ (the one copy of it).
 */
export function nexmarkExample(query: string): string {
  return ['q5', 'q7'].includes(query) ? `${query}.sql` : `nexmark/${query}.sql`;
}

/** An orders table on a JSON-lines file (7 lines, so statements after it start on line 8). */
export const ORDERS = `CREATE TABLE orders (
  merchandiseId BIGINT NOT NULL,
  quantity INT NOT NULL,
  log_ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR log_ts AS log_ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl', 'format' = 'json');
`;

/** The SqlError `fn` throws. */
export function sqlError(fn: () => unknown): SqlError {
  try {
    fn();
  } catch (e) {
    if (e instanceof SqlError) return e;
    throw e;
  }
  throw new Error('expected a SqlError');
}
