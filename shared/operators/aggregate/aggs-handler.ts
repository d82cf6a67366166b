/**
 * All aggregate calls of one operator over one group's accumulators: what Flink's planner
 * generates as an `AggsHandleFunction` (AggsHandlerCodeGenerator), including FILTER and DISTINCT
 * handling and the record counter.
 */
import { PlanError } from '../../core/errors.ts';
import { requireField } from '../../core/type-parse.ts';
import type { LogicalType, Row, Schema, Value } from '../../core/types.ts';
import { encodeKey } from '../../partition/key-encoding.ts';
import { bindUdfCall, udfResultConverter, type BoundUdfCall } from '../../plan/udf-values.ts';
import { formatAggCall, type AggCallSpec, type UserAggregateRef } from './agg-call.ts';
import type { AggFunction } from './agg-function.ts';
import { createAggFunction } from './create-agg-function.ts';
import { aggResultType } from './result-type.ts';

/**
 * A user aggregate function from the registry as an AggFunction: its arguments reach
 * `accumulate` and `retract` as `bound` converts them, its result comes back to its declared
 * type (shared/plan/udf-values.ts). Without a registry (the planner only asks for result types)
 * its accumulator calls fail by name. With `spread`, the value handed over is the tuple of its
 * arguments (none, or several), spread into the call.
 */
function userAggFunction(user: UserAggregateRef, display: string, functions: ReadonlyMap<string, unknown> | undefined, spread: boolean, bound: BoundUdfCall): AggFunction<unknown> {
  const fn = functions?.get(user.ref) as AggregateFunctionLike | undefined;
  const missing = (): never => {
    throw new PlanError(`aggregate function ${user.name} (${user.ref}) of ${display} is not in the pipeline's function registry`);
  };
  if (fn === undefined) return { createAccumulator: missing, accumulate: missing, retract: missing, getValue: missing };
  const values = (value: Value): unknown[] => bound.toJs(spread ? (value as Value[]) : [value]);
  const result = udfResultConverter(user.resultType, `aggregate function ${user.name}`);
  return {
    createAccumulator: () => fn.createAccumulator(),
    accumulate: (acc, value) => fn.accumulate(acc, ...values(value)),
    retract: (acc, value) => {
      if (!fn.retract) throw new PlanError(`aggregate function ${user.name} has no retract: it cannot aggregate an updating input (${display})`);
      fn.retract(acc, ...values(value));
    },
    getValue: (acc) => result(fn.getValue(acc)),
  };
}

/** What the registry holds for a user aggregate (shared/api/user-functions.ts AggregateFunction). */
export interface AggregateFunctionLike {
  createAccumulator(): unknown;
  accumulate(acc: unknown, ...values: unknown[]): void;
  retract?(acc: unknown, ...values: unknown[]): void;
  /** Adds the accumulator `other` into `acc` (sessions, sliced HOP / CUMULATE windows). */
  merge?(acc: unknown, other: unknown): void;
  getValue(acc: unknown): unknown;
}

/** The registry entry of a user aggregate, or undefined. */
export function userAggregateOf(user: UserAggregateRef, functions: ReadonlyMap<string, unknown> | undefined): AggregateFunctionLike | undefined {
  return functions?.get(user.ref) as AggregateFunctionLike | undefined;
}

/**
 * Distinct values of one argument column: `'#' + encodeKey([value])` → one count per filter slot
 * of that argument (see {@link AggsHandler}). The `#` keeps every key clear of `__proto__`.
 */
export type DistinctMap = Record<string, number[]>;

/** Everything one group keeps: plain data, stored as one state value. */
export interface GroupAccumulators {
  /**
   * Flink's `RecordCounter`: accumulated minus retracted rows. The group is deleted when it reaches
   * 0, whatever the aggregates compute (a MAX alone cannot tell an empty group apart).
   */
  records: number;
  /** One accumulator per aggregate call, in call order. */
  aggs: unknown[];
  /** One distinct map per distinct argument column, in order of first use. */
  distinct: DistinctMap[];
}

interface CompiledCall {
  readonly fn: AggFunction<unknown>;
  readonly arg: string | undefined;
  /** A user aggregate of no argument or several: its argument columns, read as one tuple. */
  readonly tuple?: readonly string[];
  readonly filter: string | undefined;
}

/** The calls sharing one distinct map that also share a FILTER column (or have none). */
interface DistinctSlot {
  readonly filter: string | undefined;
  readonly calls: readonly number[];
}

