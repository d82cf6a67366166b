/**
 * Which declared signature of a user function a call takes, as Flink's type inference for a
 * function with `eval` overloads decides it: every argument must cast implicitly to its
 * parameter's type (Flink's `LogicalTypeCasts.supportsImplicitCast`), and of the signatures that
 * take the call the first one that needs no cast wins, else the first one (Flink's
 * OrInputTypeStrategy over the extracted signatures). Without a declaration each argument keeps
 * its own type, except that a DECIMAL too wide for a JS number is refused (see
 * {@link MAX_UNDECLARED_DECIMAL_PRECISION}).
 *
 * Plain data only: signatures travel in the job graph with the call.
 */
import type { LogicalType } from '../core/types.ts';
import type { Expr } from './expr.ts';
import { printExpr } from './expr-print.ts';
import { isExactNumeric, isIntegerType, isNested, isNumeric, sameType, typeName } from './expr-type-rules.ts';

/** One declared signature of a user function: its parameter types, in order. */
export interface UdfSignature {
  readonly params: readonly LogicalType[];
  /** The last parameter repeats (Java's `Double... d`): zero or more arguments of its type. */
  readonly varargs?: boolean;
}

/** An argument of a call, as the resolution sees it. */
export interface UdfArgument {
  readonly type: LogicalType;
  /** An untyped NULL literal, which casts implicitly to any type (Flink's NULL type). */
  readonly isNull?: boolean;
  /** How the argument reads in messages (`price`, `1.5`). */
  readonly text: string;
}

/** The arguments of a call as the resolution sees them: their types, NULL literals, their text. */
export function udfArguments(args: readonly Expr[], types: readonly LogicalType[]): UdfArgument[] {
  return args.map((a, i) => ({ type: types[i]!, text: printExpr(a), ...(a.kind === 'literal' && a.value === null ? { isNull: true } : {}) }));
}

/** The parameter types a call resolved to, or why the call is refused (and at which argument). */
export type UdfResolution = { readonly ok: true; readonly params: readonly LogicalType[] } | { readonly ok: false; readonly message: string; readonly argument?: number };

/**
 * The widest DECIMAL an undeclared parameter takes: it arrives as a JS number, and a double holds
 * every decimal of at most 15 significant digits exactly enough to print it back (DBL_DIG).
 */
export const MAX_UNDECLARED_DECIMAL_PRECISION = 15;

/**
 * Whether Flink casts a value of type `from` implicitly to `to` (a widening or a generalization,
 * never a parse): INT → BIGINT; any number → DECIMAL or DOUBLE; a string to any string type;
 * TIMESTAMP → DATE or TIME; ROW, ARRAY and MAP to the same kind whose parts cast implicitly
 * (field names aside); otherwise only the same type root. (Flink also casts between TIMESTAMP and
 * TIMESTAMP_LTZ implicitly, in the session time zone; here a user function's parameter takes
 * neither for the other, so that no call depends on the zone unseen: CAST it.)
 */
export function implicitlyCastable(from: LogicalType, to: LogicalType): boolean {
  if (isNested(from) || isNested(to)) {
    if (from.root !== to.root) return false;
    if (from.root === 'ARRAY') return implicitlyCastable(from.element!, to.element!);
    if (from.root === 'MAP') return implicitlyCastable(from.key!, to.key!) && implicitlyCastable(from.value!, to.value!);
    const a = from.fields ?? [];
    const b = to.fields ?? [];
    return a.length === b.length && a.every((f, i) => implicitlyCastable(f.type, b[i]!.type));
  }
  switch (to.root) {
    case 'TINYINT':
      return from.root === 'TINYINT';
    case 'SMALLINT':
      return from.root === 'TINYINT' || from.root === 'SMALLINT';
    case 'INT':
      return from.root === 'TINYINT' || from.root === 'SMALLINT' || from.root === 'INT';
    case 'BIGINT':
      return isIntegerType(from);
    case 'FLOAT':
      // Flink's LogicalTypeCasts: FLOAT implicitly from the exact numerics and itself.
      return isExactNumeric(from) || from.root === 'FLOAT';
    case 'DECIMAL':
    case 'DOUBLE':
      return isNumeric(from);
    case 'DATE':
    case 'TIME':
      return from.root === to.root || from.root === 'TIMESTAMP';
    default:
      return from.root === to.root;
  }
}

/** `sum_of(INT, INT)`, `sum_of(DOUBLE...)`. */
export function formatUdfSignature(name: string, signature: UdfSignature): string {
  const params = signature.params.map(typeName);
  if (signature.varargs === true && params.length > 0) params[params.length - 1] += '...';
  return `${name}(${params.join(', ')})`;
}

