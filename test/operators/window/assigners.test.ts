/** Window assigners and window arithmetic, including negative timestamps and offsets. */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { PlanError } from '../../../shared/core/errors.ts';
import { createWindowAssigner } from '../../../shared/operators/window/assigners.ts';
import {
  cleanupTime,
  parseWindowNamespace,
  windowNamespace,
  windowStartWithOffset,
} from '../../../shared/operators/window/time-window.ts';
import { cumulate, hop, session, tumble } from './window-test-kit.ts';

describe('windowStartWithOffset (TimeWindow.getWindowStartWithOffset)', () => {
  it('aligns positive and negative timestamps', () => {
    expect(windowStartWithOffset(7, 0, 5)).toBe(5);
    expect(windowStartWithOffset(-1, 0, 5)).toBe(-5);
    expect(windowStartWithOffset(-5, 0, 5)).toBe(-5);
    expect(windowStartWithOffset(-6, 0, 5)).toBe(-10);
    expect(windowStartWithOffset(1, 3, 5)).toBe(-2);
    expect(windowStartWithOffset(1, -3, 5)).toBe(-3);
  });

  it('the start is aligned, at most the timestamp, and within one size of it', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: -1e6, max: 1e6 }), (ts, size, rawOffset) => {
        const offset = rawOffset % size;
        const start = windowStartWithOffset(ts, offset, size);
        expect(start).toBeLessThanOrEqual(ts);
        expect(ts - start).toBeLessThan(size);
        expect((((start - offset) % size) + size) % size).toBe(0);
      }),
    );
  });
});

describe('assigners', () => {
  it('TUMBLE assigns one window', () => {
    expect(createWindowAssigner(tumble(10)).assign(-3)).toEqual([{ start: -10, end: 0 }]);
    expect(createWindowAssigner(tumble(10, -3)).assign(-3)).toEqual([{ start: -3, end: 7 }]);
  });

  it('HOP assigns size/slide windows, latest first, as SlidingEventTimeWindows', () => {
    expect(createWindowAssigner(hop(10, 5)).assign(-1)).toEqual([
      { start: -5, end: 5 },
      { start: -10, end: 0 },
    ]);
    expect(createWindowAssigner(hop(9, 3, 1)).assign(0)).toEqual([
      { start: -2, end: 7 },
      { start: -5, end: 4 },
      { start: -8, end: 1 },
    ]);
  });

  it('CUMULATE assigns the windows of its max-size window ending after the element', () => {
    expect(createWindowAssigner(cumulate(12, 4)).assign(5)).toEqual([
      { start: 0, end: 8 },
      { start: 0, end: 12 },
    ]);
    expect(createWindowAssigner(cumulate(12, 4)).assign(-1)).toEqual([{ start: -12, end: 0 }]);
  });

  it('SESSION assigns [ts, ts + gap) and merges', () => {
    const assigner = createWindowAssigner(session(10));
    expect(assigner.merging).toBe(true);
    expect(assigner.assign(-4)).toEqual([{ start: -4, end: 6 }]);
  });

  it('every assigned window contains the timestamp; HOP and CUMULATE assign the expected number', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 6 }), (ts, unit, k) => {
        const hopWindows = createWindowAssigner(hop(unit * k, unit)).assign(ts);
        expect(hopWindows).toHaveLength(k);
        const cumulateWindows = createWindowAssigner(cumulate(unit * k, unit)).assign(ts);
        expect(cumulateWindows.length).toBeGreaterThanOrEqual(1);
        expect(cumulateWindows.length).toBeLessThanOrEqual(k);
        for (const w of [...hopWindows, ...cumulateWindows, ...createWindowAssigner(tumble(unit)).assign(ts)]) {
          expect(w.start).toBeLessThanOrEqual(ts);
          expect(ts).toBeLessThan(w.end);
        }
      }),
    );
  });

  it('rejects an unknown window type', () => {
    expect(() => createWindowAssigner({ type: 'SLIDE' } as never)).toThrow(PlanError);
    expect(() => createWindowAssigner({ type: 'SLIDE' } as never)).toThrow(/Unknown window type 'SLIDE'/);
  });
});

describe('window namespace and cleanup time', () => {
  it('round-trips the namespace', () => {
    expect(windowNamespace({ start: -10, end: 0 })).toBe('-10,0');
    expect(parseWindowNamespace('-10,0')).toEqual({ start: -10, end: 0 });
    expect(parseWindowNamespace('nope')).toBeUndefined();
  });

  it('cleanup is maxTimestamp + lateness in event time, maxTimestamp in processing time, capped on overflow', () => {
    expect(cleanupTime({ start: 0, end: 10 }, 5, true)).toBe(14);
    expect(cleanupTime({ start: 0, end: 10 }, 5, false)).toBe(9);
    expect(cleanupTime({ start: 0, end: Number.MAX_SAFE_INTEGER }, 10, true)).toBe(Number.MAX_SAFE_INTEGER);
  });
});
