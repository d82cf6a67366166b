import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { FlambdaError, PlanError } from '../../shared/core/errors.ts';
import type { Timer } from '../../shared/state/state.ts';
import { MemoryTimerService } from '../../shared/state/timer-service.ts';
import type { TimerSnapshot } from '../../shared/state/timer-service.ts';

function popAllEvent(service: MemoryTimerService): Timer[] {
  const fired: Timer[] = [];
  for (let t = service.popDueEventTimer(); t !== undefined; t = service.popDueEventTimer()) fired.push(t);
  return fired;
}

function brief(timers: readonly Timer[]): string[] {
  return timers.map((t) => `${t.key}/${t.namespace}@${t.timestamp}`);
}

describe('MemoryTimerService event time', () => {
  it('fires due timers in timestamp order, ties in registration order', () => {
    const s = new MemoryTimerService(0);
    s.registerEventTimeTimer('b', '', 20);
    s.registerEventTimeTimer('a', '', 10);
    s.registerEventTimeTimer('c', '', 20);
    s.registerEventTimeTimer('a', 'w', 20);
    s.registerEventTimeTimer('d', '', 30);
    s.setWatermark(20);
    const fired = popAllEvent(s);
    expect(brief(fired)).toEqual(['a/@10', 'b/@20', 'c/@20', 'a/w@20']);
    expect(fired[0]).toEqual({ key: 'a', namespace: '', timestamp: 10, domain: 'event' });
    expect(s.pendingTimers('event')).toBe(1);
    expect(s.nextEventTimerTimestamp()).toBe(30);
  });

  it('fires nothing before the watermark reaches a timer', () => {
    const s = new MemoryTimerService(0);
    s.registerEventTimeTimer('a', '', 10);
    expect(s.popDueEventTimer()).toBeUndefined();
    s.setWatermark(9);
    expect(s.popDueEventTimer()).toBeUndefined();
    s.setWatermark(10);
    expect(brief(popAllEvent(s))).toEqual(['a/@10']);
  });

  it('keeps one timer per (key, namespace, timestamp) and domain', () => {
    const s = new MemoryTimerService(0);
    s.registerEventTimeTimer('a', 'n', 5);
    s.registerEventTimeTimer('a', 'n', 5);
    s.registerEventTimeTimer('a', 'm', 5);
    s.registerEventTimeTimer('a', 'n', 6);
    s.registerProcessingTimeTimer('a', 'n', 5);
    expect(s.pendingTimers('event')).toBe(3);
    expect(s.pendingTimers('processing')).toBe(1);
  });

  it('does not confuse key and namespace boundaries', () => {
    const s = new MemoryTimerService(0);
    s.registerEventTimeTimer('a', 'bc', 1);
    s.registerEventTimeTimer('ab', 'c', 1);
    s.setWatermark(1);
    expect(brief(popAllEvent(s))).toEqual(['a/bc@1', 'ab/c@1']);
  });

  it('a duplicate registration keeps the original position among ties', () => {
    const s = new MemoryTimerService(0);
    s.registerEventTimeTimer('a', '', 5);
    s.registerEventTimeTimer('b', '', 5);
    s.registerEventTimeTimer('a', '', 5);
    s.setWatermark(5);
    expect(brief(popAllEvent(s))).toEqual(['a/@5', 'b/@5']);
  });

  it('deletes timers; a re-registered timer goes behind earlier ties', () => {
    const s = new MemoryTimerService(0);
    s.registerEventTimeTimer('a', '', 5);
    s.registerEventTimeTimer('b', '', 5);
    s.registerEventTimeTimer('c', '', 7);
    s.deleteEventTimeTimer('a', '', 5);
    s.deleteEventTimeTimer('c', '', 7);
    s.deleteEventTimeTimer('unknown', '', 1);
    s.registerEventTimeTimer('a', '', 5);
    s.setWatermark(10);
    expect(brief(popAllEvent(s))).toEqual(['b/@5', 'a/@5']);
  });

  it('fires timers registered while firing when they are already due', () => {
    const s = new MemoryTimerService(0);
    s.registerEventTimeTimer('a', '', 10);
    s.registerEventTimeTimer('b', '', 15);
    s.setWatermark(20);
    const fired: Timer[] = [];
    for (let t = s.popDueEventTimer(); t !== undefined; t = s.popDueEventTimer()) {
      fired.push(t);
      if (t.key === 'a') {
        s.registerEventTimeTimer('a2', '', 12); // due, earlier than b: fires next
        s.registerEventTimeTimer('a3', '', 15); // due, ties with b: after it
        s.registerEventTimeTimer('late', '', 21); // not due yet
      }
    }
    expect(brief(fired)).toEqual(['a/@10', 'a2/@12', 'b/@15', 'a3/@15']);
    expect(s.pendingTimers('event')).toBe(1);
  });

  it('ignores watermark regressions', () => {
    const s = new MemoryTimerService(0);
    expect(s.currentWatermark()).toBe(-Infinity);
    s.setWatermark(10);
    s.setWatermark(5);
    expect(s.currentWatermark()).toBe(10);
    s.registerEventTimeTimer('a', '', 8);
    expect(brief(popAllEvent(s))).toEqual(['a/@8']);
  });

  it('supports timers at +Infinity and rejects NaN', () => {
    const s = new MemoryTimerService(0);
    s.registerEventTimeTimer('end', '', Infinity);
    s.registerEventTimeTimer('x', '', 1);
    s.setWatermark(Number.MAX_SAFE_INTEGER);
    expect(brief(popAllEvent(s))).toEqual(['x/@1']);
    s.setWatermark(Infinity);
    expect(brief(popAllEvent(s))).toEqual(['end/@Infinity']);
    expect(() => s.registerEventTimeTimer('a', '', Number.NaN)).toThrow(FlambdaError);
  });

  it('matches a sorted reference model under random registrations and deletions', () => {
    const op = fc.record({
      register: fc.boolean(),
      key: fc.constantFrom('a', 'b', 'c'),
      namespace: fc.constantFrom('', 'w'),
      timestamp: fc.integer({ min: 0, max: 20 }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.integer({ min: 0, max: 25 }), (ops, watermark) => {
        const s = new MemoryTimerService(0);
        const model: { id: string; timestamp: number; seq: number }[] = [];
        let seq = 0;
        for (const o of ops) {
          const id = `${o.key}/${o.namespace}@${o.timestamp}`;
          const index = model.findIndex((m) => m.id === id);
          if (o.register) {
            s.registerEventTimeTimer(o.key, o.namespace, o.timestamp);
            if (index < 0) model.push({ id, timestamp: o.timestamp, seq: seq++ });
          } else {
            s.deleteEventTimeTimer(o.key, o.namespace, o.timestamp);
            if (index >= 0) model.splice(index, 1);
          }
        }
        s.setWatermark(watermark);
        const expected = model
          .filter((m) => m.timestamp <= watermark)
          .sort((x, y) => x.timestamp - y.timestamp || x.seq - y.seq)
          .map((m) => m.id);
        expect(brief(popAllEvent(s))).toEqual(expected);
        expect(s.pendingTimers('event')).toBe(model.length - expected.length);
      }),
    );
  });
});

describe('MemoryTimerService processing time', () => {
  it('fires processing-time timers up to the processing time, ignoring regressions', () => {
    const s = new MemoryTimerService(100);
    expect(s.currentProcessingTime()).toBe(100);
    s.registerProcessingTimeTimer('a', '', 150);
    s.registerProcessingTimeTimer('b', '', 120);
    s.registerEventTimeTimer('e', '', 0);
    expect(s.popDueProcessingTimer()).toBeUndefined();
    expect(s.nextProcessingTimerTimestamp()).toBe(120);
    s.setProcessingTime(130);
    expect(s.popDueProcessingTimer()).toEqual({ key: 'b', namespace: '', timestamp: 120, domain: 'processing' });
    expect(s.popDueProcessingTimer()).toBeUndefined();
    s.setProcessingTime(90);
    expect(s.currentProcessingTime()).toBe(130);
    s.deleteProcessingTimeTimer('a', '', 150);
    s.setProcessingTime(200);
    expect(s.popDueProcessingTimer()).toBeUndefined();
    expect(s.pendingTimers('event')).toBe(1);
  });
});

describe('MemoryTimerService snapshot and restore', () => {
  it('restores timers in firing order with watermark and processing time', () => {
    const s = new MemoryTimerService(50);
    s.registerEventTimeTimer('b', '', 20);
    s.registerEventTimeTimer('a', '', 20);
    s.registerEventTimeTimer('c', '', 10);
    s.registerProcessingTimeTimer('p', 'n', 70);
    s.setWatermark(5);
    const snapshot = structuredClone(s.snapshot());
    expect(snapshot.event).toEqual([['c', '', 10], ['b', '', 20], ['a', '', 20]]);
    const r = MemoryTimerService.restore(snapshot);
    expect(r.currentWatermark()).toBe(5);
    expect(r.currentProcessingTime()).toBe(50);
    r.registerEventTimeTimer('a', '', 20); // still deduplicated after restore
    r.registerEventTimeTimer('d', '', 20);
    r.setWatermark(30);
    expect(brief(popAllEvent(r))).toEqual(['c/@10', 'b/@20', 'a/@20', 'd/@20']);
    r.setProcessingTime(70);
    expect(r.popDueProcessingTimer()).toEqual({ key: 'p', namespace: 'n', timestamp: 70, domain: 'processing' });
  });

  it('snapshots the -Infinity initial watermark', () => {
    const r = MemoryTimerService.restore(structuredClone(new MemoryTimerService(0).snapshot()));
    expect(r.currentWatermark()).toBe(-Infinity);
  });

  it('rejects an unknown snapshot format', () => {
    const bogus = { format: 'x' } as unknown as TimerSnapshot;
    expect(() => MemoryTimerService.restore(bogus)).toThrow(PlanError);
  });
});
