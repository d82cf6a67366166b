/**
 * Result types of the built-in aggregate functions, following Flink's type inference
 * (`FlinkSqlOperatorTable` / `LogicalTypeMerging.findSumAggType` / `findAvgAggType`).
 */
import { PlanError } from '../../core/errors.ts';
import { formatType, MAX_DECIMAL_PRECISION } from '../../core/type-parse.ts';
import type { LogicalType, TypeRoot } from '../../core/types.ts';
import type { AggOptions } from './agg-call.ts';
import type { AggFunctionName } from './agg-function.ts';

/** Argument types SUM and AVG accept. */
const NUMERIC: ReadonlySet<TypeRoot> = new Set<TypeRoot>(['TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'FLOAT', 'DOUBLE', 'DECIMAL']);

const NUMERIC_NAMES = 'TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE or DECIMAL';

/** Flink's minimum scale of an AVG over DECIMAL (`findAvgAggType`: DECIMAL(38, max(6, s))). */
const AVG_MIN_DECIMAL_SCALE = 6;

/**
 * The result type of `fn(arg)`, or of COUNT(*) when `argType` is undefined.
 *
 * - COUNT → BIGINT NOT NULL (a count is never NULL, even of an empty group);
 * - SUM keeps the argument type (TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE; wrapping as
 *   Flink's ByteSumAggFunction … do), SUM(DECIMAL(p, s)) → DECIMAL(38, s);
 * - MIN/MAX, FIRST_VALUE/LAST_VALUE, SINGLE_VALUE → the argument type;
 * - AVG of an integer type → that type (truncating), AVG(FLOAT) → FLOAT, AVG(DOUBLE) → DOUBLE,
 *   AVG(DECIMAL(p, s)) → DECIMAL(38, max(6, s)).
 *
 * All but COUNT are nullable: they are NULL when no non-null value was aggregated.
 *
 * @param call How the call reads in the query, e.g. `SUM(name) AS total`, for the error message.
 * @throws PlanError for an unsupported argument type or a missing argument.
 */
export function aggResultType(fn: AggFunctionName, argType: LogicalType | undefined, call?: string, options: AggOptions = {}): LogicalType {
  const where = call === undefined ? '' : ` in ${call}`;
  if (fn === 'COUNT') return { root: 'BIGINT', nullable: false };
  if (argType === undefined) throw new PlanError(`${fn} requires an argument${where}; only COUNT accepts *`);
  const unsupported = (accepted: string): PlanError =>
    new PlanError(`${fn}(${formatType(argType)}) is not supported${where}: ${fn} accepts ${accepted}`);
  switch (fn) {
    case 'MIN':
    case 'MAX':
      return { ...argType, nullable: true };
    case 'SUM':
      if (!NUMERIC.has(argType.root)) throw unsupported(NUMERIC_NAMES);
      if (argType.root === 'DECIMAL') {
        return { root: 'DECIMAL', nullable: true, precision: MAX_DECIMAL_PRECISION, scale: argType.scale ?? 0 };
      }
      return { root: argType.root, nullable: true };
    case 'AVG':
      if (!NUMERIC.has(argType.root)) throw unsupported(NUMERIC_NAMES);
      if (argType.root === 'DECIMAL') {
        // Flink divides DECIMAL(38, s) by the BIGINT count, i.e. DECIMAL(20, 0); its division
        // type rule then lands on DECIMAL(38, max(6, s)).
        const scale = Math.max(AVG_MIN_DECIMAL_SCALE, argType.scale ?? 0);
        return { root: 'DECIMAL', nullable: true, precision: MAX_DECIMAL_PRECISION, scale };
      }
      return { root: argType.root, nullable: true };
    case 'LISTAGG':
      if (argType.root !== 'STRING') throw unsupported('STRING (CAST the argument)');
      return { root: 'STRING', nullable: true };
    case 'FIRST_VALUE':
    case 'LAST_VALUE':
    case 'SINGLE_VALUE':
      return { ...argType, nullable: true };
    case 'VAR_POP':
    case 'VAR_SAMP':
    case 'STDDEV_POP':
    case 'STDDEV_SAMP':
      // Flink casts the computation back to the AVG type of the argument: an INT argument gives
      // an INT, a DECIMAL(p, s) one DECIMAL(38, max(6, s)).
      if (!NUMERIC.has(argType.root)) throw unsupported(NUMERIC_NAMES);
      if (argType.root === 'DECIMAL') return { root: 'DECIMAL', nullable: true, precision: MAX_DECIMAL_PRECISION, scale: Math.max(AVG_MIN_DECIMAL_SCALE, argType.scale ?? 0) };
      return { root: argType.root, nullable: true };
    case 'COLLECT':
      // Never NULL: a group of NULLs collects the empty multiset.
      return { root: 'MULTISET', nullable: false, element: argType };
    case 'ARRAY_AGG':
      return { root: 'ARRAY', nullable: true, element: options.onNull === 'ABSENT' ? { ...argType, nullable: false } : argType };
    case 'JSON_ARRAYAGG':
      // The argument is the value's JSON text (the SQL front end serializes it, as Flink's planner).
      if (argType.root !== 'STRING') throw unsupported('the JSON text of its value');
      return { root: 'STRING', nullable: false };
    case 'JSON_OBJECTAGG':
      if (argType.root !== 'ROW' || argType.fields?.length !== 2 || argType.fields.some((f) => f.type.root !== 'STRING')) throw unsupported('ROW(key, JSON text of the value)');
      return { root: 'STRING', nullable: false };
    case 'PERCENTILE': {
      const value = argType.root === 'ROW' ? argType.fields?.[0]?.type : argType;
      if (value === undefined || !NUMERIC.has(value.root)) throw unsupported(`${NUMERIC_NAMES} (and a frequency)`);
      if (options.percentages === undefined) throw new PlanError(`PERCENTILE needs a percentage${where}`);
      const double: LogicalType = { root: 'DOUBLE', nullable: true };
      return typeof options.percentages === 'number' ? double : { root: 'ARRAY', nullable: true, element: double };
    }
    case 'USER':
      throw new PlanError(`a user aggregate function's result type is its declaration${where}`);
    default: {
      const unknown: never = fn;
      throw new PlanError(`Unknown aggregate function ${String(unknown)}${where}`);
    }
  }
}
