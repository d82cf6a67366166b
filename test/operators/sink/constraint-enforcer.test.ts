/**
 * The sink constraint enforcer on its own: what fits each target, what does not and the message,
 * and that a batch with a bad row emits nothing (the operator contract).
 */
import { describe, expect, it } from 'vitest';
import { RecordError } from '../../../shared/core/errors.ts';
import type { ChangeRow } from '../../../shared/core/row.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row } from '../../../shared/core/types.ts';
import { createConstraintEnforcer, dynamoDbItemBytes, type ConstraintEnforcerSpec } from '../../../shared/operators/sink/constraint-enforcer.ts';

const schema = schemaOf({ k: 'STRING', n: 'INT', b: 'BIGINT', d: 'DOUBLE', s: 'STRING' });

/** Runs one batch; the emitted rows, or the error. */
function run(spec: Partial<ConstraintEnforcerSpec>, rows: readonly ChangeRow[]): ChangeRow[] | RecordError {
  const op = createConstraintEnforcer({ sink: 'out', schema, target: 'other', notNull: [], ...spec });
  const out: ChangeRow[] = [];
  try {
    void op.processBatch(rows, { emit: (r) => out.push(r), emitSide: () => {} });
  } catch (error) {
    if (error instanceof RecordError) return error;
    throw error;
  }
  return out;
}
const ins = (row: Row): ChangeRow => ({ kind: '+I', row });
const good = ins({ k: 'a', n: 1, b: 2, d: 0.5, s: 'x' });

describe('Function: createConstraintEnforcer', () => {
  it('passes fitting rows through unchanged, in order', () => {
    const rows = [good, { kind: '-D' as const, row: { k: 'b', n: null, b: null, d: null, s: null } }];
    expect(run({ target: 'dynamodb', upsertKey: ['k'] }, rows)).toEqual(rows);
  });

  it('names a value of the wrong type or beyond its type, and emits nothing of the batch', () => {
    const cases: [Row, string][] = [
      [{ ...good.row, n: 2 ** 31 }, "column 'n' of sink 'out': 2147483648 overflows INT"],
      [{ ...good.row, n: 1.5 }, "column 'n' of sink 'out': 1.5 is not an INT"],
      [{ ...good.row, b: 2 ** 60 }, "column 'b' of sink 'out': 1152921504606847000 overflows BIGINT (beyond ±2^53 − 1, the exact range)"],
      [{ ...good.row, s: 7 }, "column 's' of sink 'out': 7 is not a STRING"],
      [{ ...good.row, d: 'NaN' }, "column 'd' of sink 'out': 'NaN' is not a DOUBLE"],
    ];
    for (const [row, message] of cases) {
      const result = run({}, [good, ins(row)]);
      expect(result).toBeInstanceOf(RecordError);
      expect((result as RecordError).message).toBe(message);
    }
  });

  it('names DATE, TIME and TIMESTAMP_LTZ values of the wrong representation', () => {
    const temporal = schemaOf({ dt: 'DATE', tm: 'TIME(0)', ltz: 'TIMESTAMP_LTZ(3)' });
    const check = (row: Row): ChangeRow[] | RecordError => {
      const op = createConstraintEnforcer({ sink: 'out', schema: temporal, target: 'other', notNull: [] });
      const out: ChangeRow[] = [];
      try {
        void op.processBatch([ins(row)], { emit: (r) => out.push(r), emitSide: () => {} });
      } catch (error) {
        if (error instanceof RecordError) return error;
        throw error;
      }
      return out;
    };
    expect(check({ dt: 19787, tm: 45_296_000, ltz: 5 })).toEqual([ins({ dt: 19787, tm: 45_296_000, ltz: 5 })]);
    expect((check({ dt: 1.5, tm: 0, ltz: 0 }) as RecordError).message).toBe("column 'dt' of sink 'out': 1.5 is not a DATE");
    expect((check({ dt: 0, tm: 86_400_000, ltz: 0 }) as RecordError).message).toBe("column 'tm' of sink 'out': 86400000 is not a TIME");
    expect((check({ dt: 0, tm: 0, ltz: '1970' }) as RecordError).message).toBe("column 'ltz' of sink 'out': '1970' is not a TIMESTAMP_LTZ");
  });

  it('checks NOT NULL only on the columns it is given', () => {
    const withNull = ins({ ...good.row, s: null });
    expect(run({ notNull: ['n'] }, [withNull])).toEqual([withNull]);
    expect((run({ notNull: ['s'] }, [withNull]) as RecordError).message).toBe("column 's' of sink 'out' is NOT NULL, but the row has a NULL there");
  });

  it('refuses DOUBLEs DynamoDB cannot hold, and a key over 2048 bytes; a delete is only its key', () => {
    for (const d of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e200, 1e-200]) {
      expect((run({ target: 'dynamodb', upsertKey: ['k'] }, [ins({ ...good.row, d })]) as RecordError).message).toContain(`column 'd' of sink 'out': ${d} is not a number DynamoDB can hold`);
    }
    expect(run({ target: 'kinesis' }, [ins({ ...good.row, d: Number.NaN })])).toHaveLength(1);
    expect((run({ target: 'dynamodb', upsertKey: ['k'] }, [ins({ ...good.row, k: 'k'.repeat(2100) })]) as RecordError).message).toBe(
      "the item key of sink 'out' is 2104 bytes; DynamoDB takes at most 2048",
    );
    const big = 'z'.repeat(410 * 1024);
    expect(run({ target: 'dynamodb', upsertKey: ['k'] }, [{ kind: '-D', row: { ...good.row, s: big } }])).toHaveLength(1);
    expect((run({ target: 'dynamodb', upsertKey: ['k'] }, [ins({ ...good.row, s: big })]) as RecordError).message).toMatch(/^the item of sink 'out' is 4198\d\d bytes; DynamoDB takes at most 409600 \(400 KB\)$/);
  });

  it('sizes an item as DynamoDB bills it: names plus values, numbers by their digits', () => {
    // pk (2) + '["a"]' (5) + k (1+1) + n (1 + 2) + ok (2 + 1) + nil (3 + 1)
    expect(dynamoDbItemBytes('["a"]', { k: 'a', n: 12, ok: true, nil: null })).toBe(19);
    expect(dynamoDbItemBytes('p', { n: 123456789.125 })).toBe(2 + 1 + 1 + 7);
  });

  it('refuses a Kinesis record over 1 MiB with its partition key, and takes one just under', () => {
    // {"op":"+I","k":"a","n":1,"b":2,"d":0.5,"s":"…"} is 46 bytes plus s; the partition key is the whole row's MD5 (32).
    const limit = 1024 * 1024 - 46 - 32;
    expect(run({ target: 'kinesis' }, [ins({ ...good.row, s: 'q'.repeat(limit) })])).toHaveLength(1);
    expect((run({ target: 'kinesis' }, [ins({ ...good.row, s: 'q'.repeat(limit + 1) })]) as RecordError).message).toBe(
      "the record of sink 'out' is 1048577 bytes with its partition key; Kinesis takes at most 1048576 (1 MiB)",
    );
  });
});
