import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  createRowDecoder,
  createRowEncoder,
  decodeJsonLine,
  encodeRowToJson,
} from '../../shared/core/codec.ts';
import { FlambdaError, PlanError, RecordError } from '../../shared/core/errors.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import type { Row, Schema } from '../../shared/core/types.ts';
import { schemaWithRowsArb } from './arbitraries.ts';

/** Captures the RecordError thrown by `fn`. */
function recordError(fn: () => unknown): RecordError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RecordError);
    return err as RecordError;
  }
  throw new Error('expected a RecordError');
}

/** Decodes `{ [column]: raw }` against a one-column schema. */
function decodeOne(type: string, raw: unknown): unknown {
  return createRowDecoder(schemaOf({ v: type }))({ v: raw })['v'];
}

/** The message of the error from decoding `{ v: raw }` against a one-column schema. */
function messageFor(type: string, raw: unknown): string {
  const decode = createRowDecoder(schemaOf({ v: type }));
  return recordError(() => decode({ v: raw })).message;
}

const bidSchema = schemaOf({
  auction: 'BIGINT NOT NULL',
  bidder: 'BIGINT NOT NULL',
  price: 'BIGINT NOT NULL',
  channel: 'VARCHAR(10)',
  url: 'STRING',
  dateTime: 'TIMESTAMP(3) NOT NULL',
  extra: 'STRING',
});

describe('createRowDecoder: records', () => {
  const decode = createRowDecoder(bidSchema);

  it('decodes a record into a fresh row with exactly the schema fields in schema order', () => {
    const json = {
      extra: 'x',
      dateTime: '2015-07-15 00:00:01.005',
      url: 'https://nexmark.com/item',
      price: 120,
      bidder: 7,
      auction: 1000,
      unknown: { nested: true },
    };
    const row = decode(json, 'bid.jsonl:1');
    expect(row).toEqual({
      auction: 1000,
      bidder: 7,
      price: 120,
      channel: null,
      url: 'https://nexmark.com/item',
      dateTime: Date.UTC(2015, 6, 15, 0, 0, 1, 5),
      extra: 'x',
    });
    expect(Object.keys(row)).toEqual(bidSchema.fields.map((f) => f.name));
    expect(row).not.toBe(json);
  });

  it('makes missing and null nullable fields NULL', () => {
    const schema = schemaOf({ a: 'INT', b: 'STRING', c: 'DECIMAL(5, 2)' });
    expect(createRowDecoder(schema)({ b: null })).toEqual({ a: null, b: null, c: null });
  });

  it('rejects a missing or null NOT NULL field', () => {
    expect(recordError(() => decode({ bidder: 1, price: 2, dateTime: 0 }, 'bid.jsonl:3')).message).toBe(
      "bid.jsonl:3: field 'auction' (BIGINT NOT NULL): expected a value, but the field is missing",
    );
    expect(recordError(() => decode({ auction: null, bidder: 1, price: 2, dateTime: 0 })).message).toBe(
      "field 'auction' (BIGINT NOT NULL): expected a value, got null",
    );
  });

  it.each<[unknown, string]>([
    [[1, 2], '[1,2]'],
    ['text', '"text"'],
    [42, '42'],
    [null, 'null'],
    [true, 'true'],
  ])('rejects the non-object record %j', (json, shown) => {
    const err = recordError(() => decode(json, 'bid.jsonl:9'));
    expect(err.message).toBe(`bid.jsonl:9: expected a JSON object record, got ${shown}`);
    expect(err.position).toBe('bid.jsonl:9');
    expect(err.field).toBeUndefined();
  });

  it('puts the field and position on the error and marks it for the dead-letter output', () => {
    const err = recordError(() => decode({ auction: 1, bidder: 2, price: 'abc', dateTime: 0 }, 'bid.jsonl:17'));
    expect(err.message).toBe(`bid.jsonl:17: field 'price' (BIGINT NOT NULL): expected an integer, got "abc"`);
    expect(err.field).toBe('price');
    expect(err.position).toBe('bid.jsonl:17');
    expect(err.domain).toBe('user');
    expect(err.retry).toBe('dead-letter');
  });

  it('truncates long offending values in messages', () => {
    const message = messageFor('INT', 'x'.repeat(500));
    expect(message).toBe(`field 'v' (INT): expected an integer, got "${'x'.repeat(59)}…`);
  });

  it('reads only own properties for names shared with Object.prototype', () => {
    const schema = schemaOf({ constructor: 'STRING', toString: 'INT', valueOf: 'BOOLEAN NOT NULL' });
    const decode2 = createRowDecoder(schema);
    expect(decode2({ toString: 3, valueOf: true })).toEqual({ constructor: null, toString: 3, valueOf: true });
    expect(recordError(() => decode2({})).message).toBe(
      "field 'valueOf' (BOOLEAN NOT NULL): expected a value, but the field is missing",
    );
  });

  it('refuses a __proto__ column', () => {
    const schema: Schema = { fields: [{ name: '__proto__', type: { root: 'INT', nullable: true } }] };
    expect(() => createRowDecoder(schema)).toThrow(PlanError);
    expect(() => createRowEncoder(schema)).toThrow(PlanError);
  });
});

