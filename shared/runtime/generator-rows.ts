/**
 * What every runtime does the same with a generator source (VALUES, datagen, a TypeScript
 * `generator`): read its rows from a given index on, name where a row came from, and refuse one
 * that never ends where the input must be bounded.
 *
 * Rows are numbered from 1 in positions, like the lines of a file: `values_1#3` is the third row
 * of the first VALUES, `datagen:orders#17` the 17th row of the datagen table `orders`. The AWS
 * runtime uses the position as the Kinesis partition key of the row's record, so a dead letter
 * names it, and a deployed producer that resumes after a crash finds the rows it already put.
 */
import { PlanError } from '../core/errors.ts';
import type { Row } from '../core/types.ts';
import type { GeneratorFunction } from '../api/pipeline.ts';
import type { JobSource } from '../plan/job-graph.ts';

/**
 * The rows of a generator from index `from` (0-based) on: a seekable generator starts there
 * itself; any other is read from its start and the rows before `from` are skipped.
 */
export function* generatedRows(generator: GeneratorFunction, from = 0): Generator<Row> {
  if (generator.seekable === true) {
    yield* generator({ shard: 0, parallelism: 1, from });
    return;
  }
  let index = 0;
  for (const row of generator({ shard: 0, parallelism: 1 })) {
    if (index++ >= from) yield row;
  }
}

/**
 * What a generator source's positions start with: the source name when it already says what
 * generates it (`values_1`), else the generator's name and the source (`datagen:orders`).
 */
export function generatorLabel(source: Pick<JobSource, 'name' | 'connector'>): string {
  const display = source.connector.type === 'generator' ? source.connector.display : source.connector.type;
  return source.name.startsWith(display) ? source.name : `${display}:${source.name}`;
}

/** The position of row `index` (0-based) of a generator: `<label>#<index + 1>`. */
export function generatorPosition(label: string, index: number): string {
  return `${label}#${index + 1}`;
}

/** The row index (0-based) of a generator position of `label`, or undefined when it is not one. */
export function generatorIndex(label: string, position: string): number | undefined {
  if (!position.startsWith(`${label}#`)) return undefined;
  const text = position.slice(label.length + 1);
  return /^[1-9]\d*$/.test(text) ? Number(text) - 1 : undefined;
}

/**
 * Throws when `source` is a generator that never ends (a datagen table without
 * `number-of-rows`): `runtime` (`flambda run`, `flambda local`) reads bounded sources only. Flink
 * would run it for ever; a deployed producer does (at its `rows-per-second`).
 *
 * @throws PlanError naming the source and the option that bounds it.
 */
export function requireBoundedGenerator(source: Pick<JobSource, 'name' | 'connector'>, runtime: string): void {
  const c = source.connector;
  if (c.type !== 'generator' || c.unbounded !== true) return;
  const fix =
    c.display === 'datagen'
      ? `set 'number-of-rows' in its WITH options (or 'fields.<column>.end' of a sequence column)`
      : 'give it a generator that ends';
  throw new PlanError(
    `source '${source.name}' is unbounded (${c.display === 'datagen' ? "a datagen table without 'number-of-rows'" : 'its generator never ends'}); ` +
      `${runtime} reads bounded sources only: ${fix}. Deployed with StreamPipeline, a producer puts its rows at ${c.rowsPerSecond ?? '?'} rows per second for ever`,
  );
}
