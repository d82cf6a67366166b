/**
 * The non-deterministic built-ins, with Flink's semantics:
 *
 * - `RAND()`: a DOUBLE in [0, 1); `RAND(seed)`: the same, from a generator seeded with the
 *   integer literal `seed` — Java's `java.util.Random`, reproduced exactly, so a query gives the
 *   numbers Flink gives (one generator per operator instance, one draw per row, as Flink's
 *   generated code keeps one `Random` per operator).
 * - `RAND_INTEGER(bound)`, `RAND_INTEGER(seed, bound)`: an INT in [0, bound) (`Random.nextInt`);
 *   a bound that is not positive is a data error, as Java's IllegalArgumentException fails the
 *   job in Flink.
 * - `UUID()`: an RFC 4122 version 4 UUID string from a cryptographically strong generator.
 *
 * Each is marked {@link Builtin.nonDeterministic}: the planner refuses them where a retraction
 * would have to repeat the value of the row it retracts (shared/plan/determinism.ts).
 */
import { randomUUID } from 'node:crypto';
import { PlanError, RecordError } from '../core/errors.ts';
import type { Call } from './expr.ts';
import { printExpr } from './expr-print.ts';
import { type Builtin, checkArgs, DOUBLE, INT, INTEGERS, nullableIf, requireRoots, STRING } from './expr-fn.ts';

const MULTIPLIER = 0x5deece66dn;
const ADDEND = 0xbn;
const MASK = (1n << 48n) - 1n;

/** `java.util.Random`: the same 48-bit linear congruential generator, so equal seeds give Java's sequence. */
export class JavaRandom {
  private seed: bigint;

  constructor(seed: number | bigint) {
    this.seed = (BigInt(seed) ^ MULTIPLIER) & MASK;
  }

  /** `Random.next(bits)`: the top `bits` bits of the next state, as a signed 32-bit int. */
  private next(bits: number): number {
    this.seed = (this.seed * MULTIPLIER + ADDEND) & MASK;
    return Number(BigInt.asIntN(32, this.seed >> BigInt(48 - bits)));
  }

  /** `Random.nextDouble()`: 53 random bits over 2^53. */
  nextDouble(): number {
    return (this.next(26) * 2 ** 27 + this.next(27)) * 2 ** -53;
  }

  /** `Random.nextInt(bound)` for a positive bound, with Java's rejection of the biased tail. */
  nextInt(bound: number): number {
    let r = this.next(31);
    const m = bound - 1;
    if ((bound & m) === 0) return Number((BigInt(bound) * BigInt(r)) >> 31n);
    for (let u = r; ((u - (r = u % bound) + m) | 0) < 0; u = this.next(31));
    return r;
  }
}

/** A generator without a seed: seeded from Math.random, as Java seeds one from the clock. */
function unseeded(): JavaRandom {
  return new JavaRandom(BigInt(Math.floor(Math.random() * 2 ** 48)));
}

/** The seed of RAND(seed) / RAND_INTEGER(seed, bound): an integer literal, as Flink initialises its generator once. */
function seedOf(call: Call): number {
  const a = call.args[0];
  if (a?.kind !== 'literal' || typeof a.value !== 'number' || !Number.isInteger(a.value)) {
    throw new PlanError(`the seed of ${call.fn} must be an integer literal in ${printExpr(call)}`);
  }
  return a.value;
}

const RAND: Builtin = {
  nonDeterministic: true,
  type: (call, types) => {
    checkArgs(call, 0, 1);
    requireRoots(call, types, INTEGERS);
    if (call.args.length === 1) seedOf(call);
    return DOUBLE;
  },
  evaluator: ({ call }) => {
    const random = call.args.length === 1 ? new JavaRandom(seedOf(call)) : unseeded();
    return () => random.nextDouble();
  },
};

const RAND_INTEGER: Builtin = {
  nonDeterministic: true,
  type: (call, types) => {
    checkArgs(call, 1, 2);
    requireRoots(call, types, INTEGERS);
    if (call.args.length === 2) seedOf(call);
    return nullableIf(INT, types.slice(-1));
  },
  evaluator: ({ call, args, where }) => {
    const random = call.args.length === 2 ? new JavaRandom(seedOf(call)) : unseeded();
    const bound = args[args.length - 1]!.fn;
    return (row) => {
      const b = bound(row);
      if (b === null) return null;
      if ((b as number) <= 0 || (b as number) > 2147483647) throw new RecordError(`the bound of ${where} must be a positive INT, got ${String(b)}`);
      return random.nextInt(b as number);
    };
  },
};

const UUID: Builtin = {
  nonDeterministic: true,
  type: (call) => {
    checkArgs(call, 0, 0);
    return STRING;
  },
  evaluator: () => () => randomUUID(),
};

/** The non-deterministic built-ins by name. */
export const RANDOM_FUNCTIONS: Readonly<Record<string, Builtin>> = { RAND, RAND_INTEGER, UUID };
