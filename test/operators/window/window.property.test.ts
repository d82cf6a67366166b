/**
 * Property: for random rows with random disorder, random watermarks, allowed lateness and batch
 * splits, the window aggregate's changelog is well formed and its materialization equals a batch
 * computation over the (row, window) pairs that were not late on arrival; every row late for all
 * its windows appears exactly once in the late side output; without lateness the output is
 * insert-only; and after the final watermark no state or timer is left.
 *
 * The reference model is written independently of the operator: window membership by brute
 * force, sessions as a list of live intervals per key.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import type { ChangeRow } from '../../../shared/core/row.ts';
import type { Row } from '../../../shared/core/types.ts';
import type { WindowSpec } from '../../../shared/plan/logical.ts';
import type { AggCall } from '../../../shared/plan/logical.ts';
import {
  createWindowAggregateOperator,
  createWindowProcessOperator,
  windowAggregateOutputSchema,
  type WindowAggregateSpec,
} from '../../../shared/operators/window/window-aggregate.ts';
import { OperatorHarness, del, insert, materialize } from '../../harness/index.ts';
import { countSum, input, leftovers, NOTHING_LEFT, openAgg, out, r } from './window-test-kit.ts';

type Event = { readonly type: 'row'; readonly k: string; readonly v: number; readonly ts: number } | { readonly type: 'wm'; readonly advance: number };

/** A generated event: a row at an absolute time, or (`near`) at an offset from the current watermark. */
type GeneratedEvent = Event | { readonly type: 'near'; readonly k: string; readonly v: number; readonly delta: number };

const generatedArb: fc.Arbitrary<GeneratedEvent> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ type: fc.constant('row' as const), k: fc.constantFrom('a', 'b'), v: fc.integer({ min: -5, max: 5 }), ts: fc.integer({ min: -20, max: 80 }) }) },
  // Rows around the watermark make late, re-firing and bridging rows common.
  { weight: 2, arbitrary: fc.record({ type: fc.constant('near' as const), k: fc.constantFrom('a', 'b'), v: fc.integer({ min: -5, max: 5 }), delta: fc.integer({ min: -30, max: 10 }) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('wm' as const), advance: fc.integer({ min: 0, max: 15 }) }) },
);

/** Resolves `near` rows against the watermark sequence (the first watermark is -25 + advance). */
function resolve(generated: readonly GeneratedEvent[]): Event[] {
  let wm = -Infinity;
  return generated.map((e) => {
    if (e.type === 'wm') wm = (wm === -Infinity ? -25 : wm) + e.advance;
    if (e.type !== 'near') return e;
    return { type: 'row', k: e.k, v: e.v, ts: (wm === -Infinity ? 0 : wm) + e.delta };
  });
}

const mod = (a: number, m: number): number => ((a % m) + m) % m;

/** Brute-force window membership of the aligned windows. */
function modelWindows(window: WindowSpec, ts: number): [number, number][] {
  const windows: [number, number][] = [];
  switch (window.type) {
    case 'TUMBLE':
    case 'HOP': {
      const size = window.sizeMs;
      const slide = window.type === 'HOP' ? window.slideMs : size;
      const offset = window.offsetMs ?? 0;
      for (let s = ts - size + 1; s <= ts; s++) if (mod(s - offset, slide) === 0) windows.push([s, s + size]);
      return windows;
    }
    case 'CUMULATE': {
      const offset = window.offsetMs ?? 0;
      for (let s = ts - window.maxSizeMs + 1; s <= ts; s++) {
        if (mod(s - offset, window.maxSizeMs) !== 0) continue;
        for (let e = s + window.stepMs; e <= s + window.maxSizeMs; e += window.stepMs) if (ts < e) windows.push([s, e]);
      }
      return windows;
    }
    default:
      throw new Error('not an aligned window');
  }
}

interface Agg {
  k: string;
  start: number;
  end: number;
  c: number;
  s: number;
}

/** The expected final rows and late rows of an aligned window. */
function modelAligned(window: WindowSpec, lateness: number, events: readonly Event[]): { rows: Row[]; late: Row[] } {
  const aggs = new Map<string, Agg>();
  const late: Row[] = [];
  let wm = -Infinity;
  for (const e of events) {
    if (e.type === 'wm') {
      wm = (wm === -Infinity ? -25 : wm) + e.advance;
      continue;
    }
    let accepted = false;
    for (const [start, end] of modelWindows(window, e.ts)) {
      if (end - 1 + lateness <= wm) continue;
      accepted = true;
      const id = `${e.k}|${start}|${end}`;
      const agg = aggs.get(id) ?? { k: e.k, start, end, c: 0, s: 0 };
      agg.c++;
      agg.s += e.v;
      aggs.set(id, agg);
    }
    if (!accepted) late.push(r(e.k, e.v, e.ts));
  }
  return { rows: [...aggs.values()].map((a) => out(a.k, a.c, a.s, a.start, a.end)), late };
}

