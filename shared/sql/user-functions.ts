/**
 * The user functions visible while one script compiles (`CREATE FUNCTION`, or given to
 * compileSql). Compilation is synchronous and one script at a time, so the expression compiler
 * reads them here rather than threading them through every scope.
 */
import type { AggregateFunction, ScalarFunction, TableFunction, UserFunctionDefinition } from '../api/user-functions.ts';
import type { Schema } from '../core/types.ts';
import type { UserAggregateRef } from '../operators/aggregate/agg-call.ts';
import type { Pipeline } from '../api/pipeline.ts';
import type { Expr } from '../plan/expr.ts';
import { inferType } from '../plan/expr-types.ts';
import { resolveUdfCall, udfArguments, type UdfSignature } from '../plan/udf-signature.ts';
import type { SqlExpr } from './ast.ts';
import { SqlError, atPosition, type SqlPosition } from './errors.ts';

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
  const ref: UserAggregateRef = {
    ref: current.pipeline.registerFunction(fn as AggregateFunction as never),
    name: name.toLowerCase(),
    resultType: fn.resultType,
    ...(fn.signatures !== undefined ? { input: fn.signatures } : {}),
  };
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

/**
 * Checks a call of user function `name` — `call`'s arguments, compiled to `args` over `schema` —
 * against its declared `signatures` (undefined: none), as the operators will resolve it
 * (shared/plan/udf-signature.ts).
 *
 * @throws SqlError at the argument no signature takes (or at the call), naming the function, the
 *   argument and both types.
 */
export function checkUserCall(name: string, call: { readonly pos: SqlPosition; readonly args: readonly SqlExpr[] }, signatures: readonly UdfSignature[] | undefined, args: readonly Expr[], schema: Schema): void {
  const types = args.map((a, i) => atPosition(call.args[i]?.pos ?? call.pos, () => inferType(a, schema)));
  const resolution = resolveUdfCall(name, signatures, udfArguments(args, types));
  if (!resolution.ok) throw new SqlError(resolution.argument === undefined ? call.pos : (call.args[resolution.argument]?.pos ?? call.pos), resolution.message);
}
