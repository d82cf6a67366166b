/**
 * The environment of a stage function: variable names (imported by infra, which sets them, and
 * by functions/, which reads them) and their parser.
 *
 * The job graph is not inlined in a variable: Lambda caps all variables of a function at 4 KB
 * together, which a real graph exceeds, so the graph is a file bundled next to the handler and
 * the variable only names it.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PlanError } from '../core/errors.ts';
import { parseJobGraph } from '../plan/job-graph.ts';
import type { JobGraph } from '../plan/job-graph.ts';
import type { UserCode } from '../operators/registry.ts';
import type { GeneratorFunction } from '../api/pipeline.ts';

/** Names of the environment variables of a stage function. */
export const STAGE_ENV = {
  /** Path of the job graph JSON file; relative paths are resolved against the handler's directory. Optional. */
  jobGraphPath: 'FLAMBDA_JOB_GRAPH_PATH',
  /** The id of the stage the function runs. Required. */
  stageId: 'FLAMBDA_STAGE_ID',
  /** The DynamoDB state table. Required. */
  stateTable: 'FLAMBDA_STATE_TABLE',
  /** JSON object: downstream stage id → exchange stream name. Optional (`{}`). */
  outputStreams: 'FLAMBDA_OUTPUT_STREAMS',
  /** URL of the SQS dead-letter queue. Optional: without it dead letters are only counted. */
  deadLetterQueueUrl: 'FLAMBDA_DEAD_LETTER_QUEUE_URL',
  /** Path of the pipeline module whose default export's `userFunctions` the operators call. Optional. */
  pipelineModule: 'FLAMBDA_PIPELINE_MODULE',
  /** JSON object: sink name → DynamoDB table or Kinesis stream name (sink stages). Optional (`{}`). */
  sinkTargets: 'FLAMBDA_SINK_TARGETS',
  /** JSON object: lookup table name → Secrets Manager secret ARN holding its database password. Optional. */
  lookupSecrets: 'FLAMBDA_LOOKUP_SECRETS',
  /** JSON object: lookup table name → JSON-lines file, relative to the handler's directory (bundled there). Optional. */
  lookupFiles: 'FLAMBDA_LOOKUP_FILES',
} as const;

/** Default of {@link STAGE_ENV.jobGraphPath}, relative to the handler's directory. */
export const DEFAULT_JOB_GRAPH_PATH = './job-graph.json';

/** A stage function's configuration, parsed from its environment. */
export interface StageEnvironment {
  /** Absolute path of the job graph file. */
  readonly jobGraphPath: string;
  readonly stageId: string;
  readonly tableName: string;
  /** Downstream stage id → exchange stream name. */
  readonly outputStreams: ReadonlyMap<string, string>;
  readonly deadLetterQueueUrl: string | undefined;
  /** Absolute path of the pipeline module, when set. */
  readonly pipelineModule: string | undefined;
  /** Sink name → table or stream name. */
  readonly sinkTargets: ReadonlyMap<string, string>;
}

type Env = Readonly<Record<string, string | undefined>>;

function optional(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value.length === 0 ? undefined : value;
}

function required(env: Env, name: string): string {
  const value = optional(env, name);
  if (value === undefined) throw new PlanError(`environment variable ${name} is missing or empty`);
  return value;
}

