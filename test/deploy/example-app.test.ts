/**
 * `npm run test:deploy`: what ships to AWS, tested as it ships. The example app is synthesized,
 * deployed with cdklocal to a moto_server started here (moto-deployment.ts), and read back; then
 * each deployed function's bundle from cdk.out runs bare (lambda-container.ts: no node_modules but
 * `@aws-sdk/*`, exactly the deployed environment) and is fed through the local event source
 * mapping configured as its deployed mapping is (shared/aws/esm/deployed-mapping.ts), on orders
 * made by the examples' generator:
 *
 * 1. the leaderboard table holds exactly the Top-10 of a plain reference; every stage loses one
 *    response (as after a Lambda timeout once the work was done), so Lambda re-delivers the batch
 *    and the handlers must not count it twice; bad records land in the dead-letter queue (SQS);
 * 2. the heartbeat bundle writes a heartbeat to every shard of every source and exchange stream,
 *    which every stage takes without a failure;
 * 3. a cold restart (every execution environment killed, new ones started) goes on exactly;
 * 4. with moto's IAM enforcement on (INITIAL_NO_AUTH_ACTION_COUNT, via /moto-api/reset-auth),
 *    each function and its mapping run with their execution role's credentials (STS AssumeRole):
 *    the same exact results; and with one grant removed (stage-0 may no longer put records on its
 *    exchange stream) its call fails with AccessDenied, and succeeds again once it is restored;
 * 5. the lookup example (FlambdaEnrichedOrders), its databases given as CDK context (a MariaDB
 *    table read by a user whose password is in a Secrets Manager secret, and a PostgreSQL
 *    table): with IAM enforced, the lookup stage reads its secrets with its own role, the source
 *    stage reads none (it has no grant), and the enriched rows are exact.
 *
 * The EMF metrics the bundles print carry the names and dimensions the deployed dashboard and
 * alarms query. Everything deployed and run is printed (the acceptance script greps for
 * CREATE_COMPLETE).
 *
 * moto checks IAM actions only, never resources, so resource scoping is checked by the template
 * assertions in test/infra; what only a real account shows is listed in docs/deploying.md.
 */
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateAccessKeyCommand, CreateUserCommand, IAMClient, PutRolePolicyCommand, PutUserPolicyCommand } from '@aws-sdk/client-iam';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { GetRecordsCommand, GetShardIteratorCommand, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import mysql from 'mysql2/promise';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueUrlCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USERS, createTables, dropTables } from '../../examples/lookup/setup.ts';
import { generateOrders } from '../../examples/orders/orders.ts';
import { ENRICHED_ORDERS_SECRETS } from '../../infra/lib/example-stacks.ts';
import { createDynamoDbClient } from '../../shared/aws/clients.ts';
import { deployedMappingOptions } from '../../shared/aws/esm/deployed-mapping.ts';
import { toPolledRecord } from '../../shared/aws/esm/kinesis-event.ts';
import { LocalEventSourceMapping } from '../../shared/aws/esm/local-event-source-mapping.ts';
import { sqsOnFailureDestination } from '../../shared/aws/esm/on-failure-destination.ts';
import { BundleCodec } from '../../shared/aws/kinesis/bundle-codec.ts';
import { createKinesisClient } from '../../shared/aws/kinesis/client.ts';
import { createSqsClient } from '../../shared/aws/stage-input/sqs-client.ts';
import { listAllShards, readShard } from '../aws/kinesis-emulator.ts';
import { LambdaContainer, prepareBareBundle } from './lambda-container.ts';
import type { FunctionCredentials } from './lambda-container.ts';
import { ACCOUNT, REGION, ROOT_CREDENTIALS, clientConfig, deploy, filterUnmodelled, readBack, startMoto, synthesize } from './moto-deployment.ts';
import type { DeployedFunction, DeployedStack, FilteredResource, Moto } from './moto-deployment.ts';

const STACK = 'FlambdaTopMerchandise';
const ENRICHED = 'FlambdaEnrichedOrders';

/**
 * The lookup example's databases, as CDK context: tables of this run, and a MariaDB user whose
 * password only the secret holds. The bundles run on this machine, so 127.0.0.1 reaches them
 * (the stack warns that a deployed function could not).
 */
