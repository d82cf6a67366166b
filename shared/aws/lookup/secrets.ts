/**
 * Database passwords of SQL lookup tables from Secrets Manager, read once per cold start.
 *
 * Two ways a lookup table names its secret: the CDK construct passes `FLAMBDA_LOOKUP_SECRETS`
 * (lookup table name → secret ARN, the secrets granted to this function only), and a job graph
 * descriptor may carry `secretArn` itself (SQL: `'password' = '${secret:arn:…}'`). The secret's
 * string is the password, or a JSON object whose `password` field is (the shape RDS-managed
 * secrets have). Values never enter the environment or the logs.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { FlambdaError, PlanError } from '../../core/errors.ts';
import type { JobGraph } from '../../plan/job-graph.ts';
import { lookupTablesOf } from '../../plan/job-graph.ts';
import { STAGE_ENV } from '../env.ts';

/** Passwords by secret ARN, and the secret ARN of each lookup table the environment names. */
export interface LookupSecrets {
  readonly passwords: ReadonlyMap<string, string>;
  readonly byTable: ReadonlyMap<string, string>;
}

/** The table → ARN map of `FLAMBDA_LOOKUP_SECRETS`. @throws PlanError naming the variable for bad JSON. */
export function lookupSecretArns(env: NodeJS.ProcessEnv): Map<string, string> {
  const name = STAGE_ENV.lookupSecrets;
  const text = env[name]?.trim();
  const arns = new Map<string, string>();
  if (text === undefined || text === '') return arns;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PlanError(`environment variable ${name} is not valid JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new PlanError(`environment variable ${name} must be a JSON object of lookup table → secret ARN`);
  for (const [table, arn] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof arn !== 'string' || arn === '') throw new PlanError(`environment variable ${name}: the secret of '${table}' must be a non-empty string`);
    arns.set(table, arn);
  }
  return arns;
}

/** The password in a secret's string: the `password` field of a JSON object, else the whole string. */
export function passwordOf(secretString: string): string {
  try {
    const parsed = JSON.parse(secretString) as unknown;
    if (parsed !== null && typeof parsed === 'object' && typeof (parsed as { password?: unknown }).password === 'string') return (parsed as { password: string }).password;
  } catch {
    // Not JSON: the string is the password.
  }
  return secretString;
}

/**
 * Reads every secret the stage's lookup tables need: those the environment names and the
 * `secretArn`s in the JDBC descriptors of the stage's own LookupJoin operators — never another
 * stage's, which its function is not granted (infra/lib/stream-pipeline.ts grants each stage the
 * secrets of its own lookups only).
 *
 * @param stageId the stage the function runs; without it, every stage's lookups (one process
 *   running the whole graph)
 * @throws FlambdaError naming the table and ARN when a secret cannot be read.
 */
export async function loadLookupSecrets(
  graph: JobGraph,
  env: NodeJS.ProcessEnv,
  client: Pick<SecretsManagerClient, 'send'> = new SecretsManagerClient({}),
  stageId?: string,
): Promise<LookupSecrets> {
  const byTable = lookupSecretArns(env);
  const wanted = new Map<string, string>([...byTable].map(([table, arn]) => [arn, table]));
  const stages = stageId === undefined ? graph.stages : graph.stages.filter((s) => s.id === stageId);
  for (const [table, info] of lookupTablesOf({ ...graph, stages })) {
    const source = info.source;
    if (source.type === 'jdbc' && source.secretArn !== undefined) wanted.set(source.secretArn, table);
  }
  const passwords = new Map<string, string>();
  for (const [arn, table] of wanted) {
    let secret: string | undefined;
    try {
      secret = (await client.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString;
    } catch (error) {
      throw new FlambdaError(`lookup table '${table}': cannot read secret ${arn}: ${(error as Error).name}`, 'external', 'fail', { cause: error });
    }
    if (secret === undefined) throw new FlambdaError(`lookup table '${table}': secret ${arn} has no string value`, 'external', 'fail');
    passwords.set(arn, passwordOf(secret));
  }
  return { passwords, byTable };
}
