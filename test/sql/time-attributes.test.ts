/**
 * Time attributes as Flink carries them through a query (the time-attributes page): a rowtime
 * column passed on by name, renamed or through UNION ALL of two rowtime columns stays one — a
 * window after it closes by the watermark, on both runtimes — and what is not one cannot be
 * windowed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';
import { sqlError } from './helpers.ts';

const files = inputDir('time-attributes');
afterAll(() => files.cleanup());

const web = files.file('web', [
  { id: 1, ts: '2024-01-01 10:00:00.000' },
  { id: 2, ts: '2024-01-01 10:07:00.000' },
  { id: 3, ts: '2024-01-01 10:12:00.000' },
]);
const app = files.file('app', [
  { id: 4, ts: '2024-01-01 10:03:00.000' },
  { id: 5, ts: '2024-01-01 10:25:00.000' },
]);
const table = (name: string, path: string): string =>
  `CREATE TABLE ${name} (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');\n`;
const TABLES = table('web', web) + table('app', app);

describe('time attributes through a query', () => {
  const UNION = `${TABLES}SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE (SELECT id, ts FROM web UNION ALL SELECT id, ts AS ts FROM app), DESCRIPTOR(ts), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end`;
  const EXPECTED = ['{"window_start":"2024-01-01 10:00:00.000","n":3}', '{"window_start":"2024-01-01 10:10:00.000","n":1}', '{"window_start":"2024-01-01 10:20:00.000","n":1}'];

  it('UNION ALL of two rowtime columns is a rowtime column a window closes by (both runtimes)', async () => {
    expect((await runEmbeddedSql(UNION)).rows).toEqual(EXPECTED);
    expect((await runLocalSql(UNION)).rows).toEqual(EXPECTED);
  });

  it('is lost by an expression, an aggregate, a regular join, or a column without a WATERMARK', () => {
    const windowOf = (input: string): string => `${TABLES}SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE ${input}, DESCRIPTOR(t), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end`;
    const reason = /^line 3:\d+: The window function TUMBLE requires the timecol to be a time attribute, but 't' is TIMESTAMP\(3\)/;
    expect(sqlError(() => compileSql(windowOf('(SELECT id, ts + INTERVAL \'1\' MINUTE AS t FROM web)'))).message).toMatch(reason);
    expect(sqlError(() => compileSql(windowOf('(SELECT id, MAX(ts) AS t FROM web GROUP BY id)'))).message).toMatch(reason);
    expect(sqlError(() => compileSql(windowOf('(SELECT w.id, w.ts AS t FROM web w JOIN app a ON w.id = a.id)'))).message).toMatch(reason);
    const plain = "CREATE TABLE plain (id BIGINT, t TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'p.jsonl', 'format' = 'json');\n";
    expect(sqlError(() => compileSql(`${plain}${TABLES.split('\n')[1]}\nSELECT COUNT(*) FROM TABLE(TUMBLE(TABLE plain, DESCRIPTOR(t), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end`)).message).toMatch(reason);
  });
});