const RUN = `${process.pid}_${randomBytes(3).toString('hex')}`;
const LOOKUP_DB = {
  user: `flambda_deploy_${RUN}`,
  password: `pw-${randomBytes(8).toString('hex')}`,
  mysqlTable: `deploy_users_mysql_${RUN}`,
  postgresTable: `deploy_users_pg_${RUN}`,
};
const LOOKUP_CONTEXT = {
  'enrichedOrders:mysqlUrl': `jdbc:mysql://127.0.0.1:3306/test?user=${LOOKUP_DB.user}`,
  'enrichedOrders:mysqlTable': LOOKUP_DB.mysqlTable,
  'enrichedOrders:postgresUrl': 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres',
  'enrichedOrders:postgresTable': LOOKUP_DB.postgresTable,
};
/** What examples/lookup/setup.ts reads to create (and drop) the tables, as the root user. */
const SETUP_ENV = {
  FLAMBDA_EXAMPLE_MYSQL_URL: 'jdbc:mysql://127.0.0.1:3306/test?user=root',
  FLAMBDA_EXAMPLE_MYSQL_TABLE: LOOKUP_DB.mysqlTable,
  FLAMBDA_EXAMPLE_POSTGRES_URL: 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres',
  FLAMBDA_EXAMPLE_POSTGRES_TABLE: LOOKUP_DB.postgresTable,
};
/** Orders per phase; 40 products, so the Top-10 changes as data arrives. */
const PHASES = { first: 900, afterRestart: 500, withIam: 400 } as const;
const MERCHANDISE = 40;
const SEED = 11;
/** Faster than AWS's 1 s idle poll, to keep the run short; everything else is the deployed mapping's. */
const POLL_MS = 100;
/** Each step drains three mappings with 1 s batching windows; the machine may be busy. */
const SLOW = { timeout: 300_000 } as const;

/**
 * moto names an IAM action after the API operation, where AWS authorizes some operations by
 * another action: "SendMessageBatch … permission: sqs:SendMessage" (Amazon SQS API permissions
 * reference). Before IAM is enforced, each role's statements that allow the AWS action also get
 * moto's name for it — the same permission, spelled as moto checks it.
 */
const MOTO_ACTION_NAMES: Readonly<Record<string, readonly string[]>> = { 'sqs:SendMessage': ['sqs:SendMessageBatch'] };

type PolicyDocument = DeployedFunction['policies'] extends ReadonlyMap<string, infer D> ? D : never;

/**
 * A role policy as moto can check it: moto evaluates every request of these services against the
 * resource `*`, so a statement scoped to an ARN would never match and every call would be denied.
 * The statements keep their effects and actions (plus moto's spelling, {@link MOTO_ACTION_NAMES})
 * and name `*`: moto then checks the actions each function was granted — its resources are
 * checked on the templates by test/infra.
 */
function asMotoChecksIt(document: PolicyDocument): PolicyDocument {
  return {
    ...document,
    Statement: document.Statement.map((s) => ({ ...s, Resource: '*', Action: [...new Set([s.Action].flat().flatMap((a) => [a, ...(MOTO_ACTION_NAMES[a] ?? [])]))] })),
  };
}

let moto: Moto;
let workdir: string;
let cdkOut: string;
let filtered: FilteredResource[];
let stacks: DeployedStack[];
let functions: DeployedFunction[];
let synthesizedTemplate: string;
let admin: FunctionCredentials | undefined;
const roleCredentials = new Map<string, FunctionCredentials>();
const containers: LambdaContainer[] = [];
const mappings: LocalEventSourceMapping[] = [];

beforeAll(async () => {
  workdir = mkdtempSync(join(tmpdir(), 'flambda-test-deploy-'));
  cdkOut = join(workdir, 'cdk.out');
  const started = Date.now();
  [moto] = await Promise.all([startMoto(), synthesize(cdkOut, LOOKUP_CONTEXT), createLookupDatabases()]);
  synthesizedTemplate = readFileSync(join(cdkOut, `${STACK}.template.json`), 'utf8');
  filtered = filterUnmodelled(cdkOut);
  const output = await deploy(cdkOut, moto.endpoint);
  ({ stacks, functions } = await readBack(moto.endpoint, cdkOut, [STACK, ENRICHED]));
  const events = output.split('\n').filter((line) => /\| AWS::CloudFormation::Stack/.test(line) && line.includes('CREATE_COMPLETE'));
  console.log(`deployed with cdklocal to moto_server at ${moto.endpoint} in ${((Date.now() - started) / 1000).toFixed(1)} s (synth, bootstrap, deploy)`);
  for (const line of events) console.log(`  ${line.trim()}`);
  for (const stack of stacks) console.log(`stack ${stack.name}: ${stack.status}, ${stack.resources.length} resources`);
  console.log(`filtered out for moto (UNMODELLED_RESOURCE_TYPES and what refers to them): ${filtered.map((f) => `${f.logicalId} (${f.type}: ${f.reason})`).join(', ')}`);
}, 600_000);

afterAll(async () => {
  await Promise.all(mappings.map((m) => m.stop()));
  await Promise.all(containers.map((c) => c.kill()));
  await moto?.stop();
  await dropLookupDatabases();
  if (workdir !== undefined) rmSync(workdir, { recursive: true, force: true });
});

/** The lookup example's tables (setup.ts) and a MariaDB user that may only read its table. */
async function createLookupDatabases(): Promise<void> {
  await createTables(SETUP_ENV);
  const root = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', database: 'test' });
  try {
    await root.query(`CREATE USER '${LOOKUP_DB.user}'@'%' IDENTIFIED BY '${LOOKUP_DB.password}'`);
    await root.query(`GRANT SELECT ON test.${LOOKUP_DB.mysqlTable} TO '${LOOKUP_DB.user}'@'%'`);
  } finally {
    await root.end();
  }
}

async function dropLookupDatabases(): Promise<void> {
  const root = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', database: 'test' });
  await root.query(`DROP USER IF EXISTS '${LOOKUP_DB.user}'@'%'`).finally(() => root.end());
  await dropTables(SETUP_ENV);
}

