import { describe, expect, it } from 'vitest';
import { BoundedOutOfOrderness, InputWatermarks } from '../../shared/runtime/watermarks.ts';

describe('Class: BoundedOutOfOrderness', () => {
  it('is max event time minus the delay, ignoring nulls and late events', () => {
    const g = new BoundedOutOfOrderness(4000);
    expect(g.current()).toBe(-Infinity);
    g.observe(10_000);
    expect(g.current()).toBe(6_000);
    g.observe(null);
    g.observe(9_000); // out of order: the maximum holds
    expect(g.current()).toBe(6_000);
    g.observe(12_500);
    expect(g.current()).toBe(8_500);
  });
});

describe('Class: InputWatermarks', () => {
  it('advances to the minimum over channels, only when it grows', () => {
    const w = new InputWatermarks(3);
    expect(w.update(0, 100, 0)).toBeUndefined();
    expect(w.update(1, 50, 0)).toBeUndefined();
    expect(w.update(2, 70, 0)).toBe(50);
    expect(w.update(1, 60, 0)).toBe(60);
    expect(w.update(0, 90, 0)).toBeUndefined(); // channel 1 still holds it at 60
    expect(w.update(1, 40, 0)).toBeUndefined(); // regressions are ignored
    expect(w.current).toBe(60);
  });

  it('lets idle channels drop out after the timeout and rejoin when they send', () => {
    const w = new InputWatermarks(2, 1000);
    w.update(0, 10, 0);
    expect(w.update(1, 5, 0)).toBe(5);
    // Channel 1 goes silent; channel 0 moves on. After the timeout channel 1 no longer holds back.
    expect(w.update(0, 500, 500)).toBeUndefined();
    expect(w.update(0, 800, 1500)).toBe(800);
    // Channel 1 sends again: it is active but its old watermark cannot move the combined one back.
    expect(w.update(1, 900, 1600)).toBeUndefined();
    expect(w.update(0, 1000, 1700)).toBe(900);
  });

  it('advances to the maximum over the channels when every channel is idle (StatusWatermarkValve)', () => {
    const w = new InputWatermarks(2, 10);
    w.update(0, 10, 0);
    w.update(1, 20, 0);
    expect(w.current).toBe(10);
    expect(w.recompute(1000)).toBe(20);
    expect(w.recompute(2000)).toBeUndefined();
    expect(w.current).toBe(20);
  });

  it('reaches +Infinity when every channel ends', () => {
    const w = new InputWatermarks(2);
    w.update(0, Infinity, 0);
    expect(w.update(1, Infinity, 0)).toBe(Infinity);
  });
});
