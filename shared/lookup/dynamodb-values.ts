/**
 * DynamoDB attribute values ↔ Flambda values for the DynamoDB dimension source. Numbers stay
 * text on the way in (an `N` attribute carries up to 38 digits, more than a JS number holds), so
 * shared/lookup/dimension-values.ts converts them exactly to the column type.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { formatDecimal } from '../core/decimal.ts';
import { formatDate, formatTime, formatTimestamp } from '../core/timestamp.ts';
import type { Field, Value } from '../core/types.ts';
import { DimensionDataError } from './errors.ts';

/** How TIMESTAMP and TIMESTAMP_LTZ values are stored in the table (DATE and TIME are `S` text). */
export type DynamoTimestampFormat = 'epoch-ms' | 'string';

/** A raw value from an attribute: N and S as text, BOOL as boolean, NULL as null; L and M as JSON text. */
export function attributeToRaw(value: AttributeValue, table: string, column: string): unknown {
  if (value.N !== undefined) return value.N;
  if (value.S !== undefined) return value.S;
  if (value.BOOL !== undefined) return value.BOOL;
  if (value.NULL !== undefined) return null;
  if (value.L !== undefined || value.M !== undefined) return JSON.stringify(plain(value));
  throw new DimensionDataError(`lookup table '${table}' column '${column}': unsupported DynamoDB attribute type ${Object.keys(value).join(',')}`, { table, column });
}

/** A nested attribute as plain JSON (numbers as numbers), for L and M read into STRING columns. */
function plain(value: AttributeValue): unknown {
  if (value.N !== undefined) return Number(value.N);
  if (value.S !== undefined) return value.S;
  if (value.BOOL !== undefined) return value.BOOL;
  if (value.L !== undefined) return value.L.map(plain);
  if (value.M !== undefined) return Object.fromEntries(Object.entries(value.M).map(([k, v]) => [k, plain(v)]));
  return null;
}

/**
 * A key value as a key attribute, or `undefined` when no item can have it (NaN / ±Infinity:
 * DynamoDB numbers are finite).
 *
 * @throws DimensionDataError for a BOOLEAN key column (DynamoDB keys are S, N or B).
 */
export function keyAttribute(field: Field, value: Exclude<Value, null>, table: string, timestamps: DynamoTimestampFormat): AttributeValue | undefined {
  switch (field.type.root) {
    case 'STRING':
      return { S: String(value) };
    case 'DECIMAL':
      return { N: formatDecimal(value as bigint, field.type.scale ?? 0) };
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return timestamps === 'string' ? { S: formatTimestamp(value as number) } : { N: String(value) };
    case 'DATE':
      return { S: formatDate(value as number) };
    case 'TIME':
      return { S: formatTime(value as number, field.type.precision ?? 0) };
    case 'BOOLEAN':
      throw new DimensionDataError(`lookup table '${table}' key column '${field.name}': DynamoDB keys cannot be BOOLEAN`, { table, column: field.name });
    default:
      return typeof value === 'number' && !Number.isFinite(value) ? undefined : { N: String(value) };
  }
}
