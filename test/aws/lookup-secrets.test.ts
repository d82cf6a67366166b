/**
 * SQL lookup credentials from Secrets Manager (moto_server on 127.0.0.1) against a real MariaDB
 * user with a password: the secret the deployment names for a table (FLAMBDA_LOOKUP_SECRETS) or
 * a descriptor's own `secretArn` is read once, and the lookup connects with it; a JSON secret's
 * `password` field is the password; an unreadable secret names the table and the ARN; a stage
 * reads only the secrets of its own lookups.
 */
import { randomBytes } from 'node:crypto';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pipeline } from '../../shared/api/index.ts';
import { awsDimensionSources } from '../../shared/aws/lookup/dimension-sources.ts';
import { loadLookupSecrets, passwordOf } from '../../shared/aws/lookup/secrets.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import { encodeKey } from '../../shared/partition/key-encoding.ts';
import { lookupTablesOf } from '../../shared/plan/job-graph.ts';
import { startMotoServer } from './dynamodb-emulator.ts';
import type { DynamoDbEmulator } from './dynamodb-emulator.ts';

const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
const USER = `flambda_l_${suffix}`;
const TABLE = `secret_dim_${suffix}`;
const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;

let moto: DynamoDbEmulator;
let secrets: SecretsManagerClient;
let admin: mysql.Connection;
let plainArn: string;
let jsonArn: string;

beforeAll(async () => {
  moto = await startMotoServer();
  secrets = new SecretsManagerClient({ endpoint: moto.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  plainArn = (await secrets.send(new CreateSecretCommand({ Name: `plain-${suffix}`, SecretString: PASSWORD }))).ARN as string;
  jsonArn = (await secrets.send(new CreateSecretCommand({ Name: `json-${suffix}`, SecretString: JSON.stringify({ username: USER, password: PASSWORD }) }))).ARN as string;
  admin = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', database: 'test' });
  await admin.query(`CREATE TABLE ${TABLE} (id BIGINT PRIMARY KEY, name VARCHAR(20))`);
  await admin.query(`INSERT INTO ${TABLE} VALUES (1, 'one'), (2, 'two')`);
  await admin.query(`CREATE USER '${USER}'@'%' IDENTIFIED BY '${PASSWORD}'`);
  await admin.query(`GRANT SELECT ON test.${TABLE} TO '${USER}'@'%'`);
}, 60_000);

afterAll(async () => {
  await admin?.query(`DROP USER IF EXISTS '${USER}'@'%'`);
  await admin?.query(`DROP TABLE IF EXISTS ${TABLE}`);
  await admin?.end();
  secrets?.destroy();
  await moto?.stop();
});

function pipeline(secretArn?: string) {
  const p = new Pipeline('secrets');
  const dim = p.lookupTable('dim', {
    schema: { id: 'BIGINT NOT NULL', name: 'STRING' },
    source: { jdbc: { url: 'jdbc:mysql://127.0.0.1:3306/test', table: TABLE, user: USER, ...(secretArn ? { secretArn } : {}) } },
  });
  p.source('ev', { schema: { k: 'BIGINT NOT NULL' } }).lookupJoin(dim, { on: { k: 'id' }, columns: ['name'] }).sinkTo('out');
  return p.jobGraph({ parallelism: 1 });
}

describe('Lookup secrets from Secrets Manager', () => {
  it('reads the password of the secret the deployment names for the table, and the lookup connects with it', async () => {
    const graph = pipeline();
    const env = { FLAMBDA_LOOKUP_SECRETS: JSON.stringify({ dim: jsonArn }) };
    const loaded = await loadLookupSecrets(graph, env, secrets);
    expect(loaded.passwords.get(jsonArn)).toBe(PASSWORD);
    const table = lookupTablesOf(graph).get('dim')!;
    const source = awsDimensionSources({ env, secrets: loaded })(table.source, { table: 'dim', schema: schemaOf({ id: 'BIGINT NOT NULL', name: 'STRING' }), operatorId: 'LookupJoin_2', functions: new Map() });
    const rows = await source.lookupMany([{ id: 2 }]);
    expect(rows.get(encodeKey([2]))).toEqual([{ id: 2, name: 'two' }]);
    await source.close();
  });

  it("uses a descriptor's own secretArn (SQL: '${secret:arn}')", async () => {
    const graph = pipeline(plainArn);
    const loaded = await loadLookupSecrets(graph, {}, secrets);
    const table = lookupTablesOf(graph).get('dim')!;
    const source = awsDimensionSources({ env: {}, secrets: loaded })(table.source, { table: 'dim', schema: schemaOf({ id: 'BIGINT NOT NULL', name: 'STRING' }), operatorId: 'LookupJoin_2', functions: new Map() });
    expect((await source.lookupMany([{ id: 1 }])).get(encodeKey([1]))).toEqual([{ id: 1, name: 'one' }]);
    await source.close();
  });

  it('names the table and ARN of a secret it cannot read', async () => {
    const missing = plainArn.replace(/plain-[^-]+-[^-]+/, 'missing');
    await expect(loadLookupSecrets(pipeline(missing), {}, secrets)).rejects.toThrow(/lookup table 'dim': cannot read secret .*missing/);
  });

  it("reads only the secrets of the given stage's own lookups (another stage's function is not granted them)", async () => {
    const missing = plainArn.replace(/plain-[^-]+-[^-]+/, 'missing');
    const graph = pipeline(missing);
    const lookupStage = graph.stages.find((s) => s.operators.some((op) => op.type === 'LookupJoin'))!;
    const elsewhere = { ...graph, stages: [...graph.stages, { ...lookupStage, id: 'stage-9', operators: [] }] };
    const loaded = await loadLookupSecrets(elsewhere, {}, secrets, 'stage-9');
    expect(loaded.passwords.size).toBe(0);
    await expect(loadLookupSecrets(elsewhere, {}, secrets, lookupStage.id)).rejects.toThrow(/lookup table 'dim': cannot read secret .*missing/);
  });

  it('takes the password field of a JSON secret, else the whole string', () => {
    expect(passwordOf('{"username":"u","password":"p"}')).toBe('p');
    expect(passwordOf('plain text')).toBe('plain text');
    expect(passwordOf('{"other":1}')).toBe('{"other":1}');
  });
});
