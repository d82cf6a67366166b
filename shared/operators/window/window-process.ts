/**
 * Full window functions (Flink's ProcessWindowFunction): the window keeps all its rows and a
 * user function turns them into result rows on every firing. Same assigners, triggers, lateness
 * and emission rules as the window aggregate (./window-operator.ts).
 */
import { PlanError } from '../../core/errors.ts';
import type { Schema } from '../../core/types.ts';
import type { Operator } from '../operator.ts';
import { processContents, type WindowProcessFunction } from './window-contents.ts';
import { createWindowOperator } from './window-operator.ts';
import { onWindowClock, resolveTiming, type WindowTimingSpec } from './window-spec.ts';

/** The spec of a full-window-function operator: the window options plus the function's output schema. */
export interface WindowProcessSpec extends WindowTimingSpec {
  /** Schema of the rows the function returns (its columns identify changed rows on re-firing). */
  readonly outputSchema: Schema;
}

/**
 * Creates the operator. `fn(key, window, rows)` gets the group columns as a row, the window and
 * every row of the window in arrival order, and returns the window's result rows. On a
 * re-firing the new rows are compared with the previous ones position by position (see
 * ./window-operator.ts), so a function that keeps its rows in a stable order yields minimal
 * updates.
 *
 * @throws PlanError naming the bad value for an invalid window spec (see
 *   ./window-aggregate.ts) or an output schema without columns.
 */
export function createWindowProcessOperator(spec: WindowProcessSpec, inputSchema: Schema, fn: WindowProcessFunction): Operator {
  const timing = resolveTiming(spec, inputSchema);
  if (spec.outputSchema.fields.length === 0) throw new PlanError('The output schema of a window process function has no columns');
  const operator = createWindowOperator({
    assigner: timing.assigner,
    trigger: timing.trigger,
    eventTime: timing.eventTime,
    timeColumn: spec.window.timeColumn,
    groupBy: spec.groupBy,
    allowedLatenessMs: timing.allowedLatenessMs,
    lateOutputTag: timing.lateOutputTag,
    generateUpdateBefore: spec.generateUpdateBefore,
    outputNames: spec.outputSchema.fields.map((f) => f.name),
    contents: processContents(
      fn,
      spec.groupBy,
      inputSchema.fields.map((f) => f.name),
    ),
  });
  return onWindowClock(operator, timing, spec);
}
