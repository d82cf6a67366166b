/**
 * WATERMARK on a computed column (`rowtime AS TO_TIMESTAMP(ts)`, the DDL of Flink's own
 * examples), on both runtimes: the source shards track the watermark by the column's
 * expression, the column is the table's rowtime attribute, and a window TVF over it fires as
 * the watermark passes — proven by a row that arrives after its window fired and is dropped as
 * late, which it would not be if the watermark waited for the end of the input.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compileSql } from '../../shared/sql/compile-sql.ts';
import { sqlError } from './helpers.ts';
import { inputDir, runEmbeddedSql, runLocalSql } from './run-both.ts';

const files = inputDir('computed-rowtime');
afterAll(() => files.cleanup());

const ev = files.file('ev', [
  { k: 'a', ts: '2024-01-01 00:00:01' },
  { k: 'a', ts: '2024-01-01 00:00:05' },
  { k: 'b', ts: '2024-01-01 00:00:07' },
  { k: 'a', ts: '2024-01-01 00:00:12' },
  // After 00:00:12 the watermark is 00:00:11: the window [00:00, 00:10) has fired, so this is late.
  { k: 'a', ts: '2024-01-01 00:00:03' },
  { k: 'c', ts: 'not a time' },
]);

const SCRIPT = `CREATE TABLE ev (k STRING, ts STRING, rowtime AS TO_TIMESTAMP(ts), WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '${ev}', 'format' = 'json', 'scan.parallelism' = '1');
CREATE TABLE o (k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), c BIGINT) WITH ('connector' = 'print');
INSERT INTO o SELECT k, window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(rowtime), INTERVAL '10' SECOND))
  GROUP BY k, window_start, window_end;`;

const EXPECTED = [
  '{"k":"a","window_start":"2024-01-01 00:00:00.000","window_end":"2024-01-01 00:00:10.000","c":2}',
  '{"k":"a","window_start":"2024-01-01 00:00:10.000","window_end":"2024-01-01 00:00:20.000","c":1}',
  '{"k":"b","window_start":"2024-01-01 00:00:00.000","window_end":"2024-01-01 00:00:10.000","c":1}',
];

describe('WATERMARK FOR a computed column', () => {
  it('is the rowtime: the plan tracks the watermark by its expression', () => {
    const program = compileSql(SCRIPT);
    const graph = program.pipeline.jobGraph({ parallelism: 2 });
    expect(graph.sources[0]!.watermark).toMatchObject({ column: 'rowtime', outOfOrdernessMs: 1000, expr: { kind: 'call', fn: 'TO_TIMESTAMP' } });
    expect(program.pipeline.explain()).toContain('watermark=[-(rowtime=TO_TIMESTAMP(ts), 1000:INTERVAL MILLISECOND)]');
  });

  it('drives a TUMBLE window on the embedded runtime (a late row is dropped, a NULL rowtime too)', async () => {
    expect((await runEmbeddedSql(SCRIPT, { batchSize: 1 })).rows).toEqual(EXPECTED);
  });

  it('drives a TUMBLE window on the AWS runtime (Kinesis, handlers, DynamoDB state on emulators)', async () => {
    expect((await runLocalSql(SCRIPT, { batchSize: 1 })).rows).toEqual(EXPECTED);
  }, 120_000);

  it('must be a TIMESTAMP, and a PROCTIME() column cannot carry a watermark', () => {
    const table = (cols: string): string =>
      `CREATE TABLE ev (${cols}) WITH ('connector' = 'filesystem', 'path' = '${ev}', 'format' = 'json'); SELECT k FROM ev;`;
    expect(sqlError(() => compileSql(table(`k STRING, ts STRING, r AS CHAR_LENGTH(ts), WATERMARK FOR r AS r`))).message).toMatch(
      /watermark column 'r' of table 'ev' must be TIMESTAMP\(3\) or TIMESTAMP_LTZ\(3\) \(its expression is INT\)/,
    );
    expect(sqlError(() => compileSql(table(`k STRING, p AS PROCTIME(), WATERMARK FOR p AS p`))).message).toMatch(/watermark column 'p' of table 'ev' is a PROCTIME\(\) column/);
  });
});