/** The distinct calls over one argument column, or over one tuple of argument columns. */
interface DistinctGroup {
  readonly arg: string;
  /** A user aggregate's several arguments, distinct as one tuple (NULLs included, as Flink keys them). */
  readonly tuple?: readonly string[];
  readonly slots: readonly DistinctSlot[];
}

/**
 * Accumulates, retracts and reads the aggregate calls of a group aggregation.
 *
 * FILTER: a row reaches a call only when its filter column is TRUE (Flink's generated
 * `if (filterArg) { accumulate }`; NULL and FALSE both skip).
 *
 * DISTINCT: as in Flink's `DistinctAggCodeGen`, calls over the same argument share one map from
 * value to the number of rows carrying it; when such calls have different FILTERs the map keeps
 * one count per filter (Flink's `long[]` map value). A call accumulates a value only when its
 * count goes 0 → 1 and retracts it only when the count goes 1 → 0. NULL arguments are not
 * tracked: every supported aggregate ignores NULL, so they could never change a result. A user
 * aggregate's `DISTINCT a, b` tracks the tuple of its arguments, as Flink keys its distinct map
 * by the row of the arguments: a tuple holding a NULL is a value like any other.
 */
export class AggsHandler {
  /** Output column names of the calls, in order. */
  readonly names: readonly string[];
  /** Result types of the calls, in order. */
  readonly resultTypes: readonly LogicalType[];
  private readonly calls: readonly CompiledCall[];
  /** Indexes of the non-distinct calls. */
  private readonly plain: readonly number[];
  /** Indexes of the non-distinct calls that check a value before accumulating it. */
  private readonly checked: readonly number[];
  private readonly distinctGroups: readonly DistinctGroup[];

  /**
   * @throws PlanError naming the call for a missing column, a non-BOOLEAN filter column,
   *   COUNT(DISTINCT *), or an argument type the function does not support.
   */
  constructor(specs: readonly AggCallSpec[], inputSchema: Schema, functions?: ReadonlyMap<string, unknown>) {
    const calls: CompiledCall[] = [];
    const resultTypes: LogicalType[] = [];
    const plain: number[] = [];
    const groups = new Map<string, Map<string | undefined, number[]>>();
    specs.forEach((spec, index) => {
      const display = formatAggCall(spec);
      const argType = spec.arg === undefined ? undefined : requireField(inputSchema, spec.arg, display).type;
      if (spec.filterField !== undefined) {
        const filterType = requireField(inputSchema, spec.filterField, display).type;
        if (filterType.root !== 'BOOLEAN') {
          throw new PlanError(`FILTER column '${spec.filterField}' of ${display} must be BOOLEAN, not ${filterType.root}`);
        }
      }
      if (spec.distinct && spec.arg === undefined) throw new PlanError(`COUNT(DISTINCT *) is not valid SQL in ${display}`);
      for (const extra of spec.extraArgs ?? []) requireField(inputSchema, extra, display);
      if (spec.user) {
        resultTypes.push(spec.user.resultType);
        const tuple = spec.arg === undefined || (spec.extraArgs?.length ?? 0) > 0 ? [...(spec.arg === undefined ? [] : [spec.arg]), ...(spec.extraArgs ?? [])] : undefined;
        if (tuple !== undefined && tuple.length === 0 && spec.distinct) throw new PlanError(`DISTINCT over no argument is not valid (${display})`);
        const columns = tuple ?? [spec.arg!];
        const bound = bindUdfCall(spec.user.name, spec.user.input, columns.map((c) => ({ type: requireField(inputSchema, c, display).type, text: c })));
        calls.push({ fn: userAggFunction(spec.user, display, functions, tuple !== undefined, bound), arg: spec.arg, ...(tuple !== undefined ? { tuple } : {}), filter: spec.filterField });
      } else {
        resultTypes.push(aggResultType(spec.fn, argType, display, spec));
        calls.push({ fn: createAggFunction(spec.fn, argType, display, spec), arg: spec.arg, filter: spec.filterField });
      }
      if (spec.distinct && spec.arg !== undefined) {
        const tuple = calls[index]!.tuple;
        // A tuple's group key cannot be a column name: column names hold no NUL.
        const groupKey = tuple === undefined ? spec.arg : `\u0000${JSON.stringify(tuple)}`;
        let slots = groups.get(groupKey);
        if (slots === undefined) groups.set(groupKey, (slots = new Map()));
        let slotCalls = slots.get(spec.filterField);
        if (slotCalls === undefined) slots.set(spec.filterField, (slotCalls = []));
        slotCalls.push(index);
      } else {
        plain.push(index);
      }
    });
    this.names = specs.map((s) => s.name);
    this.resultTypes = resultTypes;
    this.calls = calls;
    this.plain = plain;
    this.checked = plain.filter((i) => calls[i]!.fn.check !== undefined);
    this.distinctGroups = [...groups.values()].map((slots) => {
      const first = calls[[...slots.values()][0]![0]!]!;
      return {
        arg: first.arg!,
        ...(first.tuple !== undefined ? { tuple: first.tuple } : {}),
        slots: [...slots].map(([filter, slotCalls]) => ({ filter, calls: slotCalls })),
      };
    });
  }

