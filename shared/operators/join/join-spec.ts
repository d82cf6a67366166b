/**
 * What every stream–stream join shares: its type, the two input schemas, the equi-join keys, the
 * residual condition, and the joined row's columns.
 *
 * The joined row is the left row's columns followed by the right row's, as Calcite's join row
 * type: a right column whose name the left side (or an earlier right column) already uses gets
 * the first free `name0`, `name1`, … (SqlValidatorUtil.uniquify), so `auction.id` and `person.id`
 * become `id` and `id0`. The residual condition is written over those names.
 */
import { PlanError } from '../../core/errors.ts';
import type { Field, LogicalType, Row, Schema, Value } from '../../core/types.ts';
import { requireField } from '../../core/type-parse.ts';
import type { Expr } from '../../plan/expr.ts';

/** Joins with an ON condition: Flink's INNER, LEFT, RIGHT and FULL OUTER. */
export type OuterJoinType = 'INNER' | 'LEFT' | 'RIGHT' | 'FULL';

/** Every join type; SEMI and ANTI (`IN` / `EXISTS`, `NOT IN` / `NOT EXISTS`) emit left rows only. */
export type JoinType = OuterJoinType | 'SEMI' | 'ANTI';

/** The join types every join operator of this family accepts, for validation of JSON specs. */
export const JOIN_TYPES: readonly JoinType[] = ['INNER', 'LEFT', 'RIGHT', 'FULL', 'SEMI', 'ANTI'];

/** Flink's FlinkJoinType names, as EXPLAIN prints them (`joinType=[LeftOuterJoin]`). */
export const JOIN_TYPE_NAMES: Readonly<Record<JoinType, string>> = {
  INNER: 'InnerJoin',
  LEFT: 'LeftOuterJoin',
  RIGHT: 'RightOuterJoin',
  FULL: 'FullOuterJoin',
  SEMI: 'LeftSemiJoin',
  ANTI: 'LeftAntiJoin',
};

/** Whether the left side's unmatched rows are kept, padded with nulls. */
export function leftIsOuter(type: JoinType): boolean {
  return type === 'LEFT' || type === 'FULL';
}

/** Whether the right side's unmatched rows are kept, padded with nulls. */
export function rightIsOuter(type: JoinType): boolean {
  return type === 'RIGHT' || type === 'FULL';
}

/** The part of a join's spec every join operator has. */
export interface JoinBaseSpec {
  readonly joinType: JoinType;
  readonly leftSchema: Schema;
  readonly rightSchema: Schema;
  /** Equi-join key columns of the left input, pairwise equal to `rightKeys`. */
  readonly leftKeys: readonly string[];
  readonly rightKeys: readonly string[];
  /** Residual (non-equi) condition over the joined row's columns; rows match only when it is TRUE. */
  readonly condition?: Expr;
  /**
   * Per key pair, whether it is `IS NOT DISTINCT FROM` rather than `=`: NULL then matches NULL
   * (the inverse of Flink's `filterNullKeys`). Only regular joins take such keys — INTERSECT and
   * EXCEPT join on every column that way. @default every pair is `=`
   */
  readonly nullSafeKeys?: readonly boolean[];
}

/** How a join's output keeps the inputs' time attributes. */
export type JoinTimeAttributes =
  /** A regular join materializes them (Flink: its output has no rowtime). */
  | 'none'
  /** An interval join keeps both sides' rowtime columns. */
  | 'both'
  /** A temporal join keeps the left (probe) side's. */
  | 'left';

/** The joined row's column names: left names unchanged, then the right names made unique. */
export function joinedFieldNames(left: Schema, right: Schema): { readonly left: readonly string[]; readonly right: readonly string[] } {
  const taken = new Set(left.fields.map((f) => f.name));
  const rightNames = right.fields.map((f) => {
    let name = f.name;
    for (let n = 0; taken.has(name); n++) name = `${f.name}${n}`;
    taken.add(name);
    return name;
  });
  return { left: left.fields.map((f) => f.name), right: rightNames };
}

/**
 * The joined row's schema (left columns, then right columns renamed as {@link joinedFieldNames}):
 * the side an outer join pads becomes nullable. The residual condition is typed against it.
 */
export function joinedSchema(spec: Pick<JoinBaseSpec, 'joinType' | 'leftSchema' | 'rightSchema'>, time: JoinTimeAttributes = 'none'): Schema {
  const names = joinedFieldNames(spec.leftSchema, spec.rightSchema);
  const padLeft = rightIsOuter(spec.joinType);
  const padRight = leftIsOuter(spec.joinType);
  const field = (f: Field, name: string, nullable: boolean, keepTime: boolean): Field => {
    const type: LogicalType = nullable && !f.type.nullable ? { ...f.type, nullable: true } : f.type;
    return { name, type, ...(keepTime && f.timeAttribute !== undefined ? { timeAttribute: f.timeAttribute } : {}) };
  };
  return {
    fields: [
      ...spec.leftSchema.fields.map((f, i) => field(f, names.left[i] as string, padLeft, time !== 'none')),
      ...spec.rightSchema.fields.map((f, i) => field(f, names.right[i] as string, padRight, time === 'both')),
    ],
  };
}

/** The output schema of a join: the joined row, or for SEMI / ANTI the left row alone. */
export function joinOutputSchema(spec: Pick<JoinBaseSpec, 'joinType' | 'leftSchema' | 'rightSchema'>, time: JoinTimeAttributes = 'none'): Schema {
  if (spec.joinType === 'SEMI' || spec.joinType === 'ANTI') return spec.leftSchema;
  return joinedSchema(spec, time);
}

/**
 * Checks a join spec against its schemas: a known join type, key lists of equal length naming
 * existing columns of comparable types.
 *
 * @throws PlanError naming the join (`what`), the bad key or the types that do not compare.
 */
