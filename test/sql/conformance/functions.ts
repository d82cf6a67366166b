/**
 * The user functions the conformance cases declare with CREATE FUNCTION, by their
 * 'module.ts#export' identifier (the CLI imports such modules next to the script).
 */
import { aggregateFunction, scalarFunction, tableFunction, type UserFunctionDefinition } from '../../../shared/api/user-functions.ts';
import { countChar } from '../../../examples/sql/nexmark/count-char.ts';

/** Flink's SplitFunction example (`eval(String str)`): one row (word, length) per space-separated word. */
export const splitWords = tableFunction({ word: 'STRING', len: 'INT' }, { input: ['STRING'] }, function* splitWords(line) {
  for (const word of (line ?? '').split(' ')) if (word !== '') yield { word, len: word.length };
});

/** Flink's SubstringFunction example (`eval(String s, Integer begin, Integer end)`): `s` from `begin` to `end` (exclusive). */
export const substringOf = scalarFunction('STRING', { input: ['STRING', 'INT', 'INT'] }, (s, begin, end) => (s === null || begin === null || end === null ? null : s.substring(begin, end)));

/**
 * An average with retraction (the accumulator interface of Flink's WeightedAvg example) of a
 * DOUBLE (`accumulate(acc, Double value)`): a DECIMAL or an integer argument is cast to it.
 */
export const myAvg = aggregateFunction<{ sum: number; count: number }>('DOUBLE', {
  name: 'myAvg',
  input: ['DOUBLE'],
  createAccumulator: () => ({ sum: 0, count: 0 }),
  accumulate(acc, value) {
    if (value === null) return;
    acc.sum += value as number;
    acc.count++;
  },
  retract(acc, value) {
    if (value === null) return;
    acc.sum -= value as number;
    acc.count--;
  },
  getValue: (acc) => (acc.count === 0 ? null : acc.sum / acc.count),
});

/**
 * Flink's WeightedAvg example: `weighted_avg(value, weight)` (`accumulate(acc, Long iValue,
 * Integer iWeight)`) with accumulate, retract and merge (so it also aggregates HOP, CUMULATE and
 * SESSION windows); BIGINT, the sum divided by the weight as Java's long division truncates.
 */
export const weightedAvg = aggregateFunction<{ sum: number; count: number }>('BIGINT', {
  name: 'weightedAvg',
  input: ['BIGINT', 'INT'],
  createAccumulator: () => ({ sum: 0, count: 0 }),
  accumulate(acc, value, weight) {
    if (value === null || weight === null) return;
    acc.sum += Number(value) * Number(weight);
    acc.count += Number(weight);
  },
  retract(acc, value, weight) {
    if (value === null || weight === null) return;
    acc.sum -= Number(value) * Number(weight);
    acc.count -= Number(weight);
  },
  merge(acc, other) {
    acc.sum += other.sum;
    acc.count += other.count;
  },
  getValue: (acc) => (acc.count === 0 ? null : Math.trunc(acc.sum / acc.count)),
});

/**
 * Flink's SumFunction example of eval overloading: `eval(Integer a, Integer b)`, `eval(String a,
 * String b)` and `eval(Double... d)`, declared as three signatures of one TypeScript function,
 * its result INT. As in Flink, `sum_of(1.5, 2.5, 3.5)` casts its DECIMAL arguments to the
 * DOUBLE varargs and gives `(int) 7.5`, 7.
 */
export const sumOf = scalarFunction('INT', { input: [['INT', 'INT'], ['STRING', 'STRING'], ['DOUBLE...']] }, (...args) => {
  if (args.some((a) => a === null)) return null;
  if (typeof args[0] === 'string') return Number.parseInt(args[0], 10) + Number.parseInt(String(args[1]), 10);
  return Math.trunc((args as number[]).reduce((sum, a) => sum + a, 0));
});

/** The functions by identifier. */
export const FUNCTIONS: ReadonlyMap<string, UserFunctionDefinition> = new Map<string, UserFunctionDefinition>([
  ['split.ts#splitWords', splitWords],
  ['substring.ts#substringOf', substringOf],
  ['count-char.ts#countChar', countChar],
  ['avg.ts#myAvg', myAvg],
  ['weighted-avg.ts#weightedAvg', weightedAvg],
  ['sum.ts#sumOf', sumOf],
]);
