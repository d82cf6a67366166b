/**
 * `flambda local` end to end: Nexmark q15 through Kinesis streams, stage handlers and DynamoDB
 * state on emulators the command starts itself, at parallelism 1 and 4; the same against
 * endpoints given in the environment (the command starts nothing and deletes what it created);
 * and an unknown source. The window queries q5, q7 and q11 close their windows at the end of the
 * input (a +∞ heartbeat per source shard) and give the references' results. A SQL script reading
 * VALUES runs with no --input (its producer puts the rows), dead-letters a bad row at its position
 * as `flambda run` does, and an unbounded datagen table is refused by name.
 */
import { ListStreamsCommand } from '@aws-sdk/client-kinesis';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createDynamoDbClient } from '../../shared/aws/clients.ts';
import { createKinesisClient } from '../../shared/aws/kinesis/client.ts';
import { startDynalite, startKinesalite } from '../../shared/aws/local/emulators.ts';
import { BID_FILE, NEXMARK, applyChangelog, makeTempDir, readJson, readJsonLines, runCli, sortRows } from './cli.ts';

const tmp = makeTempDir('cli-local');
afterAll(() => tmp.cleanup());

const expectedQ15 = NEXMARK.expected('q15');
const BIDS = NEXMARK.bids.length;
const SUMMARY = new RegExp(`^flambda: read ${BIDS} records in \\d+\\.\\d\\d s \\(\\d+ records/s\\); sink 'q15': (\\d+) changelog rows$`, 'm');

