/**
 * Order keys and rank ranges of the API's Top-N calls (`rank`, `topN`, window ranks): their
 * spellings and how they are read into the plan's SortField and RankRange.
 */
import { PlanError } from '../core/errors.ts';
import type { Schema } from '../core/types.ts';
import type { RankRange, SortField } from '../plan/logical.ts';
import { requireColumn } from './aggregate-input.ts';

/** An order key: `'col'`, `'col DESC'`, `'col ASC NULLS LAST'`, or an object. */
export type OrderSpec<T> =
  | (keyof T & string)
  | `${keyof T & string} ${'ASC' | 'DESC' | 'asc' | 'desc'}${'' | ` NULLS ${'FIRST' | 'LAST'}`}`
  | { readonly column: keyof T & string; readonly direction?: 'ASC' | 'DESC'; readonly nulls?: 'FIRST' | 'LAST' };

/** Which ranks to keep. */
export type RankRangeSpec =
  /** Ranks 1..n (`rn <= n`). */
  | { readonly atMost: number }
  /** Ranks 1..n-1 (`rn < n`). */
  | { readonly lessThan: number }
  /** Ranks a..b (`rn BETWEEN a AND b`). */
  | { readonly between: readonly [number, number] }
  /** Rank k only (`rn = k`). */
  | { readonly equals: number }
  /** Ranks 1..value of this column (`rn <= col`); the first value per partition wins, as in Flink. */
  | { readonly atMostColumn: string };

/** Reads an order key; Flink's default null ordering when none is given. */
export function parseOrder(spec: OrderSpec<Record<string, unknown>>, schema: Schema): SortField {
  if (typeof spec === 'object') {
    requireColumn(schema, spec.column, 'rank orderBy');
    const direction = spec.direction ?? 'ASC';
    // Flink's default null ordering: NULLS FIRST for ASC, NULLS LAST for DESC.
    return { column: spec.column, direction, nullsFirst: spec.nulls ? spec.nulls === 'FIRST' : direction === 'ASC' };
  }
  const m = /^\s*(\S+)(?:\s+(ASC|DESC))?(?:\s+NULLS\s+(FIRST|LAST))?\s*$/i.exec(spec);
  if (!m) throw new PlanError(`rank orderBy: cannot read '${spec}' (expected 'column [ASC|DESC] [NULLS FIRST|LAST]')`);
  const column = m[1] as string;
  const direction = (m[2]?.toUpperCase() ?? 'ASC') as 'ASC' | 'DESC';
  return parseOrder({ column, direction, ...(m[3] ? { nulls: m[3].toUpperCase() as 'FIRST' | 'LAST' } : {}) }, schema);
}

/** Reads a rank range. @throws PlanError for an empty or unbounded range. */
export function parseRankRange(spec: RankRangeSpec, schema: Schema): RankRange {
  const whole = (name: string, v: number): number => {
    if (!Number.isSafeInteger(v) || v < 1) throw new PlanError(`rank range: ${name} must be a positive integer (given ${v})`);
    return v;
  };
  if ('atMost' in spec) return { type: 'constant', start: 1, end: whole('atMost', spec.atMost) };
  if ('lessThan' in spec) {
    if (spec.lessThan <= 1) throw new PlanError(`rank range: lessThan ${spec.lessThan} keeps no rank (rn < ${spec.lessThan})`);
    return { type: 'constant', start: 1, end: whole('lessThan', spec.lessThan) - 1 };
  }
  if ('between' in spec) {
    const [a, b] = spec.between;
    if (whole('between start', a) > whole('between end', b)) throw new PlanError(`rank range: BETWEEN ${a} AND ${b} is empty`);
    return { type: 'constant', start: a, end: b };
  }
  if ('equals' in spec) return { type: 'constant', start: whole('equals', spec.equals), end: spec.equals };
  if ('atMostColumn' in spec) {
    const t = requireColumn(schema, spec.atMostColumn, 'rank range atMostColumn');
    if (t.root !== 'INT' && t.root !== 'BIGINT') throw new PlanError(`rank range column '${spec.atMostColumn}' must be INT or BIGINT (it is ${t.root})`);
    return { type: 'variable', endColumn: spec.atMostColumn };
  }
  throw new PlanError(`rank range must be one of atMost, lessThan, between, equals, atMostColumn (an unbounded rank is not supported)`);
}
