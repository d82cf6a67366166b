/**
 * Non-deterministic functions over updating inputs (Flink's "non-deterministic update" problem,
 * docs/dev/table/concepts/determinism): a `-U` or `-D` row must carry exactly the values of the
 * row it retracts, or a consumer that matches it against that row — a sink without a key, an
 * aggregate, a join — keeps a row that no longer exists. `RAND()` or `UUID()` evaluated again for
 * the retraction gives another value, and so does a function of the clock (`NOW()`,
 * `CURRENT_TIMESTAMP`, `LOCALTIMESTAMP`, `CURRENT_DATE`, `CURRENT_TIME`, `LOCALTIME`,
 * `CURRENT_ROW_TIMESTAMP()`, `UNIX_TIMESTAMP()`, and a `PROCTIME()` written into a result): the
 * page counts Calcite's dynamic functions as non-deterministic in streaming, where they are
 * evaluated per record, and its own example is `now()` over an updating join. Flink, by default
 * (`table.optimizer.non-deterministic-update-strategy` = IGNORE), lets the wrong result through;
 * Flambda refuses such a plan with an error naming the function (Flink's TRY_RESOLVE raises one
 * too), since it keeps no state that could replay the first value:
 *
 * - in a filter, any update or delete would be dropped or kept at random, so the input must be
 *   insert-only;
 * - in a projection, an input with `-U` rows is refused; an upsert input (`+I`/`+U`/`-D`, which
 *   consumers apply by key) is allowed, as each update simply gets a new value.
 *
 * Evaluate such a function on the insert-only input, before the aggregation or join.
 */
import { PlanError } from '../core/errors.ts';
import type { Call, Expr } from './expr.ts';
import { builtin } from './expr-builtins.ts';
import { printExpr } from './expr-print.ts';
import { canonicalFunctionName } from './expr-type-rules.ts';
import type { CalcNode, ChangelogMode } from './logical.ts';

function isNonDeterministic(call: Call): boolean {
  const marked = builtin(canonicalFunctionName(call.fn))?.nonDeterministic;
  return typeof marked === 'function' ? marked(call) : marked === true;
}

/** The first call of a non-deterministic built-in in `expr`, or undefined. */
export function nonDeterministicCall(expr: Expr): Expr | undefined {
  switch (expr.kind) {
    case 'call':
      if (isNonDeterministic(expr)) return expr;
      for (const a of expr.args) {
        const found = nonDeterministicCall(a);
        if (found) return found;
      }
      return undefined;
    case 'cast':
      return nonDeterministicCall(expr.expr);
    default:
      return undefined;
  }
}

/**
 * Checks a Calc's expressions against its input's changelog.
 *
 * @throws PlanError naming the function, the column or filter, and the changelog.
 */
export function checkDeterminism(node: CalcNode, mode: ChangelogMode): void {
  const insertOnly = mode.every((kind) => kind === '+I');
  if (insertOnly) return;
  const refuse = (call: Expr, where: string): never => {
    throw new PlanError(
      `${printExpr(call)} in ${where} of Calc #${node.id} is evaluated again for every update and retraction of its updating input ` +
        `(changes [${mode.join(', ')}]), so a retraction would not carry the value of the row it retracts (Flink's non-deterministic update problem): ` +
        'call it on the insert-only input, before the aggregation or join',
    );
  };
  const inFilter = node.condition === undefined ? undefined : nonDeterministicCall(node.condition);
  if (inFilter) refuse(inFilter, 'the filter');
  if (!mode.includes('-U')) return;
  for (const p of node.projection) {
    const call = nonDeterministicCall(p.expr);
    if (call) refuse(call, `column '${p.name}'`);
  }
}