/** The deployed function running `stage`, or the heartbeat. */
function fn(stage: string | 'heartbeat', stack = STACK): DeployedFunction {
  const found = functions.find((f) => f.stack === stack && (stage === 'heartbeat' ? f.environment.FLAMBDA_HEARTBEAT_STREAMS !== undefined : f.environment.FLAMBDA_STAGE_ID === stage));
  if (found === undefined) throw new Error(`no deployed function of ${stack} runs ${stage}`);
  return found;
}

const STAGES = ['stage-0', 'stage-1', 'stage-2'] as const;

/** The orders of a phase: the examples' generator, continued across phases. */
const allOrders = [...generateOrders({ orders: PHASES.first + PHASES.afterRestart + PHASES.withIam, merchandise: MERCHANDISE, seed: SEED })({ shard: 0, parallelism: 1 })] as { merchandiseId: number; quantity: number; log_ts: number }[];
const ordersOf = (phase: keyof typeof PHASES): typeof allOrders => {
  const from = phase === 'first' ? 0 : phase === 'afterRestart' ? PHASES.first : PHASES.first + PHASES.afterRestart;
  return allOrders.slice(from, from + PHASES[phase]);
};

/** The Top-10 by total quantity of `orders`: a plain reference (ranking → product and total). */
function referenceTop10(orders: readonly { merchandiseId: number; quantity: number }[]): { ranking: number; merchandiseId: number; totalQuantity: number }[] {
  const totals = new Map<number, number>();
  for (const o of orders) totals.set(o.merchandiseId, (totals.get(o.merchandiseId) ?? 0) + o.quantity);
  const sorted = [...totals].sort((a, b) => b[1] - a[1]);
  // ROW_NUMBER orders equal totals arbitrarily: the data must not tie at the top.
  for (let i = 0; i < 10; i++) expect(sorted[i]?.[1], `tie at rank ${i + 1} of the generated data`).not.toBe(sorted[i + 1]?.[1]);
  return sorted.slice(0, 10).map(([merchandiseId, totalQuantity], i) => ({ ranking: i + 1, merchandiseId, totalQuantity }));
}

/** Clients of the test itself (putting data, reading results). */
interface TestClients {
  readonly kinesis: KinesisClient;
  readonly dynamoDb: DynamoDBClient;
  readonly sqs: SQSClient;
}

function testClients(credentials: FunctionCredentials): TestClients {
  const config = clientConfig(moto.endpoint, credentials);
  return { kinesis: createKinesisClient(config), dynamoDb: createDynamoDbClient(config), sqs: createSqsClient(config) };
}

function destroy(clients: TestClients): void {
  clients.kinesis.destroy();
  clients.dynamoDb.destroy();
  clients.sqs.destroy();
}

/** Puts the records in order (PutRecords, one call); returns their sequence numbers. */
async function putRecords(kinesis: KinesisClient, stream: string, payloads: readonly string[], key: (i: number) => string): Promise<string[]> {
  const sequence: string[] = [];
  for (let i = 0; i < payloads.length; i += 500) {
    const chunk = payloads.slice(i, i + 500);
    const out = await kinesis.send(new PutRecordsCommand({ StreamName: stream, Records: chunk.map((data, j) => ({ PartitionKey: key(i + j), Data: Buffer.from(data, 'utf8') })) }));
    expect(out.FailedRecordCount ?? 0).toBe(0);
    sequence.push(...(out.Records ?? []).map((r) => r.SequenceNumber as string));
  }
  return sequence;
}

/** The leaderboard table, ranking → item. */
async function leaderboard(dynamoDb: DynamoDBClient): Promise<{ ranking: number; merchandiseId: number; totalQuantity: number }[]> {
  const table = JSON.parse(fn('stage-2').environment.FLAMBDA_SINK_TARGETS as string).leaderboard as string;
  const out = await dynamoDb.send(new ScanCommand({ TableName: table, ConsistentRead: true }));
  return (out.Items ?? [])
    .map((item) => ({ ranking: Number(item.ranking?.N), merchandiseId: Number(item.merchandiseId?.N), totalQuantity: Number(item.totalQuantity?.N) }))
    .sort((a, b) => a.ranking - b.ranking);
}

/** Every message of the dead-letter queue not read yet, bodies parsed. */
async function deadLetters(sqs: SQSClient): Promise<Record<string, unknown>[]> {
  const url = fn('stage-0').environment.FLAMBDA_DEAD_LETTER_QUEUE_URL as string;
  const bodies: Record<string, unknown>[] = [];
  for (;;) {
    const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 900 }));
    if ((out.Messages ?? []).length === 0) return bodies;
    for (const m of out.Messages ?? []) bodies.push(JSON.parse(m.Body ?? '{}') as Record<string, unknown>);
  }
}

/** One stage at run time: its container, its mapping and what the test injected. */
interface RunningStage {
  readonly stage: string;
  readonly container: LambdaContainer;
  readonly mapping: LocalEventSourceMapping;
  readonly responses: KinesisStreamBatchResponse[];
  /** Responses the test dropped after the function had finished (Lambda then re-delivers). */
  lostResponses: number;
}