describe.each([
  ['q5', 2],
  ['q7', 1],
  ['q11', 3],
] as const)('flambda local examples/nexmark/%s.ts (event-time windows)', (query, parallelism) => {
  it(`closes every window at the end of the input and equals expected_${query}.json at --parallelism ${parallelism}`, async () => {
    const final = tmp.file(`${query}-local.json`);
    const result = await runCli(['local', `examples/nexmark/${query}.ts`, '--input', `bid=${BID_FILE}`, '--parallelism', String(parallelism), '--final', final, '--quiet'], {
      timeoutMs: 90_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const expected = NEXMARK.expected(query);
    expect(sortRows(readJson(final) as Record<string, unknown>[])).toEqual(sortRows(expected));
  });
});

describe('flambda local examples/nexmark/q15.ts', () => {
  it.each([1, 4])('equals expected_q15.json at --parallelism %i', async (parallelism) => {
    const final = tmp.file(`q15-p${parallelism}.json`);
    const changelog = tmp.file(`q15-p${parallelism}.jsonl`);
    const result = await runCli(
      ['local', 'examples/nexmark/q15.ts', '--input', `bid=${BID_FILE}`, '--parallelism', String(parallelism), '--final', final, '--changelog', changelog],
      { timeoutMs: 60_000 },
    );
    expect(result.stderr).not.toMatch(/flambda: error/);
    expect(result.code).toBe(0);
    expect(sortRows(readJson(final) as Record<string, unknown>[])).toEqual(sortRows(expectedQ15));
    expect(sortRows(applyChangelog(readJsonLines(changelog), ['day']))).toEqual(sortRows(expectedQ15));
    // Emulators on 127.0.0.1, one progress line per stage (upstream first), then the summary.
    expect(result.stderr).toMatch(/^flambda local: Kinesis at http:\/\/127\.0\.0\.1:\d+, DynamoDB at http:\/\/127\.0\.0\.1:\d+$/m);
    const stages = [...result.stderr.matchAll(/^stage (stage-\d+) \(.*, (\d+) shards?\) drained: (\d+) records in/gm)];
    expect(stages.map((m) => [m[1], Number(m[2])])).toEqual([
      ['stage-0', parallelism],
      ['stage-1', parallelism],
    ]);
    expect(Number(stages[0]?.[3])).toBe(BIDS);
    expect(result.stderr).toMatch(SUMMARY);
  });

  it('uses the endpoints in the environment, starts nothing and deletes its streams and table', async () => {
    const [kinesalite, dynalite] = await Promise.all([startKinesalite(), startDynalite()]);
    const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
    const kinesis = createKinesisClient({ endpoint: kinesalite.endpoint, region: 'us-east-1', credentials });
    const dynamoDb = createDynamoDbClient({ endpoint: dynalite.endpoint, region: 'us-east-1', credentials });
    const saved = { ...process.env };
    try {
      // runCli passes process.env on to the child.
      Object.assign(process.env, {
        AWS_ENDPOINT_URL_KINESIS: kinesalite.endpoint,
        AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
      });
      const final = tmp.file('q15-env.json');
      const result = await runCli(['local', 'examples/nexmark/q15.ts', '--input', `bid=${BID_FILE}`, '-p', '2', '--final', final], { timeoutMs: 60_000 });
      expect(result.stderr).not.toMatch(/flambda: error/);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(`flambda local: Kinesis at ${kinesalite.endpoint}, DynamoDB at ${dynalite.endpoint}\n`);
      expect(sortRows(readJson(final) as Record<string, unknown>[])).toEqual(sortRows(expectedQ15));
      expect((await kinesis.send(new ListStreamsCommand({}))).StreamNames ?? []).toEqual([]);
      expect((await dynamoDb.send(new ListTablesCommand({}))).TableNames ?? []).toEqual([]);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
      kinesis.destroy();
      dynamoDb.destroy();
      await Promise.all([kinesalite.close(), dynalite.close()]);
    }
  });

  it('fails with exit 1 and says so for an unknown source', async () => {
    const result = await runCli(['local', 'examples/nexmark/q15.ts', '--input', `nope=${BID_FILE}`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("flambda: error: --input nope=…: the pipeline has no source 'nope' (sources: bid)");
    expect(result.stderr).not.toMatch(/flambda local: Kinesis at/);
  });
});

describe('flambda local on a SQL script with generator sources', () => {
  it('reads VALUES without --input and dead-letters a bad row at its position, as flambda run does', async () => {
    const script = tmp.write(
      'values.sql',
      `CREATE TABLE totals (k STRING, n INT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'print');
INSERT INTO totals SELECT k, SUM(CAST(v AS INT)) FROM (VALUES ('a', '1'), ('b', 'x'), ('a', '2'), ('b', '5')) AS t (k, v) GROUP BY k;\n`,
    );
    for (const command of ['local', 'run']) {
      const final = tmp.file(`values-${command}.json`);
      const letters = tmp.file(`values-${command}-dead.jsonl`);
      const result = await runCli([command, script, '--final', final, '--dead-letter', letters, '--quiet'], { timeoutMs: 60_000 });
      expect(result.code, result.stderr).toBe(0);
      expect(sortRows(readJson(final) as Record<string, unknown>[])).toEqual([
        { k: 'a', n: 3 },
        { k: 'b', n: 5 },
      ]);
      const dead = readJsonLines(letters);
      expect(dead.map((d) => [d.position, d.raw])).toEqual([['values_1#2', '{"EXPR$0":"b","EXPR$1":"x"}']]);
      expect(dead[0]?.reason).toMatch(/cannot cast 'x' to INT/);
      expect(result.stderr).toMatch(/^flambda: read 4 records \(1 dead-lettered\)/m);
    }
  });

  it('refuses an unbounded datagen table, naming it and the option to set', async () => {
    const script = tmp.write('datagen.sql', "CREATE TABLE clicks (id BIGINT) WITH ('connector' = 'datagen');\nSELECT * FROM clicks;\n");
    const result = await runCli(['local', script]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "flambda: error: source 'clicks' is unbounded (a datagen table without 'number-of-rows'); flambda local reads bounded sources only: set 'number-of-rows' in its WITH options",
    );
    expect(result.stderr).not.toMatch(/flambda local: Kinesis at/);
  });
});