describe('createRowDecoder: BIGINT and INT', () => {
  it('accepts integers and integer strings, as Flink does', () => {
    expect(decodeOne('BIGINT', 42)).toBe(42);
    expect(decodeOne('BIGINT', -9007199254740991)).toBe(-9007199254740991);
    expect(decodeOne('BIGINT', '42')).toBe(42);
    expect(decodeOne('BIGINT', ' +42 ')).toBe(42);
    expect(decodeOne('BIGINT', '-0')).toBe(0);
    expect(Object.is(decodeOne('BIGINT', -0), 0)).toBe(true);
    expect(decodeOne('INT', 2147483647)).toBe(2147483647);
    expect(decodeOne('INT', '-2147483648')).toBe(-2147483648);
  });

  it.each<[unknown, string]>([
    [1.5, '1.5'],
    ['abc', '"abc"'],
    ['1.0', '"1.0"'],
    ['1e3', '"1e3"'],
    ['0x10', '"0x10"'],
    ['', '""'],
    [true, 'true'],
    [{ a: 1 }, '{"a":1}'],
  ])('rejects the non-integer %j', (raw, shown) => {
    expect(messageFor('BIGINT NOT NULL', raw)).toBe(`field 'v' (BIGINT NOT NULL): expected an integer, got ${shown}`);
    expect(messageFor('INT', raw)).toBe(`field 'v' (INT): expected an integer, got ${shown}`);
  });

  it('explains that BIGINT values beyond 2^53-1 are not supported', () => {
    for (const raw of [9007199254740992, -9007199254740992, 1e20, '12345678901234567890']) {
      expect(messageFor('BIGINT', raw)).toMatch(
        /^field 'v' \(BIGINT\): expected an integer between -9007199254740991 and 9007199254740991 \(BIGINT values beyond ±\(2\^53−1\) are not supported because they lose precision as JavaScript numbers\), got /,
      );
    }
  });

  it('rejects INT values outside 32 bits', () => {
    expect(messageFor('INT', 2147483648)).toBe("field 'v' (INT): expected an integer between -2147483648 and 2147483647, got 2147483648");
    expect(messageFor('INT', '-2147483649')).toBe(
      `field 'v' (INT): expected an integer between -2147483648 and 2147483647, got "-2147483649"`,
    );
  });
});

describe('createRowDecoder: DOUBLE', () => {
  it('accepts numbers and numeric strings, including the non-finite spellings', () => {
    expect(decodeOne('DOUBLE', 1.25)).toBe(1.25);
    expect(decodeOne('DOUBLE', 7)).toBe(7);
    expect(decodeOne('DOUBLE', ' -1.5e3 ')).toBe(-1500);
    expect(decodeOne('DOUBLE', '.5')).toBe(0.5);
    expect(decodeOne('DOUBLE', 'NaN')).toBeNaN();
    expect(decodeOne('DOUBLE', 'Infinity')).toBe(Number.POSITIVE_INFINITY);
    expect(decodeOne('DOUBLE', '-Infinity')).toBe(Number.NEGATIVE_INFINITY);
  });

  it.each<[unknown, string]>([
    ['abc', '"abc"'],
    ['', '""'],
    ['0x10', '"0x10"'],
    ['1e', '"1e"'],
    [false, 'false'],
    [[1], '[1]'],
  ])('rejects %j', (raw, shown) => {
    expect(messageFor('DOUBLE', raw)).toBe(`field 'v' (DOUBLE): expected a number, got ${shown}`);
  });
});

