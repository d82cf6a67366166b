/**
 * Probe key values → lookup key values. The probe and dimension key columns may have different
 * but comparable types (as SQL compares INT with BIGINT or DECIMAL); each probe value is converted
 * exactly into the dimension column's representation so that it encodes like the stored value.
 * A value that cannot equal any value of the dimension column (1.5 against an INT column, a
 * DECIMAL with more fraction digits than the column's scale) is a definite miss and is not
 * looked up at all.
 */
import { PlanError, RecordError } from '../core/errors.ts';
import { formatDecimal, pow10 } from '../core/decimal.ts';
import { formatType } from '../core/type-parse.ts';
import type { Field, TypeRoot, Value } from '../core/types.ts';
import { exactDecimal, showValue } from './dimension-values.ts';

/** Marks a probe value that no dimension value can equal. */
export const NO_MATCH: unique symbol = Symbol('NO_MATCH');

/** Converts one probe key value (never NULL); throws RecordError for a value of the wrong kind. */
export type KeyConverter = (value: Exclude<Value, null>) => Value | typeof NO_MATCH;

const NUMERIC: ReadonlySet<TypeRoot> = new Set(['TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'FLOAT', 'DOUBLE', 'DECIMAL']);

/** The integer lookup column types' ranges: a probe value outside cannot match. */
const INTEGER_RANGE: Readonly<Partial<Record<TypeRoot, readonly [number, number]>>> = {
  TINYINT: [-128, 127],
  SMALLINT: [-32768, 32767],
  INT: [-2147483648, 2147483647],
  BIGINT: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/**
 * The converter from `probe`'s type to `lookup`'s type.
 *
 * @throws PlanError when the types cannot be compared (e.g. STRING with BIGINT).
 */
export function keyConverter(table: string, probe: Field, lookup: Field): KeyConverter {
  const from = probe.type.root;
  const to = lookup.type.root;
  if (from !== to && !(NUMERIC.has(from) && NUMERIC.has(to))) {
    throw new PlanError(
      `lookup join with table '${table}': key '${probe.name}' (${formatType(probe.type)}) cannot be compared with '${lookup.name}' (${formatType(lookup.type)}); CAST one side`,
    );
  }
  const fromScale = from === 'DECIMAL' ? (probe.type.scale ?? 0) : 0;
  const wrong = (value: Value): never => {
    throw new RecordError(`lookup join with table '${table}': key column '${probe.name}' (${formatType(probe.type)}) holds ${typeof value} ${showValue(value)}`, {
      field: probe.name,
    });
  };
  // The probe value as exact decimal text, for numeric conversions.
  const numericText = (value: Value): string => {
    if (typeof value === 'bigint' && from === 'DECIMAL') return formatDecimal(value, fromScale);
    if (typeof value === 'number' && from !== 'DECIMAL') return String(value);
    return wrong(value);
  };
  switch (to) {
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT': {
      const [min, max] = INTEGER_RANGE[to]!;
      return (value) => {
        let n: number;
        if (typeof value === 'bigint' && from === 'DECIMAL') {
          const unit = pow10(fromScale);
          if (value % unit !== 0n) return NO_MATCH;
          n = Number(value / unit);
        } else if (typeof value === 'number' && from !== 'DECIMAL') n = value;
        else return wrong(value);
        return Number.isInteger(n) && n >= min && n <= max ? (n === 0 ? 0 : n) : NO_MATCH;
      };
    }
    case 'DOUBLE':
      return (value) => Number(numericText(value));
    case 'FLOAT':
      // A probe value equals a FLOAT dimension value only when it is that float exactly.
      return (value) => {
        const d = Number(numericText(value));
        return Math.fround(d) === d ? d : NO_MATCH;
      };
    case 'DECIMAL': {
      const scale = lookup.type.scale ?? 0;
      return (value) => {
        if (typeof value === 'number' && !Number.isFinite(value) && from !== 'DECIMAL') return NO_MATCH;
        return exactDecimal(numericText(value), scale) ?? NO_MATCH;
      };
    }
    case 'STRING':
      return (value) => (typeof value === 'string' ? value : wrong(value));
    case 'BOOLEAN':
      return (value) => (typeof value === 'boolean' ? value : wrong(value));
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
    case 'DATE':
    case 'TIME':
      return (value) => (typeof value === 'number' && Number.isInteger(value) ? value : wrong(value));
    default:
      throw new PlanError(`lookup join with table '${table}': key '${lookup.name}' is ${formatType(lookup.type)}; lookup keys must be scalar columns`);
  }
}
