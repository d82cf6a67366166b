/**
 * The pipeline module of a SQL pipeline with user functions (`CREATE FUNCTION f AS
 * 'module.ts#export'`) or generator sources (VALUES, datagen): the stage functions call user
 * functions by the references the job graph names (`udf_1`, …), and the producer functions
 * generators (`gen_1`, …), which live in the registries of the Pipeline that compiled the script. This
 * module is written at synth time and bundled into every stage function (as a TypeScript
 * pipeline module is): it imports the script's function modules and compiles the same script
 * with them, so its default export's `userFunctions` and `generators` carry the same
 * references, since the compiler registers them in the same order.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readScript } from '../../shared/sql/reader/read-script.ts';
import { PROJECT_ROOT } from './stage-bundling.ts';

/** The distinct `module.ts#export` identifiers of a script's CREATE FUNCTION statements. */
export function sqlFunctionIdentifiers(sql: string): string[] {
  return [...new Set(readScript(sql).flatMap((s) => (s.k === 'createFunction' ? [s.identifier] : [])))];
}

/**
 * Writes the pipeline module of `sql` (compiled under `name`, its function modules resolved
 * against `scriptDir`) to a synth-time file and returns its path; undefined when the script
 * declares no functions and reads no generator source (`hasGenerators`: VALUES, datagen, whose
 * producer functions take their generators from the module).
 */
export function writeSqlPipelineModule(sql: string, name: string, scriptDir: string, hasGenerators = false): string | undefined {
  const identifiers = sqlFunctionIdentifiers(sql);
  if (identifiers.length === 0 && !hasGenerators) return undefined;
  const imports = identifiers.map((id, i) => {
    const [file = '', exported = 'default'] = id.split('#');
    return { id, line: `import * as m${i} from ${JSON.stringify(resolve(scriptDir, file))};`, value: `m${i}[${JSON.stringify(exported)}]` };
  });
  const text = [
    '// Generated at synth time by infra/lib/sql-pipeline-module.ts: the SQL pipeline with its user functions and generators.',
    `import { compileSql } from ${JSON.stringify(join(PROJECT_ROOT, 'shared/sql/compile-sql.ts'))};`,
    ...imports.map((i) => i.line),
    `const functions = new Map(${imports.length === 0 ? '' : `[${imports.map((i) => `[${JSON.stringify(i.id)}, ${i.value}]`).join(', ')}]`});`,
    `export default compileSql(${JSON.stringify(sql)}, { name: ${JSON.stringify(name)}, functions }).pipeline;`,
    '',
  ].join('\n');
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'flambda-cdk-sql', hash);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'sql-pipeline.ts');
  writeFileSync(path, text);
  return path;
}
