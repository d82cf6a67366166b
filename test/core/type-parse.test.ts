import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { PlanError } from '../../shared/core/errors.ts';
import {
  fieldIndex,
  findField,
  formatType,
  formatTypeSummary,
  parseType,
  requireField,
  schemaFromFields,
  schemaOf,
} from '../../shared/core/type-parse.ts';
import type { LogicalType } from '../../shared/core/types.ts';
import { logicalTypeArb } from './arbitraries.ts';

/** Captures the PlanError thrown by `fn`. */
function planError(fn: () => unknown): PlanError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PlanError);
    return err as PlanError;
  }
  throw new Error('expected a PlanError');
}

describe('parseType', () => {
  it.each<[string, LogicalType]>([
    ['BIGINT', { root: 'BIGINT', nullable: true }],
    ['INT', { root: 'INT', nullable: true }],
    ['INTEGER', { root: 'INT', nullable: true }],
    ['DOUBLE', { root: 'DOUBLE', nullable: true }],
    ['DOUBLE PRECISION', { root: 'DOUBLE', nullable: true }],
    ['DECIMAL(10, 2)', { root: 'DECIMAL', nullable: true, precision: 10, scale: 2 }],
    ['DECIMAL(5)', { root: 'DECIMAL', nullable: true, precision: 5, scale: 0 }],
    ['DECIMAL', { root: 'DECIMAL', nullable: true, precision: 10, scale: 0 }],
    ['NUMERIC(38,38)', { root: 'DECIMAL', nullable: true, precision: 38, scale: 38 }],
    ['DEC(1, 0)', { root: 'DECIMAL', nullable: true, precision: 1, scale: 0 }],
    ['STRING', { root: 'STRING', nullable: true }],
    ['VARCHAR(20)', { root: 'STRING', nullable: true, length: 20 }],
    ['VARCHAR', { root: 'STRING', nullable: true }],
    ['VARCHAR(2147483647)', { root: 'STRING', nullable: true }],
    ['BOOLEAN', { root: 'BOOLEAN', nullable: true }],
    ['TIMESTAMP(3)', { root: 'TIMESTAMP', nullable: true, precision: 3 }],
    ['TIMESTAMP', { root: 'TIMESTAMP', nullable: true, precision: 3 }],
    ['TIMESTAMP(3) WITHOUT TIME ZONE', { root: 'TIMESTAMP', nullable: true, precision: 3 }],
    ['BIGINT NOT NULL', { root: 'BIGINT', nullable: false }],
    ['BIGINT NULL', { root: 'BIGINT', nullable: true }],
    ['decimal ( 10 ,2 )   not   null', { root: 'DECIMAL', nullable: false, precision: 10, scale: 2 }],
    ['  timestamp(3) without time zone not null ', { root: 'TIMESTAMP', nullable: false, precision: 3 }],
    ['VarChar(7) Not Null', { root: 'STRING', nullable: false, length: 7 }],
    ['DATE', { root: 'DATE', nullable: true }],
    ['date not null', { root: 'DATE', nullable: false }],
    ['TIME', { root: 'TIME', nullable: true, precision: 0 }],
    ['TIME(3)', { root: 'TIME', nullable: true, precision: 3 }],
    ['TIME(0) WITHOUT TIME ZONE', { root: 'TIME', nullable: true, precision: 0 }],
    ['TIMESTAMP_LTZ(3)', { root: 'TIMESTAMP_LTZ', nullable: true, precision: 3 }],
    ['TIMESTAMP_LTZ', { root: 'TIMESTAMP_LTZ', nullable: true, precision: 3 }],
    ['TIMESTAMP(3) WITH LOCAL TIME ZONE', { root: 'TIMESTAMP_LTZ', nullable: true, precision: 3 }],
    ['timestamp with local time zone not null', { root: 'TIMESTAMP_LTZ', nullable: false, precision: 3 }],
    ['TINYINT', { root: 'TINYINT', nullable: true }],
    ['SMALLINT NOT NULL', { root: 'SMALLINT', nullable: false }],
    ['FLOAT', { root: 'FLOAT', nullable: true }],
    ['REAL', { root: 'FLOAT', nullable: true }],
    ['CHAR(5)', { root: 'STRING', nullable: true, length: 5, fixedLength: true }],
    ['CHAR', { root: 'STRING', nullable: true, length: 1, fixedLength: true }],
    ['BYTES', { root: 'VARBINARY', nullable: true }],
    ['VARBINARY(2147483647)', { root: 'VARBINARY', nullable: true }],
    ['VARBINARY(8)', { root: 'VARBINARY', nullable: true, length: 8 }],
    ['BINARY(4) NOT NULL', { root: 'VARBINARY', nullable: false, length: 4, fixedLength: true }],
  ])('parses %s', (text, expected) => {
    expect(parseType(text)).toEqual(expected);
  });

  it.each([
    ['BLOB', 'unsupported type BLOB'],
    ['BYTES(3)', 'BYTES takes no parameters'],
    ['TINYINT(3)', 'TINYINT takes no parameters'],
    ['CHAR(0)', 'CHAR length must be between 1 and 2147483647, got 0'],
    ['', 'the type is empty'],
    ['(3)', 'expected a type name'],
    ['TIMESTAMP(6)', 'only TIMESTAMP(3) (millisecond precision) is supported, got TIMESTAMP(6)'],
    ['TIMESTAMP(0)', 'only TIMESTAMP(3)'],
    ['TIMESTAMP_LTZ(6)', 'only TIMESTAMP_LTZ(3) (millisecond precision) is supported, got TIMESTAMP_LTZ(6)'],
    ['TIMESTAMP(3) WITH TIME ZONE', 'TIMESTAMP WITH TIME ZONE is not a Flink type'],
    ['TIME(6)', 'TIME precision must be between 0 and 3 (milliseconds), got 6'],
    ['DATE(1)', 'DATE takes no parameters'],
    ['TIMESTAMP WITHOUT ZONE', "expected 'WITHOUT TIME ZONE'"],
    ['DECIMAL(39, 2)', 'precision must be between 1 and 38, got 39'],
    ['DECIMAL(0)', 'precision must be between 1 and 38, got 0'],
    ['DECIMAL(5, 6)', 'scale must be between 0 and the precision 5, got 6'],
    ['DECIMAL(5, 2, 1)', 'at most two parameters'],
    ['DECIMAL(10', "expected ',' or ')'"],
    ['DECIMAL(a)', 'expected an integer parameter'],
    ['DECIMAL(-1)', "unexpected character '-'"],
    ['VARCHAR(0)', 'length must be between 1 and 2147483647, got 0'],
    ['VARCHAR(2147483648)', 'length must be between 1 and 2147483647'],
    ['VARCHAR(1, 2)', 'VARCHAR takes one parameter'],
    ['INT(5)', 'INT takes no parameters'],
    ['STRING(5)', 'STRING takes no parameters'],
    ['BIGINT NOT', 'unexpected text after the type'],
    ['BIGINT NOT NULL NOT NULL', 'unexpected text after the type'],
    ['BIGINT;', "unexpected character ';'"],
  ])('rejects %j', (text, detail) => {
    const err = planError(() => parseType(text));
    expect(err.message).toContain(`Cannot parse type '${text}'`);
    expect(err.message).toContain(detail);
    expect(err.message).toContain(
      'Supported types: BIGINT, INT, SMALLINT, TINYINT, DOUBLE, FLOAT, DECIMAL(p, s), STRING, VARCHAR(n), CHAR(n), BYTES, VARBINARY(n), BINARY(n), BOOLEAN, TIMESTAMP(3)',
    );
    expect(err.retry).toBe('fail');
  });
});

