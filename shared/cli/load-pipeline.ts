/**
 * Loads a pipeline: a .ts or .js module whose default export is a `Pipeline` (or a function
 * returning one), or a Flink SQL script (.sql), compiled by shared/sql/ into the same Pipeline.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isAggregateFunction, isScalarFunction, isTableFunction, type UserFunctionDefinition } from '../api/user-functions.ts';
import { pathToFileURL } from 'node:url';
import { PlanError } from '../core/errors.ts';
import { Pipeline } from '../api/pipeline.ts';

/** Imports `file` and returns its pipeline, with errors that say what was expected; SQL warnings go to `onWarning`. */
export async function loadPipeline(file: string, onWarning?: (message: string) => void): Promise<Pipeline> {
  const { pipeline } = await loadPipelineWithOutputs(file, onWarning);
  if (pipeline === undefined) throw new PlanError(`${file}: the script has only EXPLAIN, SHOW and DESCRIBE statements: nothing to run`);
  return pipeline;
}

/** What {@link loadPipelineWithOutputs} loads. */
export interface LoadedPipeline {
  /** The job; undefined for a SQL script whose only outputs are EXPLAIN, SHOW and DESCRIBE statements. */
  readonly pipeline: Pipeline | undefined;
  /** What the script's EXPLAIN, SHOW and DESCRIBE statements print, in order (none for a module). */
  readonly outputs: readonly string[];
}

/**
 * {@link loadPipeline}, and what a SQL script's EXPLAIN, SHOW and DESCRIBE statements print
 * (as the SQL shell prints them, statement-outputs.ts), for `flambda run`, `local` and
 * `explain` to print before the job.
 */
export async function loadPipelineWithOutputs(file: string, onWarning?: (message: string) => void, onProgress?: (message: string) => void): Promise<LoadedPipeline> {
  const path = resolve(file);
  if (!existsSync(path)) throw new PlanError(`pipeline file not found: ${file}`);
  if (isSqlFile(path)) {
    // Loaded on demand: the SQL grammar is large and only SQL pipelines need it.
    const { compileSqlFile } = await import('../sql/compile-sql.ts');
    const program = compileSqlFile(path, { functions: await sqlUserFunctions(path) });
    for (const warning of program.warnings) onWarning?.(`${file}: ${warning}`);
    const outputs = program.outputs.length === 0 ? [] : await (await import('./statement-outputs.ts')).renderStatementOutputs(program, (line) => onProgress?.(`${file}: ${line}`));
    return { pipeline: program.sinks.length === 0 ? undefined : program.pipeline, outputs };
  }
  return { pipeline: await loadModule(file, path), outputs: [] };
}

async function loadModule(file: string, path: string): Promise<Pipeline> {
  if (!/\.(ts|mts|js|mjs)$/.test(path)) {
    throw new PlanError(`pipeline must be a .ts or .js module whose default export is a Pipeline, or a .sql script (given ${file})`);
  }
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (error) {
    if (error instanceof PlanError) throw new PlanError(`${file}: ${error.message}`, { cause: error });
    const message = (error as Error).message;
    if (/\.ts$/.test(path) && /require\(\) ES Module|ERR_REQUIRE_ESM|Cannot use import statement/.test(message)) {
      // tsx reads a .ts file as CommonJS unless its package says "type": "module"; our API is ESM.
      throw new PlanError(
        `cannot load ${file}: it is compiled as CommonJS because no package.json with "type": "module" encloses it; ` +
          `rename it to .mts, or add {"type": "module"} to a package.json in its directory`,
        { cause: error },
      );
    }
    throw new PlanError(`cannot load ${file}: ${message}`, { cause: error });
  }
  let exported = module.default;
  if (typeof exported === 'function' && !(exported instanceof Pipeline)) exported = (exported as () => unknown)();
  if (!(exported instanceof Pipeline)) {
    throw new PlanError(`${file} must default-export a Pipeline (export default pipeline), found ${describe(exported)}`);
  }
  return exported;
}

/**
 * Imports the modules of a script's `CREATE FUNCTION name AS 'module.ts#export'` statements,
 * relative to the script, and returns their exports by identifier.
 *
 * @throws PlanError for a module that does not load or an export that is not a scalarFunction()
 *   or tableFunction().
 */
export async function sqlUserFunctions(path: string): Promise<Map<string, UserFunctionDefinition>> {
  const { readScript } = await import('../sql/reader/read-script.ts');
  const out = new Map<string, UserFunctionDefinition>();
  let statements: ReturnType<typeof readScript>;
  try {
    statements = readScript(readFileSync(path, 'utf8'));
  } catch {
    return out; // the compiler reports the syntax error with its position
  }
  for (const stmt of statements) {
    if (stmt.k !== 'createFunction' || out.has(stmt.identifier)) continue;
    const [file, name = 'default'] = stmt.identifier.split('#');
    const modulePath = resolve(dirname(path), file ?? '');
    let module: Record<string, unknown>;
    try {
      module = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>;
    } catch (error) {
      throw new PlanError(`CREATE FUNCTION ${stmt.name}: cannot load '${stmt.identifier}' (${modulePath}): ${(error as Error).message}`, { cause: error });
    }
    const fn = module[name];
    if (!isScalarFunction(fn) && !isTableFunction(fn) && !isAggregateFunction(fn)) {
      throw new PlanError(`CREATE FUNCTION ${stmt.name}: export '${name}' of ${file} must be a scalarFunction(resultType, fn), tableFunction(columns, fn) or aggregateFunction(resultType, {…}) from flambda's API, found ${describe(fn)}`);
    }
    out.set(stmt.identifier, fn);
  }
  return out;
}

function describe(value: unknown): string {
  if (value === undefined) return 'no default export';
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'Object'})`;
  return `a ${typeof value}`;
}

/** Whether `file` is a Flink SQL script. */
export function isSqlFile(file: string): boolean {
  return /\.sql$/i.test(file);
}