  /** Whether a call can reject a row (see {@link AggFunction.check}). */
  get mayReject(): boolean {
    return this.checked.length > 0;
  }

  /** Accumulators of an empty group. */
  createAccumulators(): GroupAccumulators {
    return {
      records: 0,
      aggs: this.calls.map((c) => c.fn.createAccumulator()),
      distinct: this.distinctGroups.map(() => ({})),
    };
  }

  /**
   * Adds an input row (`+I`/`+U`) to the group, in place.
   *
   * @throws RecordError, before changing anything, when a call rejects the row's value.
   */
  accumulate(acc: GroupAccumulators, row: Row): void {
    for (const i of this.checked) {
      const call = this.calls[i]!;
      if (passes(row, call.filter)) call.fn.check!(acc.aggs[i], argValue(row, call));
    }
    acc.records++;
    for (const i of this.plain) {
      const call = this.calls[i]!;
      if (passes(row, call.filter)) call.fn.accumulate(acc.aggs[i], argValue(row, call));
    }
    for (let g = 0; g < this.distinctGroups.length; g++) {
      const group = this.distinctGroups[g]!;
      const value = distinctValue(row, group);
      if (value === null) continue;
      const map = acc.distinct[g]!;
      const key = distinctKey(value, group);
      let counts = map[key];
      for (let s = 0; s < group.slots.length; s++) {
        const slot = group.slots[s]!;
        if (!passes(row, slot.filter)) continue;
        counts ??= new Array<number>(group.slots.length).fill(0);
        counts[s] = counts[s]! + 1;
        if (counts[s] === 1) {
          for (const i of slot.calls) this.calls[i]!.fn.accumulate(acc.aggs[i], value);
        }
      }
      if (counts !== undefined) map[key] = counts;
    }
  }

  /** Removes an input row (`-U`/`-D`) from the group, in place. */
  retract(acc: GroupAccumulators, row: Row): void {
    acc.records--;
    for (const i of this.plain) {
      const call = this.calls[i]!;
      if (passes(row, call.filter)) call.fn.retract(acc.aggs[i], argValue(row, call));
    }
    for (let g = 0; g < this.distinctGroups.length; g++) {
      const group = this.distinctGroups[g]!;
      const value = distinctValue(row, group);
      if (value === null) continue;
      const map = acc.distinct[g]!;
      const key = distinctKey(value, group);
      const counts = map[key];
      // A value this group never counted: nothing of it reached the calls, so nothing to undo.
      if (counts === undefined) continue;
      for (let s = 0; s < group.slots.length; s++) {
        const slot = group.slots[s]!;
        if (!passes(row, slot.filter) || counts[s] === 0) continue;
        counts[s] = counts[s]! - 1;
        if (counts[s] === 0) {
          for (const i of slot.calls) this.calls[i]!.fn.retract(acc.aggs[i], value);
        }
      }
      if (counts.every((c) => c === 0)) delete map[key];
    }
  }

  /** The current results, one per call, in call order. */
  getValues(acc: GroupAccumulators): Value[] {
    return this.calls.map((call, i) => call.fn.getValue(acc.aggs[i]));
  }
}

function passes(row: Row, filter: string | undefined): boolean {
  return filter === undefined || row[filter] === true;
}

function argValue(row: Row, call: CompiledCall): Value {
  if (call.tuple !== undefined) return call.tuple.map((c) => row[c] ?? null);
  return call.arg === undefined ? null : (row[call.arg] ?? null);
}

/** The value a distinct group tracks in a row: its argument's, or the tuple of its arguments. */
function distinctValue(row: Row, group: DistinctGroup): Value {
  return group.tuple === undefined ? (row[group.arg] ?? null) : group.tuple.map((c) => row[c] ?? null);
}

function distinctKey(value: Value, group: DistinctGroup): string {
  return '#' + encodeKey(group.tuple === undefined ? [value] : (value as Value[]));
}
