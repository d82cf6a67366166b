/**
 * The compiled ORDER BY: the value comparator agrees with the order of the encoded keys for any
 * columns, directions and null orders, so the comparator's early rejection and the buffer's key
 * order never disagree.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PlanError } from '../../../shared/core/errors.ts';
import { schemaOf } from '../../../shared/core/type-parse.ts';
import type { Row, Value } from '../../../shared/core/types.ts';
import { compileOrderKey } from '../../../shared/operators/rank/order-key.ts';
import type { SortField } from '../../../shared/plan/logical.ts';

const schema = schemaOf({ n: 'DOUBLE', s: 'STRING', d: 'DECIMAL(10, 2)', f: 'BOOLEAN' });

const valueArb: Record<string, fc.Arbitrary<Value>> = {
  n: fc.oneof(fc.constant(null), fc.constantFrom(-0, 0, 1, -1, NaN, Infinity, -Infinity), fc.double()),
  s: fc.option(fc.string({ unit: 'grapheme', maxLength: 4 }), { nil: null }),
  d: fc.option(fc.bigInt({ min: -10_000n, max: 10_000n }), { nil: null }),
  f: fc.option(fc.boolean(), { nil: null }),
};

const rowArb: fc.Arbitrary<Row> = fc.record(valueArb);

const fieldsArb: fc.Arbitrary<SortField[]> = fc.uniqueArray(
  fc.record({
    column: fc.constantFrom('n', 's', 'd', 'f'),
    direction: fc.constantFrom<'ASC' | 'DESC'>('ASC', 'DESC'),
    nullsFirst: fc.boolean(),
  }),
  { minLength: 1, maxLength: 4, selector: (f) => f.column },
);

const sign = (x: number): number => (x < 0 ? -1 : x > 0 ? 1 : 0);

describe('compileOrderKey', () => {
  it('compare(a, b) has the sign of comparing encode(a) and encode(b)', () => {
    fc.assert(
      fc.property(fieldsArb, rowArb, rowArb, (fields, a, b) => {
        const order = compileOrderKey(fields, schema);
        const ka = order.encode(a);
        const kb = order.encode(b);
        expect(sign(order.compare(a, b))).toBe(ka < kb ? -1 : ka > kb ? 1 : 0);
      }),
      { numRuns: 2000 },
    );
  });

  it('places nulls by NULLS FIRST/LAST whatever the direction', () => {
    for (const direction of ['ASC', 'DESC'] as const) {
      const first = compileOrderKey([{ column: 'n', direction, nullsFirst: true }], schema);
      const last = compileOrderKey([{ column: 'n', direction, nullsFirst: false }], schema);
      expect(first.compare({ n: null }, { n: 1 })).toBeLessThan(0);
      expect(last.compare({ n: null }, { n: 1 })).toBeGreaterThan(0);
    }
  });

  it('rejects an empty ORDER BY, a missing column and a bad direction', () => {
    expect(() => compileOrderKey([], schema)).toThrow(/ORDER BY needs at least one column/);
    expect(() => compileOrderKey([{ column: 'x', direction: 'ASC', nullsFirst: true }], schema)).toThrow(PlanError);
    expect(() => compileOrderKey([{ column: 'n', direction: 'UP' as 'ASC', nullsFirst: true }], schema)).toThrow(
      /ORDER BY n direction must be ASC or DESC, got "UP"/,
    );
  });
});
