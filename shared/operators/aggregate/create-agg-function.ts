/**
 * Picks the implementation of an aggregate call from its function name and argument type.
 */
import { PlanError } from '../../core/errors.ts';
import type { LogicalType } from '../../core/types.ts';
import type { AggOptions } from './agg-call.ts';
import type { AggFunction, AggFunctionName } from './agg-function.ts';
import { avgFunction } from './avg.ts';
import { countFunction, countStarFunction } from './count.ts';
import { maxFunction, minFunction } from './min-max.ts';
import { aggResultType } from './result-type.ts';
import { singleValueFunction } from './single-value.ts';
import { sumFunction } from './sum.ts';
import { firstValueFunction, lastValueFunction, listAggFunction } from './value-aggs.ts';
import { arrayAggFunction, collectFunction, jsonArrayAggFunction, jsonObjectAggFunction } from './collection-aggs.ts';
import { percentileFunction } from './percentile.ts';
import { decimalVarianceFunction, varianceFunction } from './variance.ts';

/**
 * The aggregate function for `fn(argType)`, or COUNT(*) when `argType` is undefined.
 *
 * @param call How the call reads in the query, for error messages.
 * @throws PlanError for the combinations {@link aggResultType} rejects.
 */
export function createAggFunction(fn: AggFunctionName, argType: LogicalType | undefined, call?: string, options: AggOptions = {}): AggFunction<unknown> {
  aggResultType(fn, argType, call, options);
  if (fn === 'COUNT') return argType === undefined ? countStarFunction : countFunction;
  // aggResultType has rejected a missing argument for every other function.
  const type = argType!;
  switch (fn) {
    case 'SUM':
      return sumFunction(type);
    case 'AVG':
      return avgFunction(type);
    case 'MIN':
      return minFunction;
    case 'MAX':
      return maxFunction;
    case 'LISTAGG':
      return listAggFunction(options.separator ?? ',');
    case 'FIRST_VALUE':
      return firstValueFunction;
    case 'LAST_VALUE':
      return lastValueFunction;
    case 'VAR_POP':
    case 'VAR_SAMP':
    case 'STDDEV_POP':
    case 'STDDEV_SAMP':
      return type.root === 'DECIMAL' ? decimalVarianceFunction(fn, type) : varianceFunction(fn, type);
    case 'COLLECT':
      return collectFunction;
    case 'ARRAY_AGG':
      return arrayAggFunction(options.onNull === 'ABSENT');
    case 'JSON_ARRAYAGG':
      return jsonArrayAggFunction((options.onNull ?? 'ABSENT') === 'ABSENT');
    case 'JSON_OBJECTAGG':
      return jsonObjectAggFunction(options.onNull === 'ABSENT');
    case 'PERCENTILE':
      return percentileFunction(type, options.percentages!);
    case 'SINGLE_VALUE':
      return singleValueFunction(call);
    case 'USER':
      throw new PlanError(`a user aggregate function comes from the pipeline's registry${call === undefined ? '' : ` (${call})`}`);
  }
}
