/**
 * The registry of built-in scalar functions beyond the operators expr-types.ts and
 * expr-compile.ts implement themselves: strings (expr-fn-strings.ts), time (expr-fn-time.ts),
 * numbers and comparisons (expr-fn-math.ts), JSON (expr-fn-json.ts) and ROW / ARRAY / MAP
 * (expr-fn-collections.ts), bytes (expr-fn-binary.ts).
 *
 * Dependencies point one way: expr-types.ts and expr-compile.ts import this registry, the registry
 * imports the function tables, and the tables import the type rules from expr-type-rules.ts
 * (lint's import-x/no-cycle keeps it so).
 */
import type { Builtin } from './expr-fn.ts';
import { ARRAY_FUNCTIONS } from './expr-fn-arrays.ts';
import { BINARY_FUNCTIONS } from './expr-fn-binary.ts';
import { COLLECTION_FUNCTIONS } from './expr-fn-collections.ts';
import { JSON_FUNCTIONS } from './expr-fn-json.ts';
import { MATH_FUNCTIONS } from './expr-fn-math.ts';
import { MORE_FUNCTIONS } from './expr-fn-more.ts';
import { RANDOM_FUNCTIONS } from './expr-fn-random.ts';
import { REGEXP_FUNCTIONS } from './expr-fn-regexp.ts';
import { STRING_FUNCTIONS } from './expr-fn-strings.ts';
import { TEXT_FUNCTIONS } from './expr-fn-text.ts';
import { TIME_FUNCTIONS } from './expr-fn-time.ts';

/**
 * Every built-in, by name. Built when the module loads: the function modules import only the
 * type rules (expr-type-rules.ts), never expr-types.ts, so they are fully loaded by now.
 */
const registry: ReadonlyMap<string, Builtin> = new Map(
  Object.entries({
    ...STRING_FUNCTIONS,
    ...TIME_FUNCTIONS,
    ...MATH_FUNCTIONS,
    ...MORE_FUNCTIONS,
    ...JSON_FUNCTIONS,
    ...COLLECTION_FUNCTIONS,
    ...REGEXP_FUNCTIONS,
    ...RANDOM_FUNCTIONS,
    ...TEXT_FUNCTIONS,
    ...ARRAY_FUNCTIONS,
    ...BINARY_FUNCTIONS,
  }),
);

/** The built-in function of that (canonical, upper-case) name. */
export function builtin(name: string): Builtin | undefined {
  return registry.get(name);
}

/** The names users call, for the list in "unknown function" errors. */
export function builtinNames(): string[] {
  return [...registry.keys()].filter((n) => !n.includes(' ') || n === 'IS DISTINCT FROM' || n === 'IS JSON');
}
