import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ChannelWatermarks } from '../../shared/aws/stage-input/channel-watermarks.ts';
import { classifyBundle } from '../../shared/aws/stage-input/high-water-mark.ts';
import type { ChannelProgress } from '../../shared/aws/stage-input/high-water-mark.ts';
import { decodeValue, encodeValue } from '../../shared/aws/state/value-codec.ts';
import type { BundleId } from '../../shared/aws/kinesis/bundle-codec.ts';
import { FlambdaError } from '../../shared/core/errors.ts';
import { InputWatermarks } from '../../shared/runtime/watermarks.ts';

/** One operation on both combiners. */
type Op =
  | { readonly type: 'update'; readonly channel: number; readonly watermark: number; readonly dt: number }
  | { readonly type: 'active'; readonly channel: number; readonly dt: number }
  | { readonly type: 'recompute'; readonly dt: number }
  | { readonly type: 'snapshot' };

const opArb = (channels: number): fc.Arbitrary<Op> =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        type: fc.constant('update' as const),
        channel: fc.nat({ max: channels - 1 }),
        watermark: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: -100, max: 1_000 }) }, { weight: 1, arbitrary: fc.constant(Infinity) }),
        dt: fc.nat({ max: 60 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ type: fc.constant('active' as const), channel: fc.nat({ max: channels - 1 }), dt: fc.nat({ max: 60 }) }) },
    { weight: 2, arbitrary: fc.record({ type: fc.constant('recompute' as const), dt: fc.nat({ max: 150 }) }) },
    { weight: 1, arbitrary: fc.constant({ type: 'snapshot' as const }) },
  );

describe('Class: ChannelWatermarks', () => {
  it('behaves exactly like InputWatermarks, including channels not heard from yet, across snapshot → restore', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }).chain((n) =>
          fc.record({ n: fc.constant(n), timeout: fc.option(fc.integer({ min: 0, max: 100 })), ops: fc.array(opArb(n), { maxLength: 60 }) }),
        ),
        ({ n, timeout, ops }) => {
          const reference = new InputWatermarks(n, timeout ?? undefined);
          const options = { startTime: 0, ...(timeout === null ? {} : { idleTimeoutMs: timeout }) };
          let subject = new ChannelWatermarks(n, options);
          let now = 0;
          for (const op of ops) {
            if (op.type === 'snapshot') {
              const snapshot = decodeValue(encodeValue(subject.snapshot())) as ReturnType<ChannelWatermarks['snapshot']>;
              subject = new ChannelWatermarks(n, options);
              subject.restore(structuredClone(snapshot));
              continue;
            }
            now += op.dt;
            let expected: number | undefined;
            let actual: number | undefined;
            if (op.type === 'update') {
              expected = reference.update(op.channel, op.watermark, now);
              actual = subject.update(`c${op.channel}`, op.watermark, now);
            } else if (op.type === 'active') {
              reference.markActive(op.channel, now);
              subject.markActive(`c${op.channel}`, now);
            } else {
              expected = reference.recompute(now);
              actual = subject.recompute(now);
            }
            expect(actual).toBe(expected);
            expect(subject.current).toBe(reference.current);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('moves to the maximum over the channels when every channel is idle (StatusWatermarkValve), and never goes back', () => {
    const w = new ChannelWatermarks(2, { idleTimeoutMs: 10 });
    expect(w.update('a', 5, 0)).toBeUndefined();
    expect(w.update('b', 7, 1)).toBe(5);
    expect(w.recompute(100)).toBe(7);
    expect(w.current).toBe(7);
    expect(w.update('a', 3, 101)).toBeUndefined();
    expect(w.update('a', 9, 102)).toBe(9);
    expect(w.processingTime).toBe(102);
    expect(w.knownChannels).toEqual(['a', 'b']);
  });

  it('refuses a snapshot taken with another channel count or timeout, and bad options', () => {
    const snapshot = new ChannelWatermarks(2, { idleTimeoutMs: 10 }).snapshot();
    expect(() => new ChannelWatermarks(3, { idleTimeoutMs: 10 }).restore(snapshot)).toThrow(FlambdaError);
    expect(() => new ChannelWatermarks(2).restore(snapshot)).toThrow(/idle timeout 10/);
    expect(() => new ChannelWatermarks(0)).toThrow('expected channel count must be an integer >= 1 (given 0)');
    expect(() => new ChannelWatermarks(1, { idleTimeoutMs: -1 })).toThrow('idleTimeoutMs must be a finite number >= 0 (given -1)');
  });
});

describe('Function: classifyBundle', () => {
  const s = (n: number) => String(1000 + n);
  const id = (first: number, last: number, part = 0, parts = 1): BundleId => ({
    producerStage: 'stage-0',
    producerShard: 'p',
    first: s(first),
    last: s(last),
    targetShard: 't',
    part,
    parts,
  });
  const mark = (first: number, last: number, part = 0, parts = 1): ChannelProgress => ({ producerShard: 'p', first: s(first), last: s(last), part, parts });

  it.each([
    ['first bundle', undefined, id(1, 5), { action: 'apply', gap: false }],
    ['first bundle at a later part', undefined, id(1, 5, 1, 2), { action: 'apply', gap: true }],
    ['next part', mark(1, 5, 0, 3), id(1, 5, 1, 3), { action: 'apply', gap: false }],
    ['skipped part', mark(1, 5, 0, 3), id(1, 5, 2, 3), { action: 'apply', gap: true }],
    ['same part again', mark(1, 5, 1, 3), id(1, 5, 1, 3), { action: 'duplicate' }],
    ['earlier part', mark(1, 5, 1, 3), id(1, 5, 0, 3), { action: 'duplicate' }],
    ['same range, other split', mark(1, 5, 0, 3), id(1, 5, 1, 2), { action: 'overlap' }],
    ['next range', mark(1, 5, 2, 3), id(6, 9), { action: 'apply', gap: false }],
    ['next range at part 1', mark(1, 5), id(6, 9, 1, 2), { action: 'apply', gap: true }],
    ['next range, previous incomplete', mark(1, 5, 1, 3), id(6, 9), { action: 'apply', gap: true }],
    ['earlier range', mark(6, 9), id(1, 5, 1, 2), { action: 'duplicate' }],
    ['sub-range of a complete range', mark(1, 9), id(3, 6), { action: 'duplicate' }],
    ['range ending where a complete one ended', mark(5, 9), id(1, 9), { action: 'duplicate' }],
    ['sub-range of an incomplete range', mark(1, 9, 0, 2), id(3, 6), { action: 'overlap' }],
    ['before an incomplete range', mark(5, 9, 0, 2), id(1, 4), { action: 'duplicate' }],
    ['longer range from the same start', mark(1, 5, 0, 2), id(1, 8), { action: 'overlap' }],
    ['range straddling a complete one', mark(1, 5), id(4, 8), { action: 'overlap' }],
    ['longer numbers sort after shorter', { ...mark(1, 5), first: '998', last: '999' }, { ...id(1, 2), first: '1000', last: '1001' }, { action: 'apply', gap: false }],
  ] as const)('%s', (_name, m, bundle, verdict) => {
    expect(classifyBundle(m, bundle)).toEqual(verdict);
  });
});