/**
 * Starts a fresh container and a local mapping for every stage, as deployed: the mapping's
 * settings from the deployed mapping, its reads and its on-failure destination with the same
 * credentials as the function (Lambda's mapping uses the execution role).
 */
async function startStages(credentialsOf: (f: DeployedFunction) => FunctionCredentials, loseOneResponse: boolean, stack = STACK, stages: readonly string[] = STAGES): Promise<RunningStage[]> {
  const running: RunningStage[] = [];
  for (const stage of stages) {
    const f = fn(stage, stack);
    const credentials = credentialsOf(f);
    const container = new LambdaContainer(spec(f), credentials, moto.endpoint);
    containers.push(container);
    const [deployedMapping] = f.mappings;
    if (deployedMapping === undefined || f.mappings.length !== 1) throw new Error(`${stage} has ${f.mappings.length} mappings`);
    const { options, onFailureDestinationArn } = deployedMappingOptions(deployedMapping);
    const config = clientConfig(moto.endpoint, credentials);
    const sqs = createSqsClient(config);
    const queueUrl = await queueUrlOf(onFailureDestinationArn as string);
    const entry: RunningStage = { stage, container, mapping: undefined as unknown as LocalEventSourceMapping, responses: [], lostResponses: 0 };
    const mapping = new LocalEventSourceMapping({
      ...options,
      client: createKinesisClient(config),
      // Only names the function in ARNs and the context; moto's CloudFormation names run past
      // Lambda's 64 characters, which the mapping checks.
      functionName: (f.configuration.FunctionName as string).slice(-64),
      functionTimeoutMs: (f.configuration.Timeout ?? 3) * 1000,
      roleArn: f.configuration.Role,
      pollIntervalMs: POLL_MS,
      onFailure: sqsOnFailureDestination({ client: sqs, queueUrl }),
      handler: async (event, context) => {
        const response = await container.handleKinesis(event, context);
        entry.responses.push(response);
        if (loseOneResponse && entry.lostResponses === 0 && response.batchItemFailures.length === 0) {
          entry.lostResponses++;
          throw new Error('injected: the invocation finished but its response was lost (as after a Lambda timeout); Lambda re-delivers the batch');
        }
        return response;
      },
    });
    Object.assign(entry, { mapping });
    mappings.push(mapping);
    await mapping.start();
    running.push(entry);
  }
  return running;
}

/** Drains the stages in pipeline order (each one's input is complete once the one before drained). */
async function drain(running: readonly RunningStage[]): Promise<void> {
  for (const r of running) await r.mapping.drain({ timeoutMs: 120_000 });
}

async function stop(running: readonly RunningStage[]): Promise<void> {
  await Promise.all(running.map((r) => r.mapping.stop()));
  await Promise.all(running.map((r) => r.container.kill()));
}

/** A function's execution-role credentials (assumed before IAM was enforced). */
function credentialsOf(f: DeployedFunction): FunctionCredentials {
  const credentials = roleCredentials.get(f.logicalId);
  if (credentials === undefined) throw new Error(`no role credentials for ${f.logicalId}`);
  return credentials;
}

const queueUrls = new Map<string, string>();

/** The URL of the queue an on-failure destination ARN names (looked up before IAM is enforced). */
async function queueUrlOf(arn: string): Promise<string> {
  let url = queueUrls.get(arn);
  if (url === undefined) {
    const sqs = createSqsClient(clientConfig(moto.endpoint));
    url = (await sqs.send(new GetQueueUrlCommand({ QueueName: arn.split(':').pop() as string }))).QueueUrl as string;
    sqs.destroy();
    queueUrls.set(arn, url);
  }
  return url;
}

const bare = new Map<string, string>();

/** The container spec of a deployed function, its bundle copied bare once. */
function spec(f: DeployedFunction) {
  let taskRoot = bare.get(f.logicalId);
  if (taskRoot === undefined) {
    taskRoot = prepareBareBundle(f.assetDir, join(workdir, 'bare'), f.logicalId);
    bare.set(f.logicalId, taskRoot);
  }
  const c = f.configuration;
  return {
    name: c.FunctionName as string,
    arn: c.FunctionArn as string,
    environment: f.environment,
    memoryMb: c.MemorySize ?? 128,
    timeoutSeconds: c.Timeout ?? 3,
    runtime: c.Runtime ?? 'nodejs24.x',
    handler: c.Handler ?? 'index.handler',
    taskRoot,
  };
}

function describeRun(running: readonly RunningStage[]): string {
  return running
    .map((r) => {
      const s = r.mapping.stats();
      return `${r.stage}: ${s.invocations} invocations (${s.retries} retries, ${r.lostResponses} lost responses), ${s.records} records, ${s.failures} discarded batches`;
    })
    .join('; ');
}

