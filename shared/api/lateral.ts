/**
 * Joins with a table function (Flink's Correlate): every input row with each row the function
 * gives for it (`CROSS JOIN LATERAL TABLE(f(x))`), or, for a LEFT join, the input row padded with
 * NULLs when the function gives none (`LEFT JOIN LATERAL TABLE(f(x)) ON TRUE`). One flat Map
 * node: no state, no exchange; each output row keeps its input row's kind, so it works on
 * updating streams too.
 */
import { PlanError } from '../core/errors.ts';
import type { Field, Row, Value } from '../core/types.ts';
import type { Pipeline } from './pipeline.ts';
import type { Stream } from './stream.ts';
import { tableFunctionValues, type TableFunction } from './user-functions.ts';

/** How a lateral join reads its function's arguments and names its columns. */
export interface CorrelateOptions {
  /** `inner` (the default) drops an input row the function gives no rows for; `left` pads it. */
  readonly type?: 'inner' | 'left';
  /** The output names of the function's columns (SQL `AS T(a, b)`); its declared names by default. */
  readonly columns?: readonly string[];
  /** Shown in EXPLAIN, e.g. `split(line)`. */
  readonly display?: string;
}

/**
 * `input` joined with `fn(args(row))`.
 *
 * @throws PlanError for a column list of the wrong length or a column name the input has.
 */
export function correlate<T>(input: Stream<T>, fn: TableFunction, args: readonly ((row: Row) => Value)[], options: CorrelateOptions = {}): Stream<Row> {
  const names = options.columns ?? fn.columns.map((c) => c.name);
  if (names.length !== fn.columns.length) {
    throw new PlanError(`table function ${fn.name} has ${fn.columns.length} columns (${fn.columns.map((c) => c.name).join(', ')}); ${names.length} names were given`);
  }
  const inputNames = new Set(input.schema.fields.map((f) => f.name));
  for (const name of names) if (inputNames.has(name)) throw new PlanError(`table function column '${name}' has the name of an input column: rename it (AS T(other_name))`);
  const left = options.type === 'left';
  const fields: Field[] = [...input.schema.fields, ...fn.columns.map((c, i) => ({ name: names[i] as string, type: c.type }))];
  const pad = Object.fromEntries(names.map((n) => [n, null]));
  const apply = (row: Row): Row[] => {
    const out: Row[] = [];
    const result = fn.eval(...args.map((a) => a(row)));
    for (const r of result ?? []) {
      const values = tableFunctionValues(fn, r);
      const joined: Record<string, Value> = { ...row };
      names.forEach((n, i) => (joined[n] = values[i] ?? null));
      out.push(joined);
    }
    if (out.length === 0 && left) out.push({ ...row, ...pad });
    return out;
  };
  const pipeline: Pipeline = input.pipeline;
  const ref = pipeline.registerFunction(apply as never);
  return input.derive<Row>({
    type: 'Map',
    id: pipeline.nextId(),
    input: input.node,
    ref,
    display: `${options.display ?? fn.name}${left ? ' (LEFT)' : ''}`,
    flat: true,
    schema: { fields },
  });
}