/** The parameter type of each of `count` arguments under `signature`, or undefined when the count does not fit. */
function paramsFor(signature: UdfSignature, count: number): LogicalType[] | undefined {
  const { params } = signature;
  if (signature.varargs !== true || params.length === 0) return count === params.length ? [...params] : undefined;
  const fixed = params.length - 1;
  if (count < fixed) return undefined;
  return Array.from({ length: count }, (_, i) => params[Math.min(i, fixed)]!);
}

function argumentCount(signature: UdfSignature): string {
  const n = signature.varargs === true ? signature.params.length - 1 : signature.params.length;
  const what = `${n} argument${n === 1 ? '' : 's'}`;
  return signature.varargs === true ? `at least ${what}` : what;
}

/** The first argument that does not cast implicitly to its parameter, or undefined. */
function firstMismatch(args: readonly UdfArgument[], params: readonly LogicalType[]): number | undefined {
  const i = args.findIndex((a, j) => a.isNull !== true && !implicitlyCastable(a.type, params[j]!));
  return i < 0 ? undefined : i;
}

/** Where `type` (or a part of it) is a DECIMAL too wide for an undeclared parameter, that DECIMAL. */
function tooWideDecimal(type: LogicalType): LogicalType | undefined {
  if (type.root === 'DECIMAL') return (type.precision ?? 10) > MAX_UNDECLARED_DECIMAL_PRECISION ? type : undefined;
  if (type.root === 'ARRAY') return tooWideDecimal(type.element!);
  if (type.root === 'MAP') return tooWideDecimal(type.key!) ?? tooWideDecimal(type.value!);
  if (type.root === 'ROW') {
    for (const f of type.fields ?? []) {
      const wide = tooWideDecimal(f.type);
      if (wide !== undefined) return wide;
    }
  }
  return undefined;
}

/**
 * The parameter types a call of user function `name` with `args` takes: under the declared
 * `signatures` (undefined: none declared), or why the call is refused — naming the function, the
 * argument and both types — with the index of the argument to point at, when there is one.
 */
export function resolveUdfCall(name: string, signatures: readonly UdfSignature[] | undefined, args: readonly UdfArgument[]): UdfResolution {
  if (signatures === undefined) {
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      const wide = arg.isNull === true ? undefined : tooWideDecimal(arg.type);
      if (wide === undefined) continue;
      const message =
        `argument ${i + 1} of ${name} (${arg.text}) is ${typeName(arg.type)}, which a JS number cannot hold exactly (more than ${MAX_UNDECLARED_DECIMAL_PRECISION} digits): ` +
        `declare the parameter types of ${name} — DOUBLE for a number, ${typeName(wide)} for the exact value as a string`;
      return { ok: false, message, argument: i };
    }
    return { ok: true, params: args.map((a) => a.type) };
  }
  let closest: LogicalType[] | undefined;
  for (const signature of signatures) {
    const params = paramsFor(signature, args.length);
    if (params === undefined || firstMismatch(args, params) !== undefined) continue;
    // Flink takes the first signature the arguments fit exactly, else the first they cast to.
    if (args.every((a, i) => a.isNull !== true && sameType(a.type, params[i]!))) return { ok: true, params };
    closest ??= params;
  }
  if (closest !== undefined) return { ok: true, params: closest };
  return mismatch(name, signatures, args);
}

/** Why no signature takes the call: each signature's reason, pointing at an argument when they agree on one. */
function mismatch(name: string, signatures: readonly UdfSignature[], args: readonly UdfArgument[]): UdfResolution {
  const reasons = signatures.map((signature) => {
    const shown = formatUdfSignature(name, signature);
    const params = paramsFor(signature, args.length);
    if (params === undefined) return { shown, arity: `takes ${argumentCount(signature)}, not ${args.length}`, argument: undefined, param: undefined };
    const i = firstMismatch(args, params)!;
    return { shown, arity: undefined, argument: i, param: params[i]! };
  });
  const argumentText = (i: number, param: LogicalType): string => `argument ${i + 1} of ${name} (${args[i]!.text}) is ${typeName(args[i]!.type)}, which does not cast implicitly to ${typeName(param)}`;
  const first = reasons[0]!;
  const argument = first.argument !== undefined && reasons.every((r) => r.argument === first.argument) ? first.argument : undefined;
  const at = argument !== undefined ? { argument } : {};
  if (reasons.length === 1) {
    const message = first.arity !== undefined ? `${first.shown} ${first.arity}` : `${argumentText(first.argument!, first.param!)}, the declared parameter type of ${first.shown}`;
    return { ok: false, message, ...at };
  }
  const types = args.map((a) => (a.isNull === true ? 'NULL' : typeName(a.type))).join(', ');
  const each = reasons.map((r) => `${r.shown} ${r.arity ?? `— ${argumentText(r.argument!, r.param!)}`}`);
  return { ok: false, message: `no declared signature of ${name} takes (${types}): ${each.join('; ')}`, ...at };
}