describe(`test:deploy — the example app (${STACK}, ${ENRICHED}) on moto_server, bundles run bare`, () => {
  it('deploys to CREATE_COMPLETE; the functions and mappings read back are what the template says', () => {
    expect(stacks.map((s) => [s.name, s.status])).toEqual([
      [STACK, 'CREATE_COMPLETE'],
      [ENRICHED, 'CREATE_COMPLETE'],
    ]);
    expect(filtered.map((f) => f.type).sort()).toEqual(expect.arrayContaining(['AWS::CDK::Metadata', 'AWS::CloudWatch::Alarm', 'AWS::SQS::QueuePolicy']));
    expect(functions.filter((f) => f.stack === STACK)).toHaveLength(STAGES.length + 1);
    expect(functions.filter((f) => f.stack === ENRICHED)).toHaveLength(3);
    for (const stage of STAGES) {
      const f = fn(stage);
      const [mapping] = f.mappings;
      const { options, onFailureDestinationArn } = deployedMappingOptions(mapping ?? {});
      // Never retry-then-skip, never drop by age, exchanges from the start: as synthesized.
      expect(options).toMatchObject({ startingPosition: 'TRIM_HORIZON', batchSize: 500, maximumBatchingWindowMs: 1000, reportBatchItemFailures: true, maximumRetryAttempts: -1, maximumRecordAgeMs: -1 });
      expect(onFailureDestinationArn).toMatch(new RegExp(`^arn:aws:sqs:${REGION}:${ACCOUNT}:`));
      expect(f.environment).toMatchObject({ FLAMBDA_STAGE_ID: stage, FLAMBDA_JOB_GRAPH_PATH: './job-graph.json' });
      // CloudFormation's queue URL names the AWS host, not the emulator (D9 happens here).
      expect(f.environment.FLAMBDA_DEAD_LETTER_QUEUE_URL).toMatch(/^https:\/\/sqs\.us-east-1\.amazonaws\.com\//);
      console.log(
        `function ${stage}: ${f.configuration.FunctionName} (${f.configuration.Runtime}, ${f.configuration.MemorySize} MB, ${f.configuration.Timeout} s), ` +
          `env ${Object.keys(f.environment).sort().join(' ')}; mapping ${mapping?.UUID}: ${JSON.stringify(options)}, on failure → ${onFailureDestinationArn}`,
      );
    }
    console.log(`function heartbeat: ${fn('heartbeat').configuration.FunctionName}, streams ${fn('heartbeat').environment.FLAMBDA_HEARTBEAT_STREAMS}`);
  });

  let stagesRunning: RunningStage[] = [];

  it('computes the exact Top-10 through the bundles, without double counting a re-delivered batch, and dead-letters bad records', SLOW, async () => {
    const root = testClients(ROOT_CREDENTIALS);
    try {
      const source = JSON.parse(fn('heartbeat').environment.FLAMBDA_HEARTBEAT_STREAMS as string)[0] as string;
      const orders = ordersOf('first');
      const bad = ['not json', JSON.stringify({ merchandiseId: 'seven', quantity: 1, log_ts: 0 })];
      const payloads = [...orders.slice(0, 450).map((o) => JSON.stringify(o)), ...bad, ...orders.slice(450).map((o) => JSON.stringify(o))];
      const sequence = await putRecords(root.kinesis, source, payloads, (i) => `p${i}`);

      stagesRunning = await startStages(() => ROOT_CREDENTIALS, true);
      await drain(stagesRunning);
      console.log(`ran ${orders.length} orders and ${bad.length} bad records through the bundles: ${describeRun(stagesRunning)}`);

      expect(await leaderboard(root.dynamoDb)).toEqual(referenceTop10(orders));
      for (const r of stagesRunning) {
        expect(r.lostResponses, `${r.stage} lost a response`).toBe(1);
        expect(r.mapping.stats().retries, `${r.stage} got its batch again`).toBeGreaterThanOrEqual(1);
        expect(r.mapping.stats().failures).toBe(0);
      }
      const letters = await deadLetters(root.sqs);
      expect(letters.map((l) => [l.kind, l.sequenceNumber, l.stage]).sort()).toEqual(
        [
          ['undecodable', sequence[450], 'stage-0'],
          ['schema-invalid', sequence[451], 'stage-0'],
        ].sort(),
      );
    } finally {
      destroy(root);
    }
  });

  it('writes a heartbeat to every shard of every source and exchange stream, and every stage takes it', SLOW, async () => {
    const root = testClients(ROOT_CREDENTIALS);
    try {
      const heartbeat = new LambdaContainer(spec(fn('heartbeat')), ROOT_CREDENTIALS, moto.endpoint);
      containers.push(heartbeat);
      const since = Date.now();
      // An EventBridge scheduled event.
      const outcome = await heartbeat.invoke({ version: '0', id: 'hb', 'detail-type': 'Scheduled Event', source: 'aws.events', account: ACCOUNT, time: new Date().toISOString(), region: REGION, resources: [], detail: {} });
      expect(outcome).toMatchObject({ ok: true });
      const streams = JSON.parse(fn('heartbeat').environment.FLAMBDA_HEARTBEAT_STREAMS as string) as string[];
      const report = (outcome as { result: { shards: Record<string, number> } }).result;
      const codec = new BundleCodec({ fields: [] });
      for (const stream of streams) {
        const shards = await listAllShards(root.kinesis, stream);
        expect(report.shards[stream]).toBe(shards.length);
        for (const shard of shards) {
          const beats = (await readShard(root.kinesis, stream, shard.ShardId as string)).map((r) => {
            try {
              return codec.decode(r.data);
            } catch {
              return undefined;
            }
          });
          expect(beats.some((b) => b?.type === 'heartbeat' && b.targetShard === shard.ShardId && b.at >= since), `heartbeat on ${stream}/${shard.ShardId}`).toBe(true);
        }
      }
      const before = stagesRunning.map((r) => r.responses.length);
      await drain(stagesRunning);
      for (const [i, r] of stagesRunning.entries()) {
        expect(r.responses.length, `${r.stage} was invoked with the heartbeat`).toBeGreaterThan(before[i] as number);
        expect(r.responses.slice(before[i]).flatMap((x) => x.batchItemFailures)).toEqual([]);
      }
      console.log(`heartbeat: ${JSON.stringify(report)}; every stage took it: ${describeRun(stagesRunning)}`);
    } finally {
      destroy(root);
    }
  });

  it('restarts cold (every execution environment replaced) and goes on exactly', SLOW, async () => {
    await stop(stagesRunning);
    const root = testClients(ROOT_CREDENTIALS);
    try {
      const source = JSON.parse(fn('heartbeat').environment.FLAMBDA_HEARTBEAT_STREAMS as string)[0] as string;
      await putRecords(root.kinesis, source, ordersOf('afterRestart').map((o) => JSON.stringify(o)), (i) => `q${i}`);
      stagesRunning = await startStages(() => ROOT_CREDENTIALS, false);
      await drain(stagesRunning);
      console.log(`cold restart, ${PHASES.afterRestart} more orders: ${describeRun(stagesRunning)}`);
      expect(await leaderboard(root.dynamoDb)).toEqual(referenceTop10([...ordersOf('first'), ...ordersOf('afterRestart')]));
      await stop(stagesRunning);
    } finally {
      destroy(root);
    }
  });

  it('with IAM enforced, runs every function and mapping with its own role: the same exact results, and a removed grant fails its call', SLOW, async () => {
    // Before enforcement: an administrator for the test's own calls, and each role's credentials.
    const iam = new IAMClient(clientConfig(moto.endpoint));
    const sts = new STSClient(clientConfig(moto.endpoint));
    const secrets = new SecretsManagerClient(clientConfig(moto.endpoint));
    try {
      // The lookup example's passwords, in the secrets its stack names (created beforehand, as a user would).
      await secrets.send(new CreateSecretCommand({ Name: ENRICHED_ORDERS_SECRETS.jdbc_table2, SecretString: JSON.stringify({ username: LOOKUP_DB.user, password: LOOKUP_DB.password }) }));
      await secrets.send(new CreateSecretCommand({ Name: ENRICHED_ORDERS_SECRETS.jdbc_table3, SecretString: 'trust-auth-ignores-it' }));
      await iam.send(new CreateUserCommand({ UserName: 'test-deploy-admin' }));
      await iam.send(new PutUserPolicyCommand({ UserName: 'test-deploy-admin', PolicyName: 'all', PolicyDocument: JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] }) }));
      const key = (await iam.send(new CreateAccessKeyCommand({ UserName: 'test-deploy-admin' }))).AccessKey;
      admin = { accessKeyId: key?.AccessKeyId as string, secretAccessKey: key?.SecretAccessKey as string };
      for (const f of functions) {
        for (const [name, document] of f.policies) {
          await iam.send(new PutRolePolicyCommand({ RoleName: f.roleName, PolicyName: name, PolicyDocument: JSON.stringify(asMotoChecksIt(document)) }));
        }
        const assumed = (await sts.send(new AssumeRoleCommand({ RoleArn: f.configuration.Role, RoleSessionName: f.logicalId.slice(0, 64) }))).Credentials;
        roleCredentials.set(f.logicalId, { accessKeyId: assumed?.AccessKeyId as string, secretAccessKey: assumed?.SecretAccessKey as string, sessionToken: assumed?.SessionToken as string });
      }
      for (const f of functions) for (const m of f.mappings) await queueUrlOf(m.DestinationConfig?.OnFailure?.Destination as string);
      const reset = await fetch(`${moto.endpoint}/moto-api/reset-auth`, { method: 'POST', body: '0' });
      expect(reset.status).toBe(200);
    } finally {
      iam.destroy();
      sts.destroy();
      secrets.destroy();
    }
    console.log(
      `IAM enforced (INITIAL_NO_AUTH_ACTION_COUNT 0); roles: ${functions.map((f) => `${f.roleName} (${[...f.policies.values()].flatMap((d) => d.Statement.flatMap((st) => [st.Action].flat())).length} actions)`).join(', ')}; ` +
        `statements on resource * as moto checks them, moto's spelling added: ${JSON.stringify(MOTO_ACTION_NAMES)}`,
    );

    // The enforcement is real: the old dummy credentials are refused now.
    const stranger = testClients(ROOT_CREDENTIALS);
    await expect(stranger.dynamoDb.send(new ScanCommand({ TableName: 'x' }))).rejects.toThrow();
    destroy(stranger);

    const root = testClients(admin as FunctionCredentials);
    try {
      const source = JSON.parse(fn('heartbeat').environment.FLAMBDA_HEARTBEAT_STREAMS as string)[0] as string;
      const orders = ordersOf('withIam');
      const sequence = await putRecords(root.kinesis, source, [...orders.map((o) => JSON.stringify(o)), '{"merchandiseId": 1'], (i) => `r${i}`);
      stagesRunning = await startStages(credentialsOf, true);
      await drain(stagesRunning);
      console.log(`IAM phase, ${orders.length} orders and 1 bad record with the functions' own roles: ${describeRun(stagesRunning)}`);
      expect(await leaderboard(root.dynamoDb)).toEqual(referenceTop10(allOrders));
      for (const r of stagesRunning) expect(r.responses.flatMap((x) => x.batchItemFailures), `${r.stage} failed a batch`).toEqual([]);
      expect((await deadLetters(root.sqs)).map((l) => [l.kind, l.sequenceNumber])).toEqual([['undecodable', sequence[orders.length]]]);
      const heartbeat = new LambdaContainer(spec(fn('heartbeat')), credentialsOf(fn('heartbeat')), moto.endpoint);
      containers.push(heartbeat);
      expect(await heartbeat.invoke({ source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} })).toMatchObject({ ok: true });
      await drain(stagesRunning);
      await stop(stagesRunning);

      // Negative control: without its grant to write the exchange, stage-0's PutRecords is denied.
      const stage0 = fn('stage-0');
      const [policyName, deployed] = [...stage0.policies][0] as [string, PolicyDocument];
      const document = asMotoChecksIt(deployed);
      const withoutPut = { ...document, Statement: document.Statement.filter((s) => ![s.Action].flat().includes('kinesis:PutRecords')) };
      expect(withoutPut.Statement.length).toBeLessThan(document.Statement.length);
      const event = await eventOfNewOrder(root.kinesis, source);
      const invokeStage0 = async (): Promise<{ response: KinesisStreamBatchResponse; log: string[] }> => {
        const container = new LambdaContainer(spec(stage0), credentialsOf(stage0), moto.endpoint);
        containers.push(container);
        const outcome = await container.invoke(event);
        await container.kill();
        if (!outcome.ok) throw new Error(`${outcome.error.name}: ${outcome.error.message}`);
        // Powertools writes errors to stderr, everything else to stdout.
        return { response: outcome.result as KinesisStreamBatchResponse, log: [...container.stdout, ...container.stderr] };
      };
      const adminIam = new IAMClient(clientConfig(moto.endpoint, admin as FunctionCredentials));
      try {
        await adminIam.send(new PutRolePolicyCommand({ RoleName: stage0.roleName, PolicyName: policyName, PolicyDocument: JSON.stringify(withoutPut) }));
        const denied = await invokeStage0();
        expect(denied.response.batchItemFailures).toEqual([{ itemIdentifier: event.Records[0]?.kinesis.sequenceNumber }]);
        const exchange = JSON.parse(stage0.environment.FLAMBDA_OUTPUT_STREAMS as string)['stage-1'] as string;
        const failure = denied.log.find((line) => line.includes('batch failed'));
        expect(failure, 'the handler logs the failed batch').toContain(`PutRecords to stream '${exchange}' failed`);
        // moto answers a denied JSON-protocol call with an XML ErrorResponse, which the SDK cannot
        // parse, so the bundle's error has lost the name; the same call with the same
        // credentials shows what it was: HTTP 403, AccessDenied.
        const probe = createKinesisClient(clientConfig(moto.endpoint, credentialsOf(stage0)));
        const refused = await probe.send(new PutRecordsCommand({ StreamName: exchange, Records: [{ PartitionKey: 'probe', Data: Buffer.from('{}') }] })).then(
          () => undefined,
          (error: { $metadata?: { httpStatusCode?: number } }) => error,
        );
        probe.destroy();
        expect(refused?.$metadata?.httpStatusCode, 'PutRecords with stage-0 credentials').toBe(403);
        console.log(`negative control: stage-0 without kinesis:PutRecords → ${JSON.stringify(denied.response)}; the same call with its credentials: HTTP ${refused?.$metadata?.httpStatusCode}; log: ${(failure ?? '').slice(0, 400)}`);
        await adminIam.send(new PutRolePolicyCommand({ RoleName: stage0.roleName, PolicyName: policyName, PolicyDocument: JSON.stringify(document) }));
        expect((await invokeStage0()).response).toEqual({ batchItemFailures: [] });
      } finally {
        adminIam.destroy();
      }
    } finally {
      destroy(root);
    }
  });

  it('looks orders up in MariaDB and PostgreSQL with secrets only the lookup stage may read (IAM enforced): exact enriched rows', SLOW, async () => {
    const actions = (f: DeployedFunction): string[] => [...f.policies.values()].flatMap((d) => d.Statement.flatMap((st) => [st.Action].flat()));
    // Only the lookup stage is granted the secrets, and only it reads them at cold start (D2).
    expect(actions(fn('stage-1', ENRICHED))).toContain('secretsmanager:GetSecretValue');
    expect(actions(fn('stage-0', ENRICHED)).filter((a) => a.startsWith('secretsmanager:'))).toEqual([]);
    const root = testClients(admin as FunctionCredentials);
    try {
      const source = JSON.parse(fn('heartbeat', ENRICHED).environment.FLAMBDA_HEARTBEAT_STREAMS as string)[0] as string;
      const sink = JSON.parse(fn('stage-1', ENRICHED).environment.FLAMBDA_SINK_TARGETS as string).fs_table as string;
      const orders = Array.from({ length: 60 }, (_, i) => ({ user_id: 1 + ((i * 7) % USERS.length), order_amount: 10 * i + 3, sname: `s${i}`, log_ts: Date.UTC(2026, 10, 11) + i }));
      await putRecords(root.kinesis, source, orders.map((o) => JSON.stringify(o)), (i) => `u${i}`);
      const running = await startStages(credentialsOf, true, ENRICHED, ['stage-0', 'stage-1']);
      await drain(running);
      console.log(`lookup example, ${orders.length} orders with the functions' own roles: ${describeRun(running)}`);
      for (const r of running) expect(r.responses.flatMap((x) => x.batchItemFailures), `${r.stage} failed a batch`).toEqual([]);
      await stop(running);

      const written: Record<string, unknown>[] = [];
      for (const shard of await listAllShards(root.kinesis, sink)) {
        for (const record of await readShard(root.kinesis, sink, shard.ShardId as string)) written.push(JSON.parse(Buffer.from(record.data).toString('utf8')) as Record<string, unknown>);
      }
      const user = (id: number) => USERS.find((u) => u.id === id) as (typeof USERS)[number];
      const expected = orders.map((o) => ({ op: '+I', id: o.user_id, name: `${user(o.user_id).name}@mysql`, s3Name: `${user(o.user_id).name}@pg`, order_amount: o.order_amount, description: user(o.user_id).description }));
      const key = (r: Record<string, unknown>): string => JSON.stringify(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)));
      expect(written.map(key).sort()).toEqual(expected.map(key).sort());
    } finally {
      destroy(root);
    }
  });

  it('publishes EMF metrics under the names and dimensions the deployed dashboard and alarms query', () => {
    const published = new Map<string, Set<string>>();
    for (const c of containers.filter((x) => x.spec.environment.FLAMBDA_STAGE_ID !== undefined)) {
      for (const line of c.stdout) {
        if (!line.includes('"_aws"')) continue;
        const doc = JSON.parse(line) as { _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] } };
        for (const directive of doc._aws.CloudWatchMetrics) {
          expect(directive.Namespace).toBe('Flambda');
          for (const m of directive.Metrics) published.set(m.Name, new Set(directive.Dimensions.flat()));
        }
      }
    }
    // The dashboard body and the alarms of the synthesized template (before moto's filter).
    const queried = new Set([...synthesizedTemplate.matchAll(/\\"Flambda\\",\\"([A-Za-z]+)\\"/g), ...synthesizedTemplate.matchAll(/"MetricName":\s*"([A-Za-z]+)",\s*"Namespace":\s*"Flambda"/g)].map((m) => m[1] as string));
    expect(queried.size).toBeGreaterThan(10);
    for (const name of queried) {
      expect(published.get(name), `the dashboard or an alarm queries ${name}, which no bundle published`).toBeDefined();
      expect([...(published.get(name) ?? [])].sort(), name).toEqual(['Pipeline', 'Stage', 'service']);
    }
    console.log(`EMF metrics published by the bundles, all queried by the dashboard or an alarm: ${[...published.keys()].sort().join(', ')}`);
  });
});