export function validateJoinSpec(spec: JoinBaseSpec, what: string): void {
  if (!JOIN_TYPES.includes(spec.joinType)) {
    throw new PlanError(`${what}: joinType must be one of ${JOIN_TYPES.join(', ')} (given ${JSON.stringify(spec.joinType)})`);
  }
  if (spec.leftKeys.length !== spec.rightKeys.length) {
    throw new PlanError(`${what}: ${spec.leftKeys.length} left key columns but ${spec.rightKeys.length} right key columns`);
  }
  if (spec.nullSafeKeys !== undefined) {
    if (spec.nullSafeKeys.length !== spec.leftKeys.length) {
      throw new PlanError(`${what}: nullSafeKeys has ${spec.nullSafeKeys.length} entries for ${spec.leftKeys.length} key pairs`);
    }
    if (what !== 'Join' && spec.nullSafeKeys.some((n) => n)) throw new PlanError(`${what}: IS NOT DISTINCT FROM keys are supported by regular joins only`);
  }
  spec.leftKeys.forEach((l, i) => {
    const r = spec.rightKeys[i] as string;
    const lt = requireField(spec.leftSchema, l, `${what} left key`).type;
    const rt = requireField(spec.rightSchema, r, `${what} right key`).type;
    const problem = keyTypeProblem(lt, rt);
    if (problem) throw new PlanError(`${what}: key ${l} = ${r} ${problem}`);
  });
}

/**
 * Why two key columns cannot be join keys, if they cannot: the state key and the exchange's
 * partition key are the canonical encoding of the key values, so both sides must encode equal
 * values alike — numbers with numbers, strings with strings, DECIMALs of one scale (their values
 * are unscaled integers).
 */
export function keyTypeProblem(a: LogicalType, b: LogicalType): string | undefined {
  const numeric = (t: LogicalType): boolean => t.root === 'INT' || t.root === 'BIGINT' || t.root === 'SMALLINT' || t.root === 'TINYINT' || t.root === 'DOUBLE' || t.root === 'FLOAT';
  if (a.root === 'DECIMAL' || b.root === 'DECIMAL') {
    if (a.root === b.root && (a.scale ?? 0) === (b.scale ?? 0)) return undefined;
    return `compares ${typeText(a)} with ${typeText(b)}: cast both to one DECIMAL type first`;
  }
  if (a.root === b.root || (numeric(a) && numeric(b))) return undefined;
  return `compares ${typeText(a)} with ${typeText(b)}, which are not comparable`;
}

function typeText(t: LogicalType): string {
  return t.root === 'DECIMAL' ? `DECIMAL(${t.precision ?? 10}, ${t.scale ?? 0})` : t.root;
}

/**
 * Builds joined rows from a left and a right row (or one of them and nulls), with the column
 * names of {@link joinedFieldNames}. One instance per operator; rows are fresh objects.
 */
export class RowJoiner {
  private readonly leftFields: readonly string[];
  private readonly rightFields: readonly string[];
  private readonly rightOut: readonly string[];

  constructor(left: Schema, right: Schema) {
    const names = joinedFieldNames(left, right);
    this.leftFields = names.left;
    this.rightFields = right.fields.map((f) => f.name);
    this.rightOut = names.right;
  }

  /** The joined row of `left` and `right`. */
  join(left: Row, right: Row): Row {
    const out: Record<string, Value> = {};
    const lf = this.leftFields;
    for (let i = 0; i < lf.length; i++) {
      const name = lf[i] as string;
      out[name] = left[name] ?? null;
    }
    const rf = this.rightFields;
    const ro = this.rightOut;
    for (let i = 0; i < rf.length; i++) out[ro[i] as string] = right[rf[i] as string] ?? null;
    return out;
  }

  /** `left` with the right columns null (an unmatched left row of a LEFT / FULL join). */
  padRight(left: Row): Row {
    const out: Record<string, Value> = {};
    for (const name of this.leftFields) out[name] = left[name] ?? null;
    for (const name of this.rightOut) out[name] = null;
    return out;
  }

  /** `right` with the left columns null (an unmatched right row of a RIGHT / FULL join). */
  padLeft(right: Row): Row {
    const out: Record<string, Value> = {};
    for (const name of this.leftFields) out[name] = null;
    const rf = this.rightFields;
    const ro = this.rightOut;
    for (let i = 0; i < rf.length; i++) out[ro[i] as string] = right[rf[i] as string] ?? null;
    return out;
  }
}

/**
 * Reads a row's join key: the canonical key encoding of its key columns (the state key, and the
 * partition key the exchange in front of the join hashed), and whether any key value is NULL —
 * such a row matches nothing, as `=` is never TRUE with a NULL (Flink's filterNullKeys). A NULL
 * in an `IS NOT DISTINCT FROM` key column (`nullSafe`) is a value like any other: the encoding
 * of NULL is canonical, so NULL keys meet NULL keys.
 */
export class JoinKeyReader {
  private readonly values: Value[];

  constructor(
    private readonly columns: readonly string[],
    private readonly nullSafe: readonly boolean[] = [],
  ) {
    this.values = new Array<Value>(columns.length).fill(null);
  }

  /** Fills the key values of `row`; returns false when one of them is NULL where NULL matches nothing. */
  read(row: Row): boolean {
    let complete = true;
    for (let i = 0; i < this.columns.length; i++) {
      const v = row[this.columns[i] as string] ?? null;
      if (v === null && this.nullSafe[i] !== true) complete = false;
      this.values[i] = v;
    }
    return complete;
  }

  /** The values read by the last {@link read}. */
  get current(): readonly Value[] {
    return this.values;
  }
}