/** The expected final rows and late rows of sessions: live intervals per key, dropped at cleanup. */
function modelSessions(gap: number, lateness: number, events: readonly Event[]): { rows: Row[]; late: Row[] } {
  const live = new Map<string, Agg[]>();
  const done: Agg[] = [];
  const late: Row[] = [];
  let wm = -Infinity;
  for (const e of events) {
    if (e.type === 'wm') {
      wm = (wm === -Infinity ? -25 : wm) + e.advance;
      for (const [k, sessions] of live) {
        done.push(...sessions.filter((s) => s.end - 1 + lateness <= wm));
        live.set(k, sessions.filter((s) => s.end - 1 + lateness > wm));
      }
      continue;
    }
    const sessions = live.get(e.k) ?? [];
    const start = e.ts;
    const end = e.ts + gap;
    const touching = sessions.filter((s) => s.start <= end && s.end >= start);
    if (touching.length === 0 && end - 1 + lateness <= wm) {
      late.push(r(e.k, e.v, e.ts));
      continue;
    }
    const merged: Agg = { k: e.k, start, end, c: 1, s: e.v };
    for (const s of touching) {
      merged.start = Math.min(merged.start, s.start);
      merged.end = Math.max(merged.end, s.end);
      merged.c += s.c;
      merged.s += s.s;
    }
    live.set(e.k, [...sessions.filter((s) => !touching.includes(s)), merged]);
  }
  for (const sessions of live.values()) done.push(...sessions);
  return { rows: done.map((a) => out(a.k, a.c, a.s, a.start, a.end)), late };
}

const canonical = (rows: readonly Row[]): string[] => rows.map((row) => JSON.stringify(Object.entries(row).sort())).sort();

/** Runs the operator; consecutive rows go in one batch when `batched`. */
async function run(window: WindowSpec, lateness: number, updateBefore: boolean, batched: boolean, events: readonly Event[]) {
  const h = await openAgg(countSum(window, { allowedLatenessMs: lateness, generateUpdateBefore: updateBefore }));
  let wm = -Infinity;
  let pending: ChangeRow[] = [];
  const flush = async (): Promise<void> => {
    if (pending.length > 0) await h.processBatch(pending);
    pending = [];
  };
  for (const e of events) {
    if (e.type === 'row') {
      pending.push(insert(r(e.k, e.v, e.ts)));
      if (!batched) await flush();
    } else {
      await flush();
      wm = (wm === -Infinity ? -25 : wm) + e.advance;
      await h.processWatermark(wm);
    }
  }
  await flush();
  await h.endInput();
  return h;
}

const windowArb: fc.Arbitrary<WindowSpec> = fc.oneof(
  fc.record({ type: fc.constant('TUMBLE' as const), timeColumn: fc.constant('ts'), sizeMs: fc.constantFrom(5, 10), offsetMs: fc.integer({ min: -4, max: 4 }) }),
  fc.record({ type: fc.constant('HOP' as const), timeColumn: fc.constant('ts'), sizeMs: fc.constant(12), slideMs: fc.constantFrom(4, 6, 12), offsetMs: fc.integer({ min: -3, max: 3 }) }),
  fc.record({ type: fc.constant('CUMULATE' as const), timeColumn: fc.constant('ts'), maxSizeMs: fc.constant(12), stepMs: fc.constantFrom(3, 4, 12), offsetMs: fc.integer({ min: -2, max: 2 }) }),
  fc.record({ type: fc.constant('SESSION' as const), timeColumn: fc.constant('ts'), gapMs: fc.constantFrom(1, 5, 10), partitionBy: fc.constant(['k']) }),
);

describe('WindowAggregate properties', () => {
  it('final results equal the batch computation over non-late rows; each fully late row is side-output once', async () => {
    await fc.assert(
      fc.asyncProperty(
        windowArb,
        fc.constantFrom(0, 0, 3, 10, 25),
        fc.boolean(),
        fc.boolean(),
        fc.array(generatedArb, { minLength: 1, maxLength: 40 }).map(resolve),
        async (window, lateness, updateBefore, batched, events) => {
          const h = await run(window, lateness, updateBefore, batched, events);
          const model = window.type === 'SESSION' ? modelSessions(window.gapMs, lateness, events) : modelAligned(window, lateness, events);
          const changelog = h.output();
          // materialize throws on a malformed changelog (a retraction of a row that is not live).
          // Without -U rows only an upserting consumer (keyed by group + window) can apply it.
          if (updateBefore) expect(canonical(materialize(changelog))).toEqual(canonical(model.rows));
          expect(canonical(materialize(changelog, ['k', 'window_start', 'window_end']))).toEqual(canonical(model.rows));
          expect(h.sideOutput('late')).toEqual(model.late);
          expect(h.metrics.get('numLateRecordsDropped') ?? 0).toBe(model.late.length);
          if (lateness === 0) expect(changelog.every((c) => c.kind === '+I')).toBe(true);
          if (!updateBefore) expect(changelog.some((c) => c.kind === '-U')).toBe(false);
          expect(leftovers(h)).toEqual(NOTHING_LEFT);
        },
      ),
      { numRuns: 600 },
    );
  });
});

