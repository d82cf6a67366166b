/**
 * The user functions visible while one script compiles (`CREATE FUNCTION`, or given to
 * compileSql). Compilation is synchronous and one script at a time, so the expression compiler
 * reads them here rather than threading them through every scope.
 */
import type { AggregateFunction, ScalarFunction, TableFunction, UserFunctionDefinition } from '../api/user-functions.ts';
import type { UserAggregateRef } from '../operators/aggregate/agg-call.ts';
import type { Pipeline } from '../api/pipeline.ts';

/** The functions of the script being compiled, by upper-case name, and the pipeline they register into. */
let current: { readonly functions: Map<string, UserFunctionDefinition>; readonly pipeline: Pipeline; readonly aggregateRefs: Map<string, UserAggregateRef> } | undefined;

/** Runs `body` with `functions` visible to the expression compiler. */
export function withUserFunctions<T>(functions: Map<string, UserFunctionDefinition>, pipeline: Pipeline, body: () => T): T {
  const saved = current;
  current = { functions, pipeline, aggregateRefs: new Map() };
  try {
    return body();
  } finally {
    current = saved;
  }
}

/** The scalar user function called `name` in the script being compiled, and its pipeline. */
export function userFunction(name: string): { readonly fn: ScalarFunction; readonly pipeline: Pipeline } | undefined {
  const fn = current?.functions.get(name.toUpperCase());
  return fn?.kind === 'scalar' && current ? { fn, pipeline: current.pipeline } : undefined;
}

/** The table user function called `name` in the script being compiled, and its pipeline. */
export function userTableFunction(name: string): { readonly fn: TableFunction; readonly pipeline: Pipeline } | undefined {
  const fn = current?.functions.get(name.toUpperCase());
  return fn?.kind === 'table' && current ? { fn, pipeline: current.pipeline } : undefined;
}

/**
 * The aggregate user function called `name` in the script being compiled, registered once in
 * the pipeline's function registry (the operators find it there by reference).
 */
export function userAggregate(name: string): UserAggregateRef | undefined {
  const fn = current?.functions.get(name.toUpperCase());
  if (fn?.kind !== 'aggregate' || !current) return undefined;
  const known = current.aggregateRefs.get(name.toUpperCase());
  if (known) return known;
  const ref: UserAggregateRef = { ref: current.pipeline.registerFunction(fn as AggregateFunction as never), name: name.toLowerCase(), resultType: fn.resultType };
  current.aggregateRefs.set(name.toUpperCase(), ref);
  return ref;
}

/** The aggregate user function called `name` itself (its definition), or undefined. */
export function userAggregateDefinition(name: string): AggregateFunction | undefined {
  const fn = current?.functions.get(name.toUpperCase());
  return fn?.kind === 'aggregate' ? fn : undefined;
}

/** Whether `name` is an aggregate user function of the script being compiled. */
export function isUserAggregateName(name: string): boolean {
  return current?.functions.get(name.toUpperCase())?.kind === 'aggregate';
}