describe('createRowDecoder: DECIMAL', () => {
  it('accepts numbers and decimal strings, rounding HALF_UP to the scale', () => {
    expect(decodeOne('DECIMAL(10, 2)', 12.5)).toBe(1250n);
    expect(decodeOne('DECIMAL(10, 2)', '12.345')).toBe(1235n);
    expect(decodeOne('DECIMAL(10, 2)', ' -0.005 ')).toBe(-1n);
    expect(decodeOne('DECIMAL(10, 2)', '1.5e2')).toBe(15000n);
    expect(decodeOne('DECIMAL(38, 0)', '12345678901234567890123456789012345678')).toBe(12345678901234567890123456789012345678n);
  });

  it('rejects values with too many integer digits', () => {
    expect(messageFor('DECIMAL(5, 2) NOT NULL', 1000)).toBe(
      "field 'v' (DECIMAL(5, 2) NOT NULL): value does not fit: at most 3 digits before the decimal point, got 1000",
    );
    expect(messageFor('DECIMAL(3, 2)', '10')).toBe(
      `field 'v' (DECIMAL(3, 2)): value does not fit: at most 1 digit before the decimal point, got "10"`,
    );
  });

  it.each<[unknown, string]>([
    ['abc', '"abc"'],
    ['NaN', '"NaN"'],
    [true, 'true'],
    [{}, '{}'],
  ])('rejects %j', (raw, shown) => {
    expect(messageFor('DECIMAL(10, 2)', raw)).toBe(`field 'v' (DECIMAL(10, 2)): expected a decimal number, got ${shown}`);
  });
});

describe('createRowDecoder: STRING and VARCHAR', () => {
  it('converts scalars to text and containers to JSON text, as Flink does', () => {
    expect(decodeOne('STRING', 'hello')).toBe('hello');
    expect(decodeOne('STRING', '')).toBe('');
    expect(decodeOne('STRING', 12.5)).toBe('12.5');
    expect(decodeOne('STRING', false)).toBe('false');
    expect(decodeOne('STRING', { a: [1, 'b'] })).toBe('{"a":[1,"b"]}');
    expect(decodeOne('STRING', [1, 2])).toBe('[1,2]');
  });

  it('counts VARCHAR lengths in code points', () => {
    expect(decodeOne('VARCHAR(3)', 'abc')).toBe('abc');
    expect(decodeOne('VARCHAR(3)', '😀😀😀')).toBe('😀😀😀');
    expect(messageFor('VARCHAR(3)', 'abcd')).toBe(`field 'v' (VARCHAR(3)): expected at most 3 characters, got 4 characters: "abcd"`);
    expect(messageFor('VARCHAR(3) NOT NULL', '😀😀😀😀')).toBe(
      `field 'v' (VARCHAR(3) NOT NULL): expected at most 3 characters, got 4 characters: "😀😀😀😀"`,
    );
    expect(messageFor('VARCHAR(2)', 1234)).toBe(`field 'v' (VARCHAR(2)): expected at most 2 characters, got 4 characters: 1234`);
  });
});

describe('createRowDecoder: BOOLEAN', () => {
  it('accepts booleans and the strings true/false in any case', () => {
    expect(decodeOne('BOOLEAN', true)).toBe(true);
    expect(decodeOne('BOOLEAN', false)).toBe(false);
    expect(decodeOne('BOOLEAN', 'TRUE')).toBe(true);
    expect(decodeOne('BOOLEAN', ' false ')).toBe(false);
  });

  it.each<[unknown, string]>([
    ['yes', '"yes"'],
    [1, '1'],
    [0, '0'],
    ['', '""'],
  ])('rejects %j', (raw, shown) => {
    expect(messageFor('BOOLEAN', raw)).toBe(`field 'v' (BOOLEAN): expected true or false, got ${shown}`);
  });
});