describe('WindowProcess vs WindowAggregate', () => {
  it('a process function computing COUNT and SUM yields the same changelog under any trigger', async () => {
    const triggerArb = fc.oneof(
      fc.constant(undefined),
      fc.record({ count: fc.integer({ min: 1, max: 3 }), purge: fc.boolean() }),
      fc.record({ earlyFireIntervalMs: fc.integer({ min: 0, max: 5 }), purge: fc.boolean() }),
      fc.record({ earlyFireIntervalMs: fc.integer({ min: 1, max: 5 }), lateFireIntervalMs: fc.integer({ min: 1, max: 5 }) }),
    );
    await fc.assert(
      fc.asyncProperty(
        windowArb,
        triggerArb,
        fc.constantFrom(0, 10),
        fc.array(generatedArb, { minLength: 1, maxLength: 30 }).map(resolve),
        async (window, trigger, lateness, events) => {
          const spec = countSum(window, { allowedLatenessMs: lateness, trigger });
          const agg = await openAgg(spec, input, 0);
          const proc = await OperatorHarness.open(
            () =>
              createWindowProcessOperator({ ...spec, outputSchema: windowAggregateOutputSchema(spec, input) }, input, (key, w, rows) => [
                { k: key['k'] ?? null, c: rows.length, s: rows.reduce((sum, row) => sum + (row['v'] as number), 0), window_start: w.start, window_end: w.end, window_time: w.end - 1 },
              ]),
            { processingTime: 0 },
          );
          let wm = -Infinity;
          let now = 0;
          for (const e of events) {
            for (const h of [agg, proc]) {
              if (e.type === 'row') await h.processElement(insert(r(e.k, e.v, e.ts)));
              else await h.processWatermark((wm === -Infinity ? -25 : wm) + e.advance);
              if (e.type === 'wm') await h.setProcessingTime(now + e.advance);
            }
            if (e.type === 'wm') {
              wm = (wm === -Infinity ? -25 : wm) + e.advance;
              now += e.advance;
            }
          }
          await agg.endInput();
          await proc.endInput();
          expect(proc.output()).toEqual(agg.output());
          expect(proc.sideOutput('late')).toEqual(agg.sideOutput('late'));
          expect(leftovers(agg)).toEqual(NOTHING_LEFT);
          expect(leftovers(proc)).toEqual(NOTHING_LEFT);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('sliced vs per-window aggregate', () => {
  it('the sliced operator emits the per-window operator changelog, in order, for any aligned window, calls and retractions', async () => {
    const aligned = windowArb.filter((w) => w.type !== 'SESSION');
    const callsArb = fc.subarray<AggCall>(
      [
        { fn: 'COUNT', distinct: false, name: 'c' },
        { fn: 'COUNT', arg: 'v', distinct: false, name: 'cv', filterField: 'f' },
        { fn: 'SUM', arg: 'v', distinct: false, name: 's' },
        { fn: 'MIN', arg: 'v', distinct: false, name: 'lo' },
        { fn: 'MAX', arg: 'v', distinct: false, name: 'hi', filterField: 'f' },
        { fn: 'MAX', arg: 'k', distinct: false, name: 'hk' },
      ],
      { minLength: 1 },
    );
    const changeArb = fc.record({ retract: fc.boolean(), f: fc.constantFrom(true, false, null), batch: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(
        aligned,
        callsArb,
        fc.array(fc.tuple(generatedArb, changeArb), { minLength: 1, maxLength: 40 }),
        async (window, aggCalls, generated) => {
          const events = resolve(generated.map(([e]) => e));
          const spec: WindowAggregateSpec = { window, groupBy: ['k'], aggCalls, generateUpdateBefore: true };
          const runs: OperatorHarness[] = [];
          for (const slicing of [true, false]) {
            const h = await OperatorHarness.open(() => createWindowAggregateOperator(spec, input, { slicing }));
            let wm = -Infinity;
            let pending: ChangeRow[] = [];
            for (const [i, e] of events.entries()) {
              const change = generated[i]![1];
              if (e.type === 'row') {
                const row = r(e.k, e.v, e.ts, change.f);
                pending.push(change.retract ? del(row) : insert(row));
                if (change.batch) continue;
              } else {
                wm = (wm === -Infinity ? -25 : wm) + e.advance;
              }
              if (pending.length > 0) await h.processBatch(pending);
              pending = [];
              if (e.type === 'wm') await h.processWatermark(wm);
            }
            if (pending.length > 0) await h.processBatch(pending);
            await h.endInput();
            expect(leftovers(h)).toEqual(NOTHING_LEFT);
            runs.push(h);
          }
          const [sliced, plain] = runs as [OperatorHarness, OperatorHarness];
          expect(sliced.output()).toEqual(plain.output());
          expect(sliced.sideOutput('late')).toEqual(plain.sideOutput('late'));
          expect(sliced.metrics.get('numLateRecordsDropped')).toBe(plain.metrics.get('numLateRecordsDropped'));
        },
      ),
      { numRuns: 400 },
    );
  });
});
