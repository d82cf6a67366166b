import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  BUNDLE_FORMAT_VERSION,
  BundleCodec,
  MAX_KINESIS_RECORD_BYTES,
  schemaFingerprint,
  stageRecordKey,
} from '../../shared/aws/kinesis/bundle-codec.ts';
import type { BundleAddress, RowBundle, StageRecord } from '../../shared/aws/kinesis/bundle-codec.ts';
import { FlambdaError, PlanError, RecordError } from '../../shared/core/errors.ts';
import { ROW_KINDS } from '../../shared/core/row.ts';
import type { ChangeRow } from '../../shared/core/row.ts';
import { schemaOf } from '../../shared/core/type-parse.ts';
import type { Schema } from '../../shared/core/types.ts';
import { rowArb, schemaArb } from '../core/arbitraries.ts';

const address: BundleAddress = {
  producerStage: 'stage-0',
  producerShard: 'shardId-000000000002',
  first: '49590338271490256608559692538361571095921575989136588898',
  last: '49590338271490256608559692540925702759324208523137515618',
  targetShard: 'shardId-000000000001',
  partitionKey: 'stage-0/shardId-000000000002',
};

const bidSchema = schemaOf({
  auction: 'BIGINT NOT NULL',
  bidder: 'BIGINT',
  price: 'DECIMAL(10, 2)',
  ratio: 'DOUBLE',
  channel: 'VARCHAR(10)',
  ok: 'BOOLEAN',
  at: 'TIMESTAMP(3)',
});

function bid(i: number, kind: ChangeRow['kind'] = '+I'): ChangeRow {
  return {
    kind,
    row: { auction: 1000 + i, bidder: i % 7, price: BigInt(i) * 125n, ratio: i / 8, channel: `ch${i % 100}`, ok: i % 2 === 0, at: 1436918400000 + i },
  };
}

/** Decodes every record and returns the decoded records. */
function decodeAll(codec: BundleCodec, records: readonly { data: Uint8Array }[]): StageRecord[] {
  return records.map((r, i) => codec.decode(r.data, `test#${i}`));
}

/** Captures the error thrown by `fn`. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

/** Up to 120 rows at full size, so that small records split them in most runs. */
const changeRowsArb = (schema: Schema): fc.Arbitrary<ChangeRow[]> =>
  fc.array(fc.record({ kind: fc.constantFrom(...ROW_KINDS), row: rowArb(schema) }), { minLength: 1, maxLength: 120, size: 'max' });

const watermarkArb = fc.oneof(
  fc.integer({ min: -8.64e15, max: 8.64e15 }),
  fc.double({ noNaN: true }),
  fc.constantFrom(Infinity, -Infinity),
);

const idPartArb = fc.string({ minLength: 1, maxLength: 20, unit: 'grapheme' });