/** Puts one order on the source and returns the event Lambda would deliver for it. */
async function eventOfNewOrder(kinesis: KinesisClient, source: string): Promise<KinesisStreamEvent> {
  const data = Buffer.from(JSON.stringify({ merchandiseId: 1, quantity: 1, log_ts: Date.UTC(2026, 10, 12) }), 'utf8');
  const put = (await kinesis.send(new PutRecordsCommand({ StreamName: source, Records: [{ PartitionKey: 'n', Data: data }] }))).Records?.[0];
  const shardId = put?.ShardId as string;
  const iterator = (await kinesis.send(new GetShardIteratorCommand({ StreamName: source, ShardId: shardId, ShardIteratorType: 'AT_SEQUENCE_NUMBER', StartingSequenceNumber: put?.SequenceNumber }))).ShardIterator;
  const [record] = (await kinesis.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1 }))).Records ?? [];
  if (record === undefined || record.SequenceNumber !== put?.SequenceNumber) throw new Error(`order ${put?.SequenceNumber} not found on ${source}/${shardId}`);
  const identity = { streamArn: `arn:aws:kinesis:${REGION}:${ACCOUNT}:stream/${source}`, region: REGION, roleArn: fn('stage-0').configuration.Role as string };
  return { Records: [toPolledRecord(record, shardId, identity).event] };
}
