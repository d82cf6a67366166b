import { describe, expect, it } from 'vitest';
import { PlanError, RecordError, TransientError } from '../../shared/core/errors.ts';
import { encodeLookupKey } from '../../shared/lookup/dimension-source.ts';
import { DimensionDataError, classifyLookupError, isTransientLookupError } from '../../shared/lookup/errors.ts';
import { createFunctionSource } from '../../shared/lookup/function-source.ts';
import { createMySqlSource } from '../../shared/lookup/jdbc-mysql-source.ts';
import { createResilientSource } from '../../shared/lookup/resilient-source.ts';
import { idNameSchema, recordingSource } from './helpers.ts';

const ids = (...values: number[]) => values.map((id) => ({ id }));
const k = (id: number): string => encodeLookupKey({ id }, ['id']);

/** A sleep that records its delays instead of waiting. */
function fakeSleep(): { sleep: (ms: number) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  return { delays, sleep: async (ms) => void delays.push(ms) };
}

/** An error shaped like a driver's (code + message). */
function driverError(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

describe('retry on miss (FLIP-234 fixed delay)', () => {
  it('asks again only for the missing keys, with the fixed delay, until they arrive', async () => {
    const source = recordingSource([{ id: 1, name: 'a' }]);
    const { sleep, delays } = fakeSleep();
    const retries: string[] = [];
    const resilient = createResilientSource(source, {
      retry: { maxAttempts: 4, delayMs: 250 },
      sleep: async (ms) => {
        await sleep(ms);
        // The late dimension row lands after the second attempt.
        if (delays.length === 2) source.rows.push({ id: 2, name: 'late' });
      },
      onRetry: (reason, n) => retries.push(`${reason}:${n}`),
    });
    const result = await resilient.lookupMany(ids(1, 2, 3));
    expect(result.get(k(2))).toEqual([{ id: 2, name: 'late' }]);
    expect(result.has(k(3))).toBe(false);
    expect(source.calls).toEqual([ids(1, 2, 3), ids(2, 3), ids(2, 3), ids(3)]);
    expect(delays).toEqual([250, 250, 250]);
    expect(retries).toEqual(['miss:2', 'miss:2', 'miss:1']);
  });

  it('does not retry misses without a retry spec or with onMiss false', async () => {
    for (const retry of [undefined, { maxAttempts: 3, delayMs: 10, onMiss: false }]) {
      const source = recordingSource([]);
      await createResilientSource(source, { retry, sleep: fakeSleep().sleep }).lookupMany(ids(1));
      expect(source.calls.length).toBe(1);
    }
  });
});

describe('retry on transient errors', () => {
  it('retries with exponential backoff and then succeeds', async () => {
    let failures = 2;
    const source = createFunctionSource({
      table: 'dim',
      schema: idNameSchema,
      lookup: () => {
        if (failures-- > 0) throw driverError('ECONNRESET', 'read ECONNRESET');
        return [{ id: 1, name: 'a' }];
      },
    });
    const { sleep, delays } = fakeSleep();
    const resilient = createResilientSource(source, { retry: { maxAttempts: 3, delayMs: 100, onMiss: false }, sleep, random: () => 0.999 });
    expect((await resilient.lookupMany(ids(1))).get(k(1))).toEqual([{ id: 1, name: 'a' }]);
    expect(delays).toEqual([99, 199]);
  });

  it('throws a TransientError once the attempts are used up', async () => {
    let calls = 0;
    const source = createFunctionSource({
      table: 'dim',
      schema: idNameSchema,
      lookup: () => {
        calls++;
        throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
      },
    });
    const resilient = createResilientSource(source, { sleep: fakeSleep().sleep });
    const error = await resilient.lookupMany(ids(1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as Error).message).toBe("lookup of table 'dim' failed after 3 attempts: Rate exceeded");
    expect(calls).toBe(3);
  });

  it('a refused connection to a real (closed) MySQL port is transient', async () => {
    const source = createMySqlSource({ url: 'jdbc:mysql://127.0.0.1:1/test', user: 'root', table: 't', schema: idNameSchema, connectTimeoutMs: 2000 });
    const resilient = createResilientSource(source, { retry: { maxAttempts: 2, delayMs: 1 }, sleep: fakeSleep().sleep });
    await expect(resilient.lookupMany(ids(1))).rejects.toThrow(TransientError);
    await resilient.close();
  });

  it('does not retry a rejected key value or an unknown failure', async () => {
    for (const [error, kind] of [
      [driverError('22P02', 'invalid input syntax for type bigint'), RecordError],
      [driverError('ER_NO_SUCH_TABLE', "Table 'test.x' doesn't exist"), DimensionDataError],
    ] as const) {
      let calls = 0;
      const source = createFunctionSource({
        table: 'dim',
        schema: idNameSchema,
        lookup: () => {
          calls++;
          throw error;
        },
      });
      await expect(createResilientSource(source, { sleep: fakeSleep().sleep }).lookupMany(ids(1))).rejects.toThrow(kind);
      expect(calls).toBe(1);
    }
  });
});

describe('chunking and concurrency', () => {
  it('splits distinct keys into batchSize chunks with at most maxConcurrency in flight', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const calls: number[][] = [];
    const source = createFunctionSource({
      table: 'dim',
      schema: idNameSchema,
      lookup: async (keys) => {
        calls.push(keys.map((key) => key.id as number));
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        return keys.map((key) => ({ id: key.id!, name: `n${String(key.id)}` }));
      },
    });
    const resilient = createResilientSource(source, { batchSize: 3, maxConcurrency: 2 });
    const result = await resilient.lookupMany(ids(1, 2, 3, 4, 5, 6, 7, 1, 2));
    expect(result.size).toBe(7);
    expect(calls).toEqual([
      [1, 2, 3],
      [4, 5, 6],
      [7],
    ]);
    expect(maxInFlight).toBe(2);
  });

  it('rejects invalid settings', () => {
    const source = recordingSource([]);
    expect(() => createResilientSource(source, { batchSize: 0 })).toThrow(/batchSize must be a positive integer \(given 0\)/);
    expect(() => createResilientSource(source, { retry: { maxAttempts: 0, delayMs: 1 } })).toThrow(PlanError);
    expect(() => createResilientSource(source, { retry: { maxAttempts: 2, delayMs: -1 } })).toThrow(PlanError);
  });
});

describe('classifyLookupError', () => {
  it('classifies driver errors', () => {
    expect(isTransientLookupError(driverError('PROTOCOL_CONNECTION_LOST'))).toBe(true);
    expect(isTransientLookupError(driverError('08006'))).toBe(true);
    expect(isTransientLookupError(driverError('40P01'))).toBe(true);
    expect(isTransientLookupError(Object.assign(new Error('x'), { name: 'ProvisionedThroughputExceededException' }))).toBe(true);
    expect(isTransientLookupError(Object.assign(new Error('x'), { $metadata: { httpStatusCode: 503 } }))).toBe(true);
    expect(isTransientLookupError(driverError('42P01'))).toBe(false);
    expect(classifyLookupError(driverError('ER_TRUNCATED_WRONG_VALUE'), 't')).toBeInstanceOf(RecordError);
    expect(classifyLookupError(driverError('42601', 'syntax error'), 't')).toBeInstanceOf(DimensionDataError);
    const planError = new PlanError('bad');
    expect(classifyLookupError(planError, 't')).toBe(planError);
  });
});