describe('formatType', () => {
  it.each<[LogicalType, string]>([
    [{ root: 'BIGINT', nullable: true }, 'BIGINT'],
    [{ root: 'INT', nullable: false }, 'INT NOT NULL'],
    [{ root: 'DOUBLE', nullable: true }, 'DOUBLE'],
    [{ root: 'DECIMAL', nullable: true, precision: 10, scale: 2 }, 'DECIMAL(10, 2)'],
    [{ root: 'DECIMAL', nullable: false }, 'DECIMAL(10, 0) NOT NULL'],
    [{ root: 'STRING', nullable: true }, 'VARCHAR(2147483647)'],
    [{ root: 'STRING', nullable: false, length: 20 }, 'VARCHAR(20) NOT NULL'],
    [{ root: 'BOOLEAN', nullable: true }, 'BOOLEAN'],
    [{ root: 'TIMESTAMP', nullable: true, precision: 3 }, 'TIMESTAMP(3)'],
    [{ root: 'TIMESTAMP', nullable: false }, 'TIMESTAMP(3) NOT NULL'],
    [{ root: 'DATE', nullable: true }, 'DATE'],
    [{ root: 'TIME', nullable: true, precision: 0 }, 'TIME(0)'],
    [{ root: 'TIME', nullable: false, precision: 3 }, 'TIME(3) NOT NULL'],
    [{ root: 'TIMESTAMP_LTZ', nullable: true, precision: 3 }, 'TIMESTAMP_LTZ(3)'],
  ])('prints %j as %s', (type, text) => {
    expect(formatType(type)).toBe(text);
  });

  it('round-trips through parseType for every supported type', () => {
    fc.assert(
      fc.property(logicalTypeArb, (type) => {
        expect(parseType(formatType(type))).toEqual(type);
      }),
    );
  });
});