function parseNameMap(name: string, text: string | undefined, what: string): Map<string, string> {
  if (text === undefined) return new Map();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PlanError(`environment variable ${name} is not valid JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new PlanError(`environment variable ${name} must be a JSON object of ${what} (given ${text})`);
  }
  const names = new Map<string, string>();
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof value !== 'string' || value.length === 0) {
      throw new PlanError(`environment variable ${name}: the name for '${key}' must be a non-empty string (given ${JSON.stringify(value)})`);
    }
    names.set(key, value);
  }
  return names;
}

/**
 * Parses a stage function's environment; relative paths are resolved against `baseDir` (the
 * handler's directory).
 *
 * @throws PlanError naming the missing or invalid variable.
 */
export function readStageEnvironment(env: Env, baseDir: string = process.cwd()): StageEnvironment {
  const at = (path: string): string => (isAbsolute(path) ? path : resolve(baseDir, path));
  const pipelineModule = optional(env, STAGE_ENV.pipelineModule);
  return {
    jobGraphPath: at(optional(env, STAGE_ENV.jobGraphPath) ?? DEFAULT_JOB_GRAPH_PATH),
    stageId: required(env, STAGE_ENV.stageId),
    tableName: required(env, STAGE_ENV.stateTable),
    outputStreams: parseNameMap(STAGE_ENV.outputStreams, optional(env, STAGE_ENV.outputStreams), 'stage id → stream name'),
    sinkTargets: parseNameMap(STAGE_ENV.sinkTargets, optional(env, STAGE_ENV.sinkTargets), 'sink name → table or stream name'),
    deadLetterQueueUrl: optional(env, STAGE_ENV.deadLetterQueueUrl),
    pipelineModule: pipelineModule === undefined ? undefined : at(pipelineModule),
  };
}

/** Reads and parses the job graph file; @throws PlanError naming the variable and path. */
export function loadJobGraph(path: string): JobGraph {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new PlanError(`cannot read the job graph ${path} (${STAGE_ENV.jobGraphPath}): ${(error as Error).message}`);
  }
  return parseJobGraph(text);
}

/**
 * The user functions and generators of the pipeline module (its default export's
 * `userFunctions` and `generators`), or none when no module is configured.
 */
export async function loadUserCode(pipelineModule: string | undefined): Promise<UserCode & { readonly generators: ReadonlyMap<string, GeneratorFunction> }> {
  if (pipelineModule === undefined) return { functions: new Map(), generators: new Map() };
  const module = (await import(pathToFileURL(pipelineModule).href)) as { default?: { userFunctions?: unknown; generators?: unknown } };
  const functions = module.default?.userFunctions;
  if (!(functions instanceof Map)) {
    throw new PlanError(`pipeline module ${pipelineModule} (${STAGE_ENV.pipelineModule}) has no default export with userFunctions`);
  }
  const generators = module.default?.generators;
  return { functions, generators: generators instanceof Map ? (generators as ReadonlyMap<string, GeneratorFunction>) : new Map() };
}

/**
 * Names of the environment variables of a generator source's producer function
 * (functions/generator-producer.ts). It also reads {@link STAGE_ENV}'s `jobGraphPath`,
 * `stateTable` and `pipelineModule` (required: the generator lives there).
 */
export const PRODUCER_ENV = {
  /** The generator source the function produces. Required. */
  source: 'FLAMBDA_GENERATOR_SOURCE',
  /** The source's Kinesis stream. Required. */
  stream: 'FLAMBDA_GENERATOR_STREAM',
} as const;

/** A producer function's configuration, parsed from its environment. */
export interface ProducerEnvironment {
  /** Absolute path of the job graph file. */
  readonly jobGraphPath: string;
  readonly tableName: string;
  /** Absolute path of the pipeline module. */
  readonly pipelineModule: string;
  readonly source: string;
  readonly streamName: string;
}

/**
 * Parses a producer function's environment; relative paths are resolved against `baseDir`.
 *
 * @throws PlanError naming the missing variable.
 */
export function readProducerEnvironment(env: Env, baseDir: string = process.cwd()): ProducerEnvironment {
  const at = (path: string): string => (isAbsolute(path) ? path : resolve(baseDir, path));
  return {
    jobGraphPath: at(optional(env, STAGE_ENV.jobGraphPath) ?? DEFAULT_JOB_GRAPH_PATH),
    tableName: required(env, STAGE_ENV.stateTable),
    pipelineModule: at(required(env, STAGE_ENV.pipelineModule)),
    source: required(env, PRODUCER_ENV.source),
    streamName: required(env, PRODUCER_ENV.stream),
  };
}

/** Names of the environment variables of the heartbeat function. */
export const HEARTBEAT_ENV = {
  /** JSON array of the stream names to send heartbeats to. Required. */
  streams: 'FLAMBDA_HEARTBEAT_STREAMS',
} as const;

/**
 * The heartbeat function's stream names, from {@link HEARTBEAT_ENV.streams}.
 *
 * @throws PlanError naming the variable when it is missing or not a JSON array of names.
 */
export function readHeartbeatStreams(env: Env): string[] {
  const text = env[HEARTBEAT_ENV.streams];
  if (text === undefined || text.trim() === '') throw new PlanError(`${HEARTBEAT_ENV.streams} is not set: give a JSON array of stream names`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new PlanError(`${HEARTBEAT_ENV.streams} must be a JSON array of stream names (given ${JSON.stringify(text)})`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((s) => typeof s === 'string' && s.length > 0)) {
    throw new PlanError(`${HEARTBEAT_ENV.streams} must be a non-empty JSON array of stream names (given ${JSON.stringify(text)})`);
  }
  return parsed as string[];
}