describe('Class: BundleCodec', () => {
  describe('Method: encodeRows / decode', () => {
    it('round-trips arbitrary schemas, rows, watermarks and ids, splitting deterministically', () => {
      let splits = 0;
      fc.assert(
        fc.property(
          schemaArb.chain((schema) => fc.tuple(fc.constant(schema), changeRowsArb(schema))),
          watermarkArb,
          fc.record({ producerStage: idPartArb, producerShard: idPartArb, first: idPartArb, last: idPartArb, targetShard: idPartArb }),
          fc.integer({ min: 1_024, max: 2_048 }),
          ([schema, rows], watermark, origin, maxRecordBytes) => {
            const codec = new BundleCodec(schema, { maxRecordBytes });
            const addr: BundleAddress = { ...origin, partitionKey: 'pk' };
            const records = codec.encodeRows(addr, rows, watermark);
            const decoded = decodeAll(codec, records) as RowBundle[];

            expect(decoded.flatMap((d) => d.rows)).toEqual(rows);
            if (records.length > 1) splits++;
            decoded.forEach((d, n) => {
              expect(d.type).toBe('rows');
              expect(d.id).toEqual({ ...origin, part: n, parts: records.length });
              // Only the last part carries the watermark (a -0 watermark reads back as 0).
              expect(d.watermark).toBe(n === records.length - 1 ? watermark + 0 : undefined);
              expect(stageRecordKey(d)).toBe(records[n]?.key);
              expect(records[n]!.data.length + 2).toBeLessThanOrEqual(maxRecordBytes);
            });
            // Same input, same bytes: a replay produces identical records.
            const again = codec.encodeRows(addr, rows, watermark);
            expect(again.map((r) => r.data.toString('base64'))).toEqual(records.map((r) => r.data.toString('base64')));
            expect(again.map((r) => r.key)).toEqual(records.map((r) => r.key));
          },
        ),
        { numRuns: 200 },
      );
      // The property exercised the splitting, not just single records.
      expect(splits).toBeGreaterThan(20);
    });

    it('writes compact positional rows with Flink RowKind byte values', () => {
      const codec = new BundleCodec(schemaOf({ id: 'BIGINT', price: 'DECIMAL(6, 2)', at: 'TIMESTAMP(3)', d: 'DOUBLE' }));
      const rows: ChangeRow[] = [
        { kind: '+I', row: { id: 1, price: 1250n, at: 0, d: 1.5 } },
        { kind: '-U', row: { id: 2, price: null, at: 1436918400005, d: NaN } },
        { kind: '+U', row: { id: 3, price: -5n, at: null, d: -0 } },
        { kind: '-D', row: { id: 4, price: 0n, at: 1, d: -Infinity } },
      ];
      const [record] = codec.encodeRows(address, rows, 1000);
      const text = record!.data.toString('utf8');
      expect(text).toBe(
        `{"v":1,"t":"r","p":"stage-0","s":"shardId-000000000002","f":"${address.first}","l":"${address.last}",` +
          `"to":"shardId-000000000001","n":0,"of":1,"wm":1000,"sc":"${codec.fingerprint}",` +
          '"r":[[0,1,"12.50",0,1.5],[1,2,null,1436918400005,"NaN"],[2,3,"-0.05",null,"-0"],[3,4,"0.00",1,"-Infinity"]]}',
      );
      const decoded = codec.decode(record!.data) as RowBundle;
      expect(decoded.rows).toEqual(rows);
      expect(Object.is(decoded.rows[2]!.row['d'], -0)).toBe(true);
    });

    it('carries MULTISET columns (COLLECT results) exactly, scalar and nested elements alike', () => {
      const schema = schemaOf({ tags: 'MULTISET<STRING>', prices: 'MULTISET<DECIMAL(6, 2)>', rows: 'MULTISET<ROW<a INT>>' });
      const codec = new BundleCodec(schema);
      const rows: ChangeRow[] = [
        { kind: '+I', row: { tags: [['a', 2], ['b', 1]], prices: [[-150n, 1], [25n, 3]], rows: [[{ a: 1 }, 2]] } },
        { kind: '-U', row: { tags: [], prices: null, rows: [[null, 1]] } },
      ];
      const [record] = codec.encodeRows(address, rows, 0);
      expect((codec.decode(record!.data) as RowBundle).rows).toEqual(rows);
    });

    it('returns no records for no rows', () => {
      expect(new BundleCodec(bidSchema).encodeRows(address, [], 5)).toEqual([]);
    });
  });

  describe('Method: encodeRows (size limits)', () => {
    it('splits many rows into parts of at most 1 MiB including the partition key, greedily and in order', () => {
      const codec = new BundleCodec(bidSchema);
      const rows = Array.from({ length: 40_000 }, (_, i) => bid(i, ROW_KINDS[i % 4]));
      const records = codec.encodeRows(address, rows, 77);
      const pkBytes = Buffer.byteLength(address.partitionKey);
      expect(records.length).toBeGreaterThanOrEqual(3);
      const rowBytes = Math.max(...rows.slice(0, 100).map((r) => Buffer.byteLength(codec.encodeRow(r))));
      records.forEach((r, n) => {
        expect(r.data.length + pkBytes).toBeLessThanOrEqual(MAX_KINESIS_RECORD_BYTES);
        // Greedy: every part but the last is full to within a row and the header's slack.
        if (n < records.length - 1) expect(r.data.length + pkBytes).toBeGreaterThan(MAX_KINESIS_RECORD_BYTES - rowBytes - 64);
      });
      // The parts cover the rows contiguously, in order.
      expect(records[0]!.rowStart).toBe(0);
      records.slice(1).forEach((r, i) => expect(r.rowStart).toBe(records[i]!.rowEnd));
      expect(records.at(-1)!.rowEnd).toBe(rows.length);
      const decoded = decodeAll(codec, records) as RowBundle[];
      expect(decoded.flatMap((d) => d.rows)).toEqual(rows);
      expect(decoded.map((d) => d.watermark)).toEqual([...Array<undefined>(records.length - 1).fill(undefined), 77]);
    });

    it('rejects a row larger than a record with a RecordError naming its size', () => {
      const codec = new BundleCodec(schemaOf({ id: 'BIGINT', blob: 'STRING' }));
      const rows: ChangeRow[] = [
        { kind: '+I', row: { id: 1, blob: 'small' } },
        { kind: '+I', row: { id: 2, blob: 'x'.repeat(MAX_KINESIS_RECORD_BYTES) } },
      ];
      const err = thrown(() => codec.encodeRows(address, rows, 0));
      expect(err).toBeInstanceOf(RecordError);
      expect((err as RecordError).retry).toBe('dead-letter');
      const size = Buffer.byteLength(codec.encodeRow(rows[1]!));
      expect((err as RecordError).message).toMatch(new RegExp(`^row 1 \\(\\+I\\) for shard shardId-000000000001 encodes to ${size} bytes;`));
      expect((err as RecordError).message).toContain('1048576-byte Kinesis record limit');
    });

    it('fits a row that exactly fills the budget, and counts multi-byte UTF-8 characters as bytes', () => {
      const codec = new BundleCodec(schemaOf({ s: 'STRING' }), { maxRecordBytes: 2_048 });
      // 'é' is 2 bytes in UTF-8: 700 of them cannot share a 2 KiB record.
      const rows: ChangeRow[] = [0, 1, 2].map(() => ({ kind: '+I', row: { s: 'é'.repeat(700) } }));
      const records = codec.encodeRows(address, rows, 0);
      expect(records).toHaveLength(3);
      for (const r of records) expect(r.data.length + Buffer.byteLength(address.partitionKey)).toBeLessThanOrEqual(2_048);
    });

    it('validates maxRecordBytes', () => {
      expect(() => new BundleCodec(bidSchema, { maxRecordBytes: 100 })).toThrow(PlanError);
      expect(() => new BundleCodec(bidSchema, { maxRecordBytes: MAX_KINESIS_RECORD_BYTES + 1 })).toThrow(/1024\.\.1048576 \(given 1048577\)/);
    });
  });

  describe('Method: encodeWatermark / encodeHeartbeat', () => {
    it('round-trips watermark-only records, ±Infinity included', () => {
      const codec = new BundleCodec(bidSchema);
      for (const wm of [0, 1436918400000, -Infinity, Infinity, -5.5]) {
        const record = codec.encodeWatermark(address, wm);
        const decoded = codec.decode(record.data);
        expect(decoded).toEqual({
          type: 'watermark',
          id: { producerStage: 'stage-0', producerShard: address.producerShard, first: address.first, last: address.last, targetShard: address.targetShard, part: 0, parts: 1 },
          watermark: wm,
        });
        expect(stageRecordKey(decoded)).toBe(record.key);
      }
    });

    it('round-trips heartbeats', () => {
      const codec = new BundleCodec(bidSchema);
      const record = codec.encodeHeartbeat({ ...address }, 1700000000000, 1699999990000);
      expect(record.data.toString()).toBe(
        '{"v":1,"t":"h","p":"stage-0","s":"shardId-000000000002","to":"shardId-000000000001","at":1700000000000,"wm":1699999990000}',
      );
      const decoded = codec.decode(record.data);
      expect(decoded).toEqual({
        type: 'heartbeat',
        producerStage: 'stage-0',
        producerShard: address.producerShard,
        targetShard: address.targetShard,
        at: 1700000000000,
        watermark: 1699999990000,
      });
      expect(stageRecordKey(decoded)).toBe(record.key);
    });

    it('gives distinct keys to distinct parts, targets and ranges', () => {
      const codec = new BundleCodec(bidSchema, { maxRecordBytes: 1_024 });
      const rows = Array.from({ length: 30 }, (_, i) => bid(i));
      const keys = [
        ...codec.encodeRows(address, rows, 0).map((r) => r.key),
        ...codec.encodeRows({ ...address, targetShard: 'shardId-000000000003' }, rows, 0).map((r) => r.key),
        ...codec.encodeRows({ ...address, last: address.first }, rows, 0).map((r) => r.key),
        codec.encodeWatermark({ ...address, first: '1', last: '2' }, 0).key,
        codec.encodeHeartbeat(address, 5, 0).key,
      ];
      expect(new Set(keys).size).toBe(keys.length);
    });

    it('rejects ids and watermarks it cannot write', () => {
      const codec = new BundleCodec(bidSchema);
      expect(() => codec.encodeWatermark({ ...address, first: '' }, 0)).toThrow(FlambdaError);
      expect(() => codec.encodeWatermark(address, NaN)).toThrow(/watermark must be a number/);
      expect(() => codec.encodeHeartbeat(address, Infinity, 0)).toThrow(/heartbeat time must be finite/);
      expect(() => codec.encodeRows(address, [{ kind: '+I', row: { auction: 1, price: 5 } }], 0)).toThrow(
        /field 'price' \(DECIMAL\(10, 2\)\): expected a bigint value/,
      );
    });
  });

  describe('Method: decode (validation)', () => {
    const codec = new BundleCodec(bidSchema);
    const good = JSON.parse(codec.encodeRows(address, [bid(1), bid(2)], 9)[0]!.data.toString()) as Record<string, unknown>;
    const decodeError = (json: unknown, raw = false): RecordError => {
      const err = thrown(() => codec.decode(raw ? (json as string) : JSON.stringify(json), 'shardId-000000000001@42'));
      expect(err).toBeInstanceOf(RecordError);
      return err as RecordError;
    };

    it('decodes a valid record from bytes or text', () => {
      expect((codec.decode(JSON.stringify(good)) as RowBundle).rows).toEqual([bid(1), bid(2)]);
    });

    it.each([
      ['not JSON', '{"v":1,', /^shardId-000000000001@42: invalid stage record: not JSON/],
      ['not an object', '[1,2]', /expected a JSON object/],
    ])('rejects %s', (_name, text, message) => {
      expect(decodeError(text, true).message).toMatch(message);
    });

    it('rejects invalid UTF-8', () => {
      const err = thrown(() => codec.decode(new Uint8Array([0x7b, 0xff, 0x7d])));
      expect(err).toBeInstanceOf(RecordError);
      expect((err as Error).message).toContain('not UTF-8');
    });

    it.each<[string, Record<string, unknown>, RegExp]>([
      ['another version', { v: 2 }, /unsupported format version 2 \(this reader reads version 1\)/],
      ['a missing version', { v: undefined }, /unsupported format version undefined/],
      ['an unknown type', { t: 'x' }, /"t" must be "r", "w" or "h", got "x"/],
      ['a missing producer', { p: undefined }, /"p" must be a non-empty string, got nothing/],
      ['an empty range', { f: '' }, /"f" must be a non-empty string/],
      ['a bad part', { n: -1 }, /"n" must be an integer >= 0, got -1/],
      ['a part past the count', { n: 1, of: 1 }, /part "n" 1 is not below "of" 1/],
      ['a last part without watermark', { wm: undefined }, /the last part must carry "wm"/],
      ['an early part with watermark', { n: 0, of: 2 }, /part 0 of 2 must not carry "wm"/],
      ['a bad watermark', { wm: 'soon' }, /"wm" must be a finite number, "Infinity" or "-Infinity", got "soon"/],
      ['another schema', { sc: 'deadbeef' }, /schema fingerprint "deadbeef" does not match/],
      ['no rows', { r: [] }, /"r" must be a non-empty array of rows/],
      ['a short row', { r: [[0, 1]] }, /row 0 must be an array \[kind, 7 values\], got \[0,1\]/],
      ['an unknown kind', { r: [[4, 1, 2, '1.00', 0.5, 'a', true, 0]] }, /row 0 has kind 4; expected 0 \(\+I\)/],
      ['a kind as text', { r: [['0', 1, 2, '1.00', 0.5, 'a', true, 0]] }, /row 0 has kind "0"/],
    ])('rejects %s', (_name, patch, message) => {
      const json: Record<string, unknown> = { ...good, ...patch };
      for (const [k, v] of Object.entries(patch)) if (v === undefined) delete json[k];
      const err = decodeError(json);
      expect(err.message).toMatch(message);
      expect(err.message).toMatch(/^shardId-000000000001@42: invalid stage record: /);
      expect(err.position).toBe('shardId-000000000001@42');
    });

    it('validates values through the row codec, naming the row and field', () => {
      const err = decodeError({ ...good, r: [[0, null, 2, '1.00', 0.5, 'a', true, 0]] });
      expect(err.message).toBe("shardId-000000000001@42 row 0: field 'auction' (BIGINT NOT NULL): expected a value, got null");
      expect(err.field).toBe('auction');
      expect(decodeError({ ...good, r: [[0, 1, 2, '1.00', 0.5, 'far too long', true, 0]] }).message).toContain(
        "field 'channel' (VARCHAR(10)): expected at most 10 characters",
      );
      expect(decodeError({ ...good, r: [[0, 1, 2, '1.00', 0.5, 'a', true, 1e20]] }).message).toContain("field 'at' (TIMESTAMP(3))");
    });

    it('ignores unknown keys (additive changes within a version)', () => {
      expect((codec.decode(JSON.stringify({ ...good, extra: { any: 1 } })) as RowBundle).rows).toHaveLength(2);
    });

    it('checks the version constant it writes', () => {
      expect(good['v']).toBe(BUNDLE_FORMAT_VERSION);
    });
  });
});

describe('Function: schemaFingerprint', () => {
  it('changes with names, order, types and nullability, and is stable', () => {
    const base = schemaFingerprint(schemaOf({ a: 'BIGINT', b: 'STRING' }));
    expect(base).toMatch(/^[0-9a-f]{8}$/);
    expect(schemaFingerprint(schemaOf({ a: 'BIGINT', b: 'STRING' }))).toBe(base);
    for (const other of [
      schemaOf({ b: 'STRING', a: 'BIGINT' }),
      schemaOf({ a: 'BIGINT', c: 'STRING' }),
      schemaOf({ a: 'INT', b: 'STRING' }),
      schemaOf({ a: 'BIGINT NOT NULL', b: 'STRING' }),
      schemaOf({ a: 'BIGINT', b: 'VARCHAR(3)' }),
    ]) {
      expect(schemaFingerprint(other)).not.toBe(base);
    }
  });
});