describe('createRowDecoder: TIMESTAMP(3)', () => {
  it('accepts timestamp text and epoch milliseconds', () => {
    expect(decodeOne('TIMESTAMP(3)', '2015-07-15 00:00:01.005')).toBe(Date.UTC(2015, 6, 15, 0, 0, 1, 5));
    expect(decodeOne('TIMESTAMP(3)', '2015-07-15T00:00:01Z')).toBe(Date.UTC(2015, 6, 15, 0, 0, 1));
    expect(decodeOne('TIMESTAMP(3)', 1436918401005)).toBe(1436918401005);
    expect(decodeOne('TIMESTAMP(3)', -1)).toBe(-1);
  });

  it.each<[unknown, string]>([
    ['2015-07-15', '"2015-07-15"'],
    ['2015-04-31 00:00:00', '"2015-04-31 00:00:00"'],
    ['1436918401005', '"1436918401005"'],
    [1.5, '1.5'],
    [1e15, '1000000000000000'],
    [true, 'true'],
  ])('rejects %j', (raw, shown) => {
    expect(messageFor('TIMESTAMP(3) NOT NULL', raw)).toBe(
      `field 'v' (TIMESTAMP(3) NOT NULL): expected a timestamp 'YYYY-MM-DD HH:MM:SS[.fff]' or epoch milliseconds (years 0000-9999), got ${shown}`,
    );
  });
});

describe('decodeJsonLine', () => {
  const decode = createRowDecoder(schemaOf({ a: 'INT' }));

  it('parses and decodes a line', () => {
    expect(decodeJsonLine('{"a": 1, "b": 2}', decode, 'in.jsonl:1')).toEqual({ a: 1 });
  });

  it('wraps JSON syntax errors into a RecordError with the position', () => {
    const err = recordError(() => decodeJsonLine('{"a": ', decode, 'in.jsonl:2'));
    expect(err.message).toMatch(/^in\.jsonl:2: invalid JSON \(.+\): "\{\\"a\\": "$/);
    expect(err.position).toBe('in.jsonl:2');
    expect(err.cause).toBeInstanceOf(SyntaxError);
    expect(recordError(() => decodeJsonLine('', decode)).message).toMatch(/^invalid JSON/);
  });

  it('passes the position to field errors', () => {
    expect(recordError(() => decodeJsonLine('{"a": "x"}', decode, 'in.jsonl:3')).message).toBe(
      `in.jsonl:3: field 'a' (INT): expected an integer, got "x"`,
    );
  });
});

