/**
 * The behaviour both SQL sources must show against a real database, as a reusable suite: keys of
 * several types, composite keys, NULLs, missing and non-unique keys, exact values, one query per
 * call, and clear errors for values that do not fit.
 */
import { describe, expect, it } from 'vitest';
import type { Row } from '../../shared/core/types.ts';
import type { DimensionSource } from '../../shared/lookup/dimension-source.ts';
import { encodeLookupKey } from '../../shared/lookup/dimension-source.ts';
import { DimensionDataError } from '../../shared/lookup/errors.ts';
import { expectedRows, ms } from './sql-fixture.ts';

/** What the suite needs from a database-specific test file. */
export interface SqlSuiteContext {
  /** The source over the fixture table (created in beforeAll). */
  source(): DimensionSource;
  /** Statements the source has sent so far. */
  queries(): number;
  /** A source over a table whose `price` column has 4 fraction digits (value 1.2345), read as DECIMAL(10, 2). */
  badSource(): DimensionSource;
}

const sorted = (rows: readonly Row[] | undefined): Row[] => [...(rows ?? [])].sort((a, b) => Number(a.id) - Number(b.id));

/** Registers the suite. */
export function sqlSourceSuite(ctx: SqlSuiteContext): void {
  describe('lookups against the real table', () => {
    it('finds BIGINT keys exactly, leaves missing keys out, one statement per call', async () => {
      const before = ctx.queries();
      const result = await ctx.source().lookupMany([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 9007199254740991 }, { id: 99 }]);
      expect(ctx.queries() - before).toBe(1);
      expect(result.size).toBe(4);
      expect(result.get(encodeLookupKey({ id: 1 }, ['id']))).toEqual([expectedRows[1]]);
      expect(result.get(encodeLookupKey({ id: 2 }, ['id']))).toEqual([expectedRows[2]]);
      expect(result.get(encodeLookupKey({ id: 3 }, ['id']))).toEqual([expectedRows[3]]);
      expect(result.get(encodeLookupKey({ id: 9007199254740991 }, ['id']))).toEqual([expectedRows[4]]);
      expect(result.has(encodeLookupKey({ id: 99 }, ['id']))).toBe(false);
    });

    it('composite STRING + INT keys', async () => {
      const keys = [
        { region: 'eu', sku: 10 },
        { region: 'us', sku: 10 },
        { region: 'eu', sku: -2147483648 },
        { region: 'xx', sku: 10 },
      ];
      const result = await ctx.source().lookupMany(keys);
      expect(result.size).toBe(3);
      expect(result.get(encodeLookupKey(keys[0]!, ['region', 'sku']))).toEqual([expectedRows[1]]);
      expect(result.get(encodeLookupKey(keys[1]!, ['region', 'sku']))).toEqual([expectedRows[3]]);
      expect(result.get(encodeLookupKey(keys[2]!, ['region', 'sku']))).toEqual([expectedRows[4]]);
    });

    it('DECIMAL and TIMESTAMP keys', async () => {
      const byPrice = await ctx.source().lookupMany([{ price: 1250n }, { price: -99999999n }, { price: 7n }]);
      expect(byPrice.size).toBe(2);
      expect(byPrice.get(encodeLookupKey({ price: 1250n }, ['price']))).toEqual([expectedRows[1]]);
      const t = ms('2024-01-02 03:04:05.678');
      const byTs = await ctx.source().lookupMany([{ ts: t }, { ts: 0 }, { ts: t + 1 }]);
      expect(byTs.size).toBe(2);
      expect(byTs.get(encodeLookupKey({ ts: t }, ['ts']))).toEqual([expectedRows[1]]);
      expect(byTs.get(encodeLookupKey({ ts: 0 }, ['ts']))).toEqual([expectedRows[2]]);
    });

    it('a non-unique key returns every matching row', async () => {
      const result = await ctx.source().lookupMany([{ grp: 'g1' }, { grp: 'g2' }]);
      expect(sorted(result.get(encodeLookupKey({ grp: 'g1' }, ['grp'])))).toEqual([expectedRows[1], expectedRows[2]]);
      expect(result.get(encodeLookupKey({ grp: 'g2' }, ['grp']))).toEqual([expectedRows[3]]);
    });

    it('NULL keys match nothing and send no statement; duplicate keys are asked once', async () => {
      const before = ctx.queries();
      expect((await ctx.source().lookupMany([{ name: null }])).size).toBe(0);
      expect(ctx.queries() - before).toBe(0);
      const result = await ctx.source().lookupMany([{ id: 1 }, { id: 1 }, { id: null }]);
      expect(ctx.queries() - before).toBe(1);
      expect([...result.keys()]).toEqual([encodeLookupKey({ id: 1 }, ['id'])]);
    });

    it('loadAll returns the whole table', async () => {
      expect(sorted(await ctx.source().loadAll!())).toEqual([expectedRows[1], expectedRows[2], expectedRows[3], expectedRows[4]]);
    });

    it('a stored value that does not fit the dimension type is an error naming table, column and value', async () => {
      const error = await ctx
        .badSource()
        .lookupMany([{ id: 1 }])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DimensionDataError);
      expect((error as DimensionDataError).column).toBe('price');
      expect((error as Error).message).toMatch(/lookup table '[^']+' column 'price' \(DECIMAL\(10, 2\)\): value "1\.2345" does not fit/);
    });
  });
}
