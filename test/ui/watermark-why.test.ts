/**
 * The watermark explanations against the rules they explain (shared/runtime/watermarks.ts,
 * Flink's StatusWatermarkValve): which channel holds an exchange shard's minimum, since when,
 * whether it is silent but not marked idle, and what a source shard's watermark is made of.
 */
import { describe, expect, it } from 'vitest';
import { explainShard, explainStage, formatDuration, formatEventTime, type ShardWatermarkView } from '../../shared/ui/watermark-why.ts';

const T = Date.UTC(2015, 6, 15, 0, 0, 10);
const NOW = Date.UTC(2026, 0, 1, 12, 0, 30);

function exchange(channels: { watermark: number; since?: number; idle?: boolean }[], idleTimeoutMs?: number, expected = channels.length): ShardWatermarkView {
  const visible = channels.filter((c) => !c.idle).map((c) => c.watermark);
  // The combined watermark: the minimum over active channels, or the maximum when all are idle.
  const combined = visible.length > 0 ? Math.min(...visible) : Math.max(...channels.map((c) => c.watermark));
  return {
    stageId: 'stage-1',
    shard: 0,
    watermark: combined,
    input: {
      kind: 'exchange',
      watermark: combined,
      expected,
      channels: channels.map((c, i) => ({ channel: String(i), from: `stage-0 shard ${i}`, watermark: c.watermark, idle: c.idle ?? false, ...(c.since !== undefined ? { since: c.since } : {}) })),
      ...(idleTimeoutMs !== undefined ? { idleTimeoutMs } : {}),
    },
  };
}

describe('explainShard', () => {
  it('names the channel with the minimum and says it is silent but not marked idle without an idle timeout', () => {
    const why = explainShard(exchange([{ watermark: T + 3000, since: NOW - 200 }, { watermark: T, since: NOW - 12_000 }]), NOW);
    expect(why.heldBy).toBe('1');
    expect(why.silentNotIdle).toBe(true);
    expect(why.text).toBe(
      'stage-1 shard 0: held at 2015-07-15 00:00:10.000 by channel 1 (stage-0 shard 1), the lowest of 2 active channels, unchanged since 12:00:18 UTC (12 s ago); ' +
        "the others are up to 3.0 s ahead; it is silent but not marked idle, because no idle timeout is declared: declare an idle timeout ('scan.watermark.idle-timeout' in SQL, watermark.idleTimeoutMs in the API)",
    );
  });

  it('with an idle timeout, says when the silent channel will be marked idle', () => {
    const why = explainShard(exchange([{ watermark: T + 3000, since: NOW - 200 }, { watermark: T, since: NOW - 5_000 }], 30_000), NOW);
    expect(why.silentNotIdle).toBe(false);
    expect(why.text).toMatch(/it will be marked idle after 30 s of silence$/);
  });

  it('a channel that moved recently is not called silent', () => {
    const why = explainShard(exchange([{ watermark: T + 100, since: NOW - 100 }, { watermark: T, since: NOW - 300 }]), NOW);
    expect(why.heldBy).toBe('1');
    expect(why.silentNotIdle).toBe(false);
    expect(why.text).not.toContain('silent');
  });

  it('idle channels do not hold the watermark; all idle: the largest of theirs', () => {
    const held = explainShard(exchange([{ watermark: T, idle: true }, { watermark: T + 5000, since: NOW - 100 }]), NOW);
    expect(held.heldBy).toBe('1');
    expect(held.text).toContain('the lowest of 1 active channel,');
    const all = explainShard(exchange([{ watermark: T, idle: true }, { watermark: T + 5000, idle: true }]), NOW);
    expect(all.text).toBe('stage-1 shard 0: every input channel is idle, so the watermark is the largest of theirs (2015-07-15 00:00:15.000)');
  });

  it('a channel that has sent no watermark holds the shard at −∞; channels not heard from are waited for', () => {
    const none = explainShard(exchange([{ watermark: T, since: NOW - 100 }, { watermark: -Infinity }]), NOW);
    expect(none.text).toContain('held at −∞ by channel 1 (stage-0 shard 1), which has sent no watermark yet');
    expect(none.silentNotIdle).toBe(true);
    const unseen = explainShard(exchange([{ watermark: T, since: NOW - 100 }], undefined, 2), NOW);
    expect(unseen.text).toBe('stage-1 shard 0: −∞, waiting for 1 of 2 input channels not heard from yet');
  });

  it("explains a source shard's watermark from its largest event time and the declared delay", () => {
    const source: ShardWatermarkView = { stageId: 'stage-0', shard: 1, watermark: T - 4000, input: { kind: 'source', source: 'bid', delayMs: 4000, maxEventTime: T, lastDataAt: NOW - 2500 } };
    expect(explainShard(source, NOW).text).toBe(
      'stage-0 shard 1: 2015-07-15 00:00:06.000 = largest event time read on source shard 1 (2015-07-15 00:00:10.000) − 4.0 s out-of-orderness; last row 2.5 s ago',
    );
    expect(explainShard({ ...source, input: { kind: 'source', source: 'bid', maxEventTime: -Infinity } }, NOW).text).toContain('declares no watermark');
    expect(explainShard({ ...source, watermark: Infinity }, NOW).text).toBe('stage-0 shard 1: +∞, its input has ended (every window has fired)');
  });
});

describe('explainStage', () => {
  it("is the lowest shard's explanation", () => {
    const a = { ...exchange([{ watermark: T + 5000, since: NOW - 100 }]), shard: 0 };
    const b = { ...exchange([{ watermark: T, since: NOW - 100 }]), shard: 1 };
    const why = explainStage('stage-1', [a, b], NOW);
    expect(why.watermark).toBe(T);
    expect(why.shard).toBe(1);
    expect(why.text).toMatch(/^stage-1 is at its lowest shard's watermark — stage-1 shard 1: held at 2015-07-15 00:00:10.000/);
  });
});

describe('formatting', () => {
  it('prints event times as Flink prints TIMESTAMP(3), and durations', () => {
    expect(formatEventTime(T)).toBe('2015-07-15 00:00:10.000');
    expect(formatEventTime(-Infinity)).toBe('−∞ (none yet)');
    expect([250, 3400, 42_000, 125_000].map(formatDuration)).toEqual(['250 ms', '3.4 s', '42 s', '2 min 5 s']);
  });
});
