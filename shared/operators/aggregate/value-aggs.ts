/**
 * LISTAGG, FIRST_VALUE and LAST_VALUE with retraction (Flink's `ListAggWithRetractAggFunction`,
 * `FirstValueWithRetractAggFunction`, `LastValueWithRetractAggFunction`): the accumulator keeps
 * the non-null values in arrival order, so that retracting one (the earliest equal value, as an
 * update's `-U` names the row it replaces) leaves exactly what remains.
 */
import type { Value } from '../../core/types.ts';
import type { AggFunction } from './agg-function.ts';
import { compareValues } from './value-order.ts';

/** Non-null values in arrival order. */
export interface ValueListAccumulator {
  values: Value[];
}

function valueList(getValue: (values: readonly Value[]) => Value): AggFunction<ValueListAccumulator> {
  return {
    createAccumulator: () => ({ values: [] }),
    accumulate(acc, value) {
      if (value !== null) acc.values.push(value);
    },
    retract(acc, value) {
      if (value === null) return;
      const i = acc.values.findIndex((v) => compareValues(v, value) === 0);
      if (i >= 0) acc.values.splice(i, 1);
    },
    getValue: (acc) => (acc.values.length === 0 ? null : getValue(acc.values)),
  };
}

/** FIRST_VALUE(x): the earliest non-null value still accumulated. */
export const firstValueFunction = valueList((values) => values[0] ?? null);

/** LAST_VALUE(x): the latest non-null value still accumulated. */
export const lastValueFunction = valueList((values) => values[values.length - 1] ?? null);

/** LISTAGG(x [, separator]): the values in arrival order joined by the separator (`,` by default). */
export function listAggFunction(separator: string): AggFunction<ValueListAccumulator> {
  return valueList((values) => values.map(String).join(separator));
}