describe('schemaOf', () => {
  it('builds fields in key order from type text and LogicalType values', () => {
    const schema = schemaOf({
      auction: 'BIGINT NOT NULL',
      price: 'DECIMAL(10, 2)',
      at: { root: 'TIMESTAMP', nullable: true, precision: 3 },
    });
    expect(schema.fields).toEqual([
      { name: 'auction', type: { root: 'BIGINT', nullable: false } },
      { name: 'price', type: { root: 'DECIMAL', nullable: true, precision: 10, scale: 2 } },
      { name: 'at', type: { root: 'TIMESTAMP', nullable: true, precision: 3 } },
    ]);
  });

  it('names the column whose type is bad', () => {
    const err = planError(() => schemaOf({ auction: 'BIGINT', price: 'MONEY' }));
    expect(err.message).toMatch(/^Column 'price': Cannot parse type 'MONEY': unsupported type MONEY/);
    expect(err.cause).toBeInstanceOf(PlanError);
  });

  it('rejects empty and reserved names', () => {
    expect(planError(() => schemaOf({ '': 'INT' })).message).toBe('Column names must be non-empty strings');
    expect(planError(() => schemaFromFields([{ name: '__proto__', type: { root: 'INT', nullable: true } }])).message).toBe(
      "Column name '__proto__' is reserved",
    );
  });

  it('rejects duplicate names in schemaFromFields', () => {
    const int: LogicalType = { root: 'INT', nullable: true };
    const err = planError(() => schemaFromFields([{ name: 'a', type: int }, { name: 'b', type: int }, { name: 'a', type: int }]));
    expect(err.message).toBe("Duplicate column name 'a'");
  });

  it('copies the field list', () => {
    const fields = [{ name: 'a', type: { root: 'INT', nullable: true } as LogicalType }];
    const schema = schemaFromFields(fields);
    fields.push({ name: 'b', type: { root: 'INT', nullable: true } });
    expect(schema.fields).toHaveLength(1);
  });
});

describe('field lookup', () => {
  const schema = schemaOf({ auction: 'BIGINT', Price: 'BIGINT', dateTime: 'TIMESTAMP(3)' });

  it('finds fields by exact name', () => {
    expect(fieldIndex(schema, 'dateTime')).toBe(2);
    expect(requireField(schema, 'auction', 'GROUP BY').type.root).toBe('BIGINT');
    expect(findField(schema, 'Price')?.name).toBe('Price');
    expect(findField(schema, 'price')).toBeUndefined();
  });

  it('names the missing column, the context and the available columns', () => {
    const err = planError(() => requireField(schema, 'bidder', 'WHERE clause'));
    expect(err.message).toBe("Column 'bidder' not found in WHERE clause; available columns: auction, Price, dateTime");
  });

  it('suggests a column that differs only in case', () => {
    const err = planError(() => fieldIndex(schema, 'price'));
    expect(err.message).toBe("Column 'price' not found (did you mean 'Price'?); available columns: auction, Price, dateTime");
  });

  it('says when there are no columns at all', () => {
    expect(planError(() => fieldIndex({ fields: [] }, 'x')).message).toBe("Column 'x' not found; available columns: (none)");
  });
});

describe('MULTISET<T>', () => {
  it('parses and prints as Flink does, the summary form naming STRING', () => {
    const t = parseType('MULTISET<STRING NOT NULL> NOT NULL');
    expect(t).toEqual({ root: 'MULTISET', nullable: false, element: { root: 'STRING', nullable: false } });
    expect(formatType(t)).toBe('MULTISET<VARCHAR(2147483647) NOT NULL> NOT NULL');
    expect(formatTypeSummary(t)).toBe('MULTISET<STRING NOT NULL> NOT NULL');
    expect(formatTypeSummary(parseType('ROW<a VARCHAR(3), b MAP<STRING, ARRAY<STRING>>>'))).toBe('ROW<`a` VARCHAR(3), `b` MAP<STRING, ARRAY<STRING>>>');
  });
});
