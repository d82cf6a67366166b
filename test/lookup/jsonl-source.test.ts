import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaOf } from '../../shared/core/type-parse.ts';
import { encodeLookupKey } from '../../shared/lookup/dimension-source.ts';
import { DimensionDataError } from '../../shared/lookup/errors.ts';
import { createFunctionSource } from '../../shared/lookup/function-source.ts';
import { createJsonlSource } from '../../shared/lookup/jsonl-source.ts';

let dir: string;
const schema = schemaOf({ key: 'BIGINT NOT NULL', value: 'STRING', price: 'DECIMAL(6, 2)' });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lookup-jsonl-'));
  await writeFile(join(dir, 'dim.jsonl'), '{"key": 1, "value": "one", "price": "1.50"}\n\n{"key": 2, "value": null}\n{"key": 2, "value": "two-b", "price": 3}\n');
  await writeFile(join(dir, 'bad.jsonl'), '{"key": 1}\n{"key": "x"}\n');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('JSON-lines dimension source', () => {
  it('decodes with the dimension schema and looks keys up in memory, non-unique keys included', async () => {
    const source = createJsonlSource({ table: 'dim', path: join(dir, 'dim.jsonl'), schema });
    const result = await source.lookupMany([{ key: 1 }, { key: 2 }, { key: 3 }]);
    expect(result.get(encodeLookupKey({ key: 1 }, ['key']))).toEqual([{ key: 1, value: 'one', price: 150n }]);
    expect(result.get(encodeLookupKey({ key: 2 }, ['key']))).toEqual([
      { key: 2, value: null, price: null },
      { key: 2, value: 'two-b', price: 300n },
    ]);
    expect(result.size).toBe(2);
    expect((await source.loadAll!()).length).toBe(3);
    expect((await source.lookupMany([{ value: 'two-b' }])).size).toBe(1);
  });

  it('a bad line stops with an error naming the table and file:line', async () => {
    const source = createJsonlSource({ table: 'dim', path: join(dir, 'bad.jsonl'), schema });
    const error = await source.lookupMany([{ key: 1 }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DimensionDataError);
    expect((error as Error).message).toMatch(/^lookup table 'dim': .*bad\.jsonl:2: field 'key'/);
  });

  it('a missing file is a DimensionDataError', async () => {
    const source = createJsonlSource({ table: 'dim', path: join(dir, 'nope.jsonl'), schema });
    await expect(source.lookupMany([{ key: 1 }])).rejects.toThrow(/lookup table 'dim': cannot read/);
  });
});

describe('function dimension source', () => {
  it('validates the rows the function returns and keeps only the asked-for keys', async () => {
    const source = createFunctionSource({
      table: 'fn',
      schema,
      lookup: async (keys) => [...keys.map((k) => ({ key: k.key!, value: `v${String(k.key)}`, price: 1n })), { key: 99, value: 'extra', price: null }],
    });
    const result = await source.lookupMany([{ key: 5 }, { key: null }]);
    expect([...result.entries()]).toEqual([[encodeLookupKey({ key: 5 }, ['key']), [{ key: 5, value: 'v5', price: 1n }]]]);
    const bad = createFunctionSource({ table: 'fn', schema, lookup: () => [{ key: 1.5, value: 'x', price: null }] });
    await expect(bad.lookupMany([{ key: 1 }])).rejects.toThrow(/lookup table 'fn' column 'key' \(BIGINT NOT NULL\): value 1\.5 does not fit/);
  });
});
