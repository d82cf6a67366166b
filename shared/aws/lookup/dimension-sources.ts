/**
 * Dimension sources of LookupJoin operators on AWS (the stage Lambda and `flambda local`).
 *
 * A stage handler creates its operators per shard task (`createTask`), and a warm container
 * keeps its tasks while the checkpoint version matches: each shard's source and cache therefore
 * live as long as the container and are reused by every warm invocation. What this factory adds
 * to the registry's default ({@link createDimensionSource}):
 *
 * - one DynamoDB client per container, shared by every DynamoDB source of every shard task
 *   (a client per task would open its own connection pool);
 * - JSON-lines tables bound by name: `FLAMBDA_LOOKUP_FILES` = `{"side_input": "side_input.jsonl"}`
 *   (relative paths are resolved against the handler's directory, where the files are bundled),
 *   or the `--input` bindings of `flambda local`;
 * - JDBC passwords from Secrets Manager — the secrets read at cold start by secrets.ts (a
 *   source's own `secretArn`, or the secret `FLAMBDA_LOOKUP_SECRETS` names for its table, which
 *   wins over `passwordFrom`) — or else from the environment variable `passwordFrom` names.
 */
import { isAbsolute, resolve } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PlanError } from '../../core/errors.ts';
import { createDimensionSource, type DimensionSourceFactory } from '../../operators/registry.ts';
import { createDynamoDbL2Source } from '../lookup-cache/dynamodb-l2-source.ts';
import type { L2DimensionSource } from '../lookup-cache/dynamodb-l2-source.ts';
import type { DynamoDbSender } from '../state/table-io.ts';
import { STAGE_ENV } from '../env.ts';
import type { LookupSecrets } from './secrets.ts';

/** Environment variables read by {@link awsDimensionSources}. */
export const LOOKUP_ENV = {
  /** JSON object: lookup table name → JSON-lines file. Optional. */
  files: STAGE_ENV.lookupFiles,
} as const;

/** Options of {@link awsDimensionSources}. */
export interface AwsDimensionSourceOptions {
  /** The environment (`passwordFrom` variables, {@link LOOKUP_ENV}). @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Relative JSON-lines paths are resolved against this directory. @default process.cwd() */
  readonly baseDir?: string;
  /** JSON-lines file per lookup table name; wins over {@link LOOKUP_ENV.files}. */
  readonly jsonlPaths?: ReadonlyMap<string, string>;
  /** The DynamoDB client every DynamoDB source shares. @default each source creates its own */
  readonly dynamoDb?: DynamoDBClient;
  /**
   * The DynamoDB second cache level (shared/aws/lookup-cache/): a table for it (the pipeline's
   * state table) puts L2 in front of every source whose descriptor does not say `l2: none`.
   * @default no second level
   */
  readonly l2?: { readonly client: DynamoDbSender; readonly tableName: string; readonly clock?: () => number };
  /** Passwords read from Secrets Manager at cold start (secrets.ts). @default none: `secretArn` sources fail */
  readonly secrets?: LookupSecrets;
}

/** Default expire-after-write of L2 entries when the table does not set one: one hour. */
export const DEFAULT_L2_TTL_MS = 3_600_000;

/** A dimension-source factory that also reports its L2 sources' counters, summed. */
export type AwsDimensionSourceFactory = DimensionSourceFactory & { l2Totals(): { readonly l2Hits: number; readonly l2Misses: number; readonly sourceKeys: number; readonly l2Failures: number } };

/** The JSON-lines bindings of {@link LOOKUP_ENV.files}. @throws PlanError when it is not a JSON object of paths. */
export function lookupFilesFromEnv(env: NodeJS.ProcessEnv): Map<string, string> {
  const text = env[LOOKUP_ENV.files]?.trim();
  const files = new Map<string, string>();
  if (text === undefined || text === '') return files;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PlanError(`environment variable ${LOOKUP_ENV.files} is not valid JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new PlanError(`environment variable ${LOOKUP_ENV.files} must be a JSON object of lookup table → file (given ${text})`);
  }
  for (const [table, path] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof path !== 'string' || path === '') throw new PlanError(`environment variable ${LOOKUP_ENV.files}: the file of '${table}' must be a non-empty string`);
    files.set(table, path);
  }
  return files;
}

/** A JDBC descriptor without its `passwordFrom`. */
function withoutPasswordFrom<T extends { readonly passwordFrom?: string }>(descriptor: T): Omit<T, 'passwordFrom'> {
  const { passwordFrom: _replaced, ...rest } = descriptor;
  return rest;
}

/** The dimension source factory of a stage function or a local AWS run (see the module header). */
export function awsDimensionSources(options: AwsDimensionSourceOptions = {}): AwsDimensionSourceFactory {
  const env = options.env ?? process.env;
  const baseDir = options.baseDir ?? process.cwd();
  const files = lookupFilesFromEnv(env);
  for (const [table, path] of options.jsonlPaths ?? []) files.set(table, path);
  const jsonlPaths = new Map([...files].map(([table, path]) => [table, isAbsolute(path) ? path : resolve(baseDir, path)]));
  const l2Sources: L2DimensionSource[] = [];
  const secrets = options.secrets;
  const factory: DimensionSourceFactory = (given, context) => {
    // A JDBC table without a secret of its own takes the secret the deployment names for it,
    // which also replaces a `passwordFrom` variable (a deployed function has no such variable
    // unless the deployment sets it; infra/lib/stream-pipeline.ts refuses to deploy otherwise).
    const tableSecret = secrets?.byTable.get(context.table);
    const descriptor = given.type === 'jdbc' && given.secretArn === undefined && tableSecret !== undefined ? withoutPasswordFrom({ ...given, secretArn: tableSecret }) : given;
    const source = createDimensionSource(descriptor, context, {
      env,
      jsonlPaths,
      ...(options.dynamoDb !== undefined ? { dynamoDb: { client: options.dynamoDb } } : {}),
      ...(secrets !== undefined
        ? {
            resolveSecret: (arn: string, table: string) => {
              const password = secrets.passwords.get(arn);
              if (password === undefined) throw new PlanError(`lookup table '${table}': secret ${arn} was not read at cold start (is it in ${STAGE_ENV.lookupSecrets} or the job graph?)`);
              return password;
            },
          }
        : {}),
    });
    const l2 = options.l2;
    if (l2 === undefined || descriptor.l2?.type === 'none') return source;
    const cached = createDynamoDbL2Source(source, {
      client: l2.client,
      tableName: l2.tableName,
      ttlMs: descriptor.l2?.ttlMs ?? DEFAULT_L2_TTL_MS,
      ...(l2.clock !== undefined ? { clock: l2.clock } : {}),
      onError: (error, phase) => console.warn(`lookup table '${context.table}': L2 ${phase} failed, using the source: ${(error as Error).message}`),
    });
    l2Sources.push(cached);
    return cached;
  };
  return Object.assign(factory, {
    l2Totals: () => {
      const total = { l2Hits: 0, l2Misses: 0, sourceKeys: 0, l2Failures: 0 };
      for (const source of l2Sources) {
        const m = source.metrics();
        total.l2Hits += m.l2Hits;
        total.l2Misses += m.l2Misses;
        total.sourceKeys += m.sourceKeys;
        total.l2Failures += m.l2ReadFailures + m.l2WriteFailures;
      }
      return total;
    },
  });
}