describe('createRowEncoder', () => {
  const schema = schemaOf({
    id: 'BIGINT NOT NULL',
    n: 'INT',
    d: 'DOUBLE',
    price: 'DECIMAL(10, 2)',
    name: 'STRING',
    ok: 'BOOLEAN',
    at: 'TIMESTAMP(3)',
  });
  const encode = createRowEncoder(schema);

  it('writes DECIMAL and TIMESTAMP as text and the rest as is, in schema order', () => {
    const row: Row = { at: 1436918401005, ok: true, name: 'x', price: 5n, d: 1.5, n: 3, id: 1, other: 'dropped' };
    const out = encode(row);
    expect(out).toEqual({ id: 1, n: 3, d: 1.5, price: '0.05', name: 'x', ok: true, at: '2015-07-15 00:00:01.005' });
    expect(Object.keys(out)).toEqual(schema.fields.map((f) => f.name));
  });

  it('writes NULL and missing fields as null and non-finite doubles as strings', () => {
    expect(encode({ id: 1, d: Number.NaN, price: null })).toEqual({
      id: 1,
      n: null,
      d: 'NaN',
      price: null,
      name: null,
      ok: null,
      at: null,
    });
    expect(encode({ id: 1, d: Number.NEGATIVE_INFINITY }).d).toBe('-Infinity');
  });

  it('reports values in the wrong representation as internal errors', () => {
    let caught: unknown;
    try {
      encode({ id: 1, price: 1.5 });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(FlambdaError);
    expect((caught as FlambdaError).domain).toBe('internal');
    expect((caught as Error).message).toBe(
      "Cannot encode field 'price' (DECIMAL(10, 2)): expected a bigint value, got number 1.5",
    );
    expect(() => encode({ id: 1, at: '2015-07-15' })).toThrow(/expected a number value, got string/);
    expect(() => encode({ id: 1, at: 1e20 })).toThrow(RecordError);
  });

  it('encodes to a JSON line with encodeRowToJson', () => {
    expect(encodeRowToJson({ id: 2, price: -1250n, at: 0 }, schema)).toBe(
      '{"id":2,"n":null,"d":null,"price":"-12.50","name":null,"ok":null,"at":"1970-01-01 00:00:00.000"}',
    );
    // A second call reuses the cached encoder and gives the same answer.
    expect(encodeRowToJson({ id: 2, price: -1250n, at: 0 }, schema)).toContain('"price":"-12.50"');
  });
});

describe('codec round trip', () => {
  it('decode(encode(row)) gives back the row for arbitrary schemas and rows', () => {
    fc.assert(
      fc.property(schemaWithRowsArb, ({ schema, rows }) => {
        const encode = createRowEncoder(schema);
        const decode = createRowDecoder(schema);
        for (const row of rows) expect(decode(encode(row))).toEqual(row);
      }),
    );
  });

  it('survives JSON text, up to the sign of a DOUBLE zero', () => {
    fc.assert(
      fc.property(schemaWithRowsArb, ({ schema, rows }) => {
        const decode = createRowDecoder(schema);
        for (const row of rows) {
          const expected: Record<string, unknown> = { ...row };
          for (const field of schema.fields) {
            if (Object.is(row[field.name], -0)) expected[field.name] = 0;
          }
          expect(decodeJsonLine(encodeRowToJson(row, schema), decode, 'prop')).toEqual(expected);
        }
      }),
    );
  });
});

describe('MULTISET<T>', () => {
  it('reads a JSON object from element to count (Flink json) or [element, count] pairs, in canonical order', () => {
    expect(decodeOne('MULTISET<INT>', { '5': 2, '3': 1 })).toEqual([
      [3, 1],
      [5, 2],
    ]);
    expect(decodeOne('MULTISET<STRING>', [['b', 1], ['a', 2], ['b', 3]])).toEqual([
      ['a', 2],
      ['b', 4],
    ]);
    expect(decodeOne('MULTISET<DECIMAL(4, 2)>', { '1.5': 1 })).toEqual([[150n, 1]]);
    expect(decodeOne('MULTISET<ROW<a INT>>', [[{ a: 2 }, 1], [{ a: 1 }, 1]])).toEqual([
      [{ a: 1 }, 1],
      [{ a: 2 }, 1],
    ]);
  });

  it('rejects a count that is not a positive integer and an element of the wrong type', () => {
    expect(messageFor('MULTISET<INT>', { '1': 0 })).toBe("field 'v' (MULTISET<INT>): expected a positive integer count, got 0");
    expect(messageFor('MULTISET<INT>', { x: 1 })).toBe("field 'v[]' (INT): expected an integer, got \"x\"");
    expect(messageFor('MULTISET<INT>', [[1]])).toBe("field 'v' (MULTISET<INT>): expected [element, count] pairs, got [1]");
  });

  it('writes scalar elements as an object, nested and NULL elements as pairs, and reads both back', () => {
    const cases: [string, unknown][] = [
      ['MULTISET<STRING>', [['a', 2], ['b', 1]]],
      ['MULTISET<DECIMAL(4, 2)>', [[-150n, 1], [25n, 3]]],
      ['MULTISET<TIMESTAMP(3)>', [[0, 1]]],
      ['MULTISET<ARRAY<INT>>', [[[1, 2], 1]]],
      ['MULTISET<INT>', [[null, 1], [4, 2]]],
    ];
    const written = cases.map(([type, value]) => encodeRowToJson({ v: value as never }, schemaOf({ v: type })));
    expect(written).toEqual([
      '{"v":{"a":2,"b":1}}',
      '{"v":{"-1.50":1,"0.25":3}}',
      '{"v":{"1970-01-01 00:00:00.000":1}}',
      '{"v":[[[1,2],1]]}',
      '{"v":[[null,1],[4,2]]}',
    ]);
    cases.forEach(([type, value], i) => expect(decodeJsonLine(written[i]!, createRowDecoder(schemaOf({ v: type })))).toEqual({ v: value }));
  });
});
