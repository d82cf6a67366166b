/**
 * Virtual time for the stage handlers' lease/fencing clock (`checkpoint: { now, sleep }`), one
 * clock per stage and shard, so that waiting for a crashed invocation's lease to expire costs no
 * real time.
 *
 * Every invocation of the shard is a *participant* while it is live (from its start until it
 * returns, throws or its container crashes). Time moves in two ways:
 *
 * - {@link VirtualClock.advance}: work takes time (the fault injector advances the clock by a
 *   fixed latency per client call); sleepers that come due wake up.
 * - `sleep(ms)` parks the caller. When every live participant is parked, time jumps to the
 *   earliest wake-up and wakes those due: a sleeper alone on its shard (the usual case: waiting
 *   for a crashed invocation's lease) returns at once. While another participant is live and
 *   not parked, sleepers wait; when a participant ends or dies, every sleeper wakes early
 *   (without moving time) to look again, as a poll loop does — the lease may have been released.
 *
 * A dead participant's sleep never returns.
 */
/** A participant's handle on a clock (one per container). */
export interface ClockParticipant {
  /** Virtual epoch milliseconds. */
  now(): number;
  /** Parks until virtual time has advanced by `ms` (see the module header). */
  sleep(ms: number): Promise<void>;
}

interface Sleeper {
  readonly wakeAt: number;
  readonly resolve: () => void;
}

/** The virtual time of one stage shard; see the module header. */
export class VirtualClock {
  private time: number;
  private readonly live = new Set<object>();
  private readonly dead = new WeakSet<object>();
  private readonly sleepers = new Map<object, Sleeper>();
  /** Total virtual milliseconds skipped while every live participant slept. */
  skippedMs = 0;

  /** @param start the initial virtual time (epoch ms) */
  constructor(start: number) {
    this.time = start;
  }

  /** Virtual epoch milliseconds. */
  now(): number {
    return this.time;
  }

  /** `token` starts an invocation: it is live until {@link end} or {@link kill}. */
  begin(token: object): void {
    if (!this.dead.has(token)) this.live.add(token);
  }

  /** `token`'s invocation returned or threw: the sleepers wake to look again. */
  end(token: object): void {
    this.live.delete(token);
    this.wakeAll();
  }

  /** `token` crashed: it is never live again and its sleeps never return; the others wake. */
  kill(token: object): void {
    this.dead.add(token);
    this.live.delete(token);
    this.sleepers.delete(token);
    this.wakeAll();
  }

  /** Work took `ms`: time moves on and due sleepers wake. */
  advance(ms: number): void {
    this.time += ms;
    this.wakeDue();
  }

  /** Time moves on to `time` (if later) and due sleepers wake. */
  advanceTo(time: number): void {
    if (time > this.time) this.time = time;
    this.wakeDue();
  }

  /** Whether `token` is live. */
  isLive(token: object): boolean {
    return this.live.has(token);
  }

  /** Parks `token` for `ms` of virtual time. */
  sleep(token: object, ms: number): Promise<void> {
    if (this.dead.has(token)) return new Promise<void>(() => {});
    // A sleeper counts as live even if its invocation was not registered (defensive).
    this.live.add(token);
    return new Promise<void>((resolve) => {
      this.sleepers.set(token, { wakeAt: this.time + Math.max(0, ms), resolve });
      this.settle();
    });
  }

  /** A participant view bound to `token`. */
  participant(token: object): ClockParticipant {
    return { now: () => this.now(), sleep: (ms) => this.sleep(token, ms) };
  }

  /** Moves time when every live participant sleeps. */
  private settle(): void {
    if (this.sleepers.size === 0) return;
    for (const token of this.live) if (!this.sleepers.has(token)) return;
    let wakeAt = Infinity;
    for (const s of this.sleepers.values()) wakeAt = Math.min(wakeAt, s.wakeAt);
    if (wakeAt > this.time) {
      this.skippedMs += wakeAt - this.time;
      this.time = wakeAt;
    }
    this.wakeDue();
  }

  private wakeDue(): void {
    for (const [token, s] of [...this.sleepers]) {
      if (s.wakeAt <= this.time) {
        this.sleepers.delete(token);
        s.resolve();
      }
    }
  }

  /** Wakes every sleeper now (a participant ended: what they wait for may have changed). */
  private wakeAll(): void {
    for (const [token, s] of [...this.sleepers]) {
      this.sleepers.delete(token);
      s.resolve();
    }
  }
}

/** One {@link VirtualClock} per key (`stage/shard`), created on first use. */
export class VirtualClocks {
  private readonly clocks = new Map<string, VirtualClock>();

  /** @param start the initial virtual time of every clock */
  constructor(private readonly start: number = Date.now()) {}

  /** The clock of `key`. */
  get(key: string): VirtualClock {
    let clock = this.clocks.get(key);
    if (clock === undefined) {
      clock = new VirtualClock(this.start);
      this.clocks.set(key, clock);
    }
    return clock;
  }

  /** Virtual milliseconds skipped, over all clocks. */
  skippedMs(): number {
    let total = 0;
    for (const c of this.clocks.values()) total += c.skippedMs;
    return total;
  }
}
