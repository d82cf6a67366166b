/**
 * Window assignment: Flink's TimeWindow.getWindowStartWithOffset and the TUMBLE, HOP and
 * CUMULATE assigners as the window table function uses them (shared/operators/window/assigners.ts),
 * with offsets and negative timestamps.
 */
import { describe, expect, it } from 'vitest';
import { PlanError } from '../../../shared/core/errors.ts';
import { createWindowAssigner } from '../../../shared/operators/window/assigners.ts';
import { windowStartWithOffset } from '../../../shared/operators/window/time-window.ts';

/** The window table function's assigner (no slicing rules). */
const compileWindowAssigner = (window: Parameters<typeof createWindowAssigner>[0]) => createWindowAssigner(window, { tableFunction: true });

const w = (start: number, end: number) => ({ start, end });

describe('windowStartWithOffset', () => {
  it('rounds down to the window grid, also for negative timestamps', () => {
    expect(windowStartWithOffset(0, 0, 10)).toBe(0);
    expect(windowStartWithOffset(9, 0, 10)).toBe(0);
    expect(windowStartWithOffset(10, 0, 10)).toBe(10);
    expect(windowStartWithOffset(-1, 0, 10)).toBe(-10);
    expect(windowStartWithOffset(-10, 0, 10)).toBe(-10);
    expect(windowStartWithOffset(-11, 0, 10)).toBe(-20);
  });

  it('shifts the grid by the offset, positive or negative', () => {
    expect(windowStartWithOffset(2, 3, 10)).toBe(-7);
    expect(windowStartWithOffset(3, 3, 10)).toBe(3);
    expect(windowStartWithOffset(12, 3, 10)).toBe(3);
    expect(windowStartWithOffset(6, -3, 10)).toBe(-3);
    expect(windowStartWithOffset(7, -3, 10)).toBe(7);
    // An offset larger than the size is the same grid as offset % size.
    expect(windowStartWithOffset(5, 13, 10)).toBe(windowStartWithOffset(5, 3, 10));
  });
});

describe('compileWindowAssigner', () => {
  it('TUMBLE: one window', () => {
    const a = compileWindowAssigner({ type: 'TUMBLE', timeColumn: 't', sizeMs: 10 });
    expect(a.assign(15)).toEqual([w(10, 20)]);
    expect(a.assign(-5)).toEqual([w(-10, 0)]);
    const shifted = compileWindowAssigner({ type: 'TUMBLE', timeColumn: 't', sizeMs: 10, offsetMs: 4 });
    expect(shifted.assign(15)).toEqual([w(14, 24)]);
    expect(shifted.assign(13)).toEqual([w(4, 14)]);
  });

  it('HOP: size / slide windows, latest start first (SlidingWindowAssigner)', () => {
    const a = compileWindowAssigner({ type: 'HOP', timeColumn: 't', sizeMs: 10, slideMs: 5 });
    expect(a.assign(7)).toEqual([w(5, 15), w(0, 10)]);
    expect(a.assign(-1)).toEqual([w(-5, 5), w(-10, 0)]);
    const shifted = compileWindowAssigner({ type: 'HOP', timeColumn: 't', sizeMs: 10, slideMs: 5, offsetMs: 2 });
    expect(shifted.assign(7)).toEqual([w(7, 17), w(2, 12)]);
    // A size that is not a multiple of the slide is allowed: 7 / 3 gives 2 or 3 windows.
    const uneven = compileWindowAssigner({ type: 'HOP', timeColumn: 't', sizeMs: 7, slideMs: 3 });
    expect(uneven.assign(6)).toEqual([w(6, 13), w(3, 10), w(0, 7)]);
    expect(uneven.assign(7)).toEqual([w(6, 13), w(3, 10)]);
  });

  it('CUMULATE: growing windows from the max-size boundary, shortest first', () => {
    const a = compileWindowAssigner({ type: 'CUMULATE', timeColumn: 't', maxSizeMs: 30, stepMs: 10 });
    expect(a.assign(0)).toEqual([w(0, 10), w(0, 20), w(0, 30)]);
    expect(a.assign(15)).toEqual([w(0, 20), w(0, 30)]);
    expect(a.assign(29)).toEqual([w(0, 30)]);
    expect(a.assign(-1)).toEqual([w(-30, 0)]);
    const shifted = compileWindowAssigner({ type: 'CUMULATE', timeColumn: 't', maxSizeMs: 30, stepMs: 10, offsetMs: 5 });
    expect(shifted.assign(16)).toEqual([w(5, 25), w(5, 35)]);
  });

  it('gives SESSION its merging assigner (the unaligned table function merges the sessions)', () => {
    const session = compileWindowAssigner({ type: 'SESSION', timeColumn: 't', gapMs: 10, partitionBy: [] });
    expect(session.merging).toBe(true);
    expect(session.assign(5)).toEqual([w(5, 15)]);
    expect(() => compileWindowAssigner({ type: 'SESSION', timeColumn: 't', gapMs: 0, partitionBy: [] })).toThrow(/gap must be a positive integer/);
  });

  it('rejects bad sizes and offsets with a PlanError naming the value', () => {
    expect(() => compileWindowAssigner({ type: 'TUMBLE', timeColumn: 't', sizeMs: 0 })).toThrow('TUMBLE(t, 0 ms): size must be a positive integer number of milliseconds, got 0');
    expect(() => compileWindowAssigner({ type: 'HOP', timeColumn: 't', sizeMs: 10, slideMs: 1.5 })).toThrow(PlanError);
    expect(() => compileWindowAssigner({ type: 'CUMULATE', timeColumn: 't', maxSizeMs: 25, stepMs: 10 })).toThrow(
      /integral multiple/,
    );
    expect(() => compileWindowAssigner({ type: 'TUMBLE', timeColumn: 't', sizeMs: 10, offsetMs: 0.5 })).toThrow(/offset/);
  });
});
