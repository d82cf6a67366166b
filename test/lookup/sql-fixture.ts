/**
 * Shared fixture of the MySQL/MariaDB and PostgreSQL source tests: one dimension table with keys
 * of several types (BIGINT, composite STRING+INT, DECIMAL, TIMESTAMP), NULLs and a non-unique
 * column, created under a unique name by each test file and dropped after.
 */
import { schemaOf } from '../../shared/core/type-parse.ts';
import type { Schema } from '../../shared/core/types.ts';
import { parseTimestamp } from '../../shared/core/timestamp.ts';

/** A table name no other test run uses. */
export function uniqueTableName(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
}

/** The dimension schema read from the fixture table. */
export const dimSchema: Schema = schemaOf({
  id: 'BIGINT NOT NULL',
  region: 'STRING',
  sku: 'INT',
  price: 'DECIMAL(10, 2)',
  ts: 'TIMESTAMP(3)',
  flag: 'BOOLEAN',
  score: 'DOUBLE',
  name: 'VARCHAR(20)',
  grp: 'STRING',
});

/** Epoch ms of a timestamp literal. */
export const ms = (text: string): number => parseTimestamp(text)!;

/** The rows as the sources must return them. */
export const expectedRows = {
  1: { id: 1, region: 'eu', sku: 10, price: 1250n, ts: ms('2024-01-02 03:04:05.678'), flag: true, score: 1.5, name: 'alpha', grp: 'g1' },
  2: { id: 2, region: 'eu', sku: 11, price: 1n, ts: ms('1970-01-01 00:00:00'), flag: false, score: -0.25, name: null, grp: 'g1' },
  3: { id: 3, region: 'us', sku: 10, price: null, ts: null, flag: null, score: null, name: 'gamma', grp: 'g2' },
  4: { id: 9007199254740991, region: 'eu', sku: -2147483648, price: -99999999n, ts: ms('2099-12-31 23:59:59.999'), flag: true, score: 1e300, name: 'big', grp: 'g3' },
} as const;

/** INSERT value tuples (SQL literals) matching {@link expectedRows}; booleans as TRUE/FALSE. */
export const insertValues = [
  "(1, 'eu', 10, 12.50, '2024-01-02 03:04:05.678', TRUE, 1.5, 'alpha', 'g1')",
  "(2, 'eu', 11, 0.01, '1970-01-01 00:00:00.000', FALSE, -0.25, NULL, 'g1')",
  "(3, 'us', 10, NULL, NULL, NULL, NULL, 'gamma', 'g2')",
  "(9007199254740991, 'eu', -2147483648, -999999.99, '2099-12-31 23:59:59.999', TRUE, 1e300, 'big', 'g3')",
];
