/**
 * fast-check arbitraries for logical types, schemas and rows, shared by the core tests.
 */
import fc from 'fast-check';
import { MAX_DATE_DAYS, MAX_TIMESTAMP_MS, MIN_DATE_DAYS, MIN_TIMESTAMP_MS, truncateTimePrecision } from '../../shared/core/timestamp.ts';
import type { Field, LogicalType, Row, Schema, Value } from '../../shared/core/types.ts';

/** Any type Flambda supports, in the canonical form `parseType` produces. */
export const logicalTypeArb: fc.Arbitrary<LogicalType> = fc.boolean().chain((nullable) =>
  fc.oneof(
    fc.constantFrom<LogicalType>(
      { root: 'BIGINT', nullable },
      { root: 'INT', nullable },
      { root: 'DOUBLE', nullable },
      { root: 'STRING', nullable },
      { root: 'BOOLEAN', nullable },
      { root: 'TIMESTAMP', nullable, precision: 3 },
      { root: 'TIMESTAMP_LTZ', nullable, precision: 3 },
      { root: 'DATE', nullable },
      { root: 'SMALLINT', nullable },
      { root: 'TINYINT', nullable },
      { root: 'FLOAT', nullable },
      { root: 'VARBINARY', nullable },
    ),
    fc.integer({ min: 0, max: 3 }).map((precision): LogicalType => ({ root: 'TIME', nullable, precision })),
    fc
      .integer({ min: 1, max: 38 })
      .chain((precision) =>
        fc.integer({ min: 0, max: precision }).map((scale): LogicalType => ({ root: 'DECIMAL', nullable, precision, scale })),
      ),
    fc.integer({ min: 1, max: 40 }).map((length): LogicalType => ({ root: 'STRING', nullable, length })),
    fc.integer({ min: 1, max: 40 }).map((length): LogicalType => ({ root: 'STRING', nullable, length, fixedLength: true })),
    fc.integer({ min: 1, max: 40 }).map((length): LogicalType => ({ root: 'VARBINARY', nullable, length })),
    fc.integer({ min: 1, max: 40 }).map((length): LogicalType => ({ root: 'VARBINARY', nullable, length, fixedLength: true })),
  ),
);

/** Column names, including awkward ones that collide with Object.prototype members. */
const nameArb = fc.oneof(
  fc.string({ minLength: 1, maxLength: 8 }).filter((n) => n !== '__proto__'),
  fc.constantFrom('constructor', 'toString', 'hasOwnProperty', 'valueOf', 'price', 'dateTime'),
);

/** A schema of up to 8 uniquely named columns. */
export const schemaArb: fc.Arbitrary<Schema> = fc
  .uniqueArray(fc.record({ name: nameArb, type: logicalTypeArb }), { maxLength: 8, selector: (f) => f.name })
  .map((fields: Field[]) => ({ fields }));

/** A non-null value of the type, in the runtime representation. */
export function valueArb(type: LogicalType): fc.Arbitrary<Value> {
  switch (type.root) {
    case 'BIGINT':
      return fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }).map((v) => (v === 0 ? 0 : v));
    case 'INT':
      return fc.integer({ min: -2147483648, max: 2147483647 }).map((v) => (v === 0 ? 0 : v));
    case 'SMALLINT':
      return fc.integer({ min: -32768, max: 32767 }).map((v) => (v === 0 ? 0 : v));
    case 'TINYINT':
      return fc.integer({ min: -128, max: 127 }).map((v) => (v === 0 ? 0 : v));
    case 'DOUBLE':
      return fc.double();
    case 'FLOAT':
      return fc.float();
    case 'VARBINARY': {
      // Lower-case hex; a BINARY(n) value made by CAST has exactly n bytes, others at most n.
      const n = type.length;
      const bytes = type.fixedLength === true && n !== undefined ? fc.uint8Array({ minLength: n, maxLength: n }) : fc.uint8Array({ maxLength: n ?? 30 });
      return bytes.map((b) => Buffer.from(b).toString('hex'));
    }
    case 'DECIMAL': {
      const limit = 10n ** BigInt(type.precision ?? 10) - 1n;
      return fc.bigInt({ min: -limit, max: limit });
    }
    case 'STRING': {
      const max = type.length;
      const text = fc.string({ unit: 'binary', maxLength: max ?? 30 });
      return max === undefined ? text : text.filter((s) => [...s].length <= max);
    }
    case 'BOOLEAN':
      return fc.boolean();
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return fc.integer({ min: MIN_TIMESTAMP_MS, max: MAX_TIMESTAMP_MS }).map((v) => (v === 0 ? 0 : v));
    case 'DATE':
      return fc.integer({ min: MIN_DATE_DAYS, max: MAX_DATE_DAYS }).map((v) => (v === 0 ? 0 : v));
    case 'TIME': {
      const precision = type.precision ?? 0;
      return fc.integer({ min: 0, max: 86_399_999 }).map((v) => truncateTimePrecision(v, precision));
    }
    default:
      throw new Error(`valueArb: no arbitrary for ${type.root}`);
  }
}

/** A row of the schema; nullable columns are sometimes null. */
export function rowArb(schema: Schema): fc.Arbitrary<Row> {
  const model: Record<string, fc.Arbitrary<Value>> = {};
  for (const field of schema.fields) {
    const value = valueArb(field.type);
    model[field.name] = field.type.nullable ? fc.option(value, { nil: null, freq: 5 }) : value;
  }
  return fc.record(model);
}

/** A schema together with rows of it. */
export const schemaWithRowsArb: fc.Arbitrary<{ schema: Schema; rows: Row[] }> = schemaArb.chain((schema) =>
  fc.array(rowArb(schema), { maxLength: 5 }).map((rows) => ({ schema, rows })),
);
