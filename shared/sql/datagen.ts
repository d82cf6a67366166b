/**
 * The `datagen` connector as a deterministic generator source: per column `fields.<c>.kind` =
 * `sequence` (from `start` to `end`) or `random` (with `min`/`max`, or `length` for strings);
 * TIMESTAMP and TIMESTAMP_LTZ columns are one second apart from 2026-01-01 (UTC), DATE columns one
 * day apart from that day and TIME columns one second apart from midnight. It ends after
 * `number-of-rows` rows or with its first sequence, and never without either (Flink's unbounded
 * datagen).
 *
 * Row `i` is a function of `i` alone (its random values come from a generator seeded with the
 * table's seed and `i`), so the generator starts at any row: a deployed producer resumes an
 * unbounded table where it stopped without generating the rows before.
 */
import type { GeneratorFunction } from '../api/pipeline.ts';
import { PlanError } from '../core/errors.ts';
import { fmix32 } from '../core/mix32.ts';
import { formatType } from '../core/type-parse.ts';
import type { Field, Row, Schema, Value } from '../core/types.ts';
import type { DatagenSpec } from './connectors.ts';

/** The first TIMESTAMP value; row `i` gets this plus `i` seconds. */
const TIMESTAMP_START = Date.UTC(2026, 0, 1);
const MS_PER_DAY = 86_400_000;

/** One column's value of row `index`, drawing from the row's random numbers in column order. */
type ColumnValue = (index: number, random: () => number) => Value;

/**
 * A generator function producing the rows of a datagen table (shard 0 gets every row), seekable.
 *
 * @throws PlanError for a column type datagen does not generate, or a sequence on a type that
 *   has no sequence.
 */
export function createDatagen(schema: Schema, spec: DatagenSpec): GeneratorFunction {
  const columns = schema.fields.map((f) => ({ name: f.name, value: columnValue(f, spec.fields.get(f.name)) }));
  const rows = spec.rows ?? Infinity;
  const datagen = function* datagen(context: { readonly shard: number; readonly from?: number }): Generator<Row> {
    if (context.shard !== 0) return;
    for (let i = context.from ?? 0; i < rows; i++) {
      const random = rowRandom(spec.seed, i);
      const row: Record<string, Value> = {};
      for (const c of columns) row[c.name] = c.value(i, random);
      yield row;
    }
  };
  return Object.assign(datagen, { seekable: true as const });
}

function columnValue(field: Field, options: ReadonlyMap<string, string> | undefined): ColumnValue {
  const num = (key: string, fallback: number): number => (options?.get(key) !== undefined ? Number(options.get(key)) : fallback);
  const sequence = options?.get('kind') === 'sequence';
  const type = field.type;
  if (sequence && !['TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'STRING'].includes(type.root)) {
    throw new PlanError(`datagen column '${field.name}' is ${formatType(type)}: a sequence is TINYINT, SMALLINT, INT, BIGINT or STRING`);
  }
  const start = num('start', 0);
  switch (type.root) {
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT': {
      if (sequence) return (i) => start + i;
      const min = num('min', 0);
      // The default range 0…1000, within the type (TINYINT stops at 127).
      const max = num('max', type.root === 'TINYINT' ? 127 : 1000);
      return (_i, random) => Math.floor(min + random() * (max - min + 1));
    }
    case 'DOUBLE':
    case 'FLOAT': {
      const min = num('min', 0);
      const max = num('max', 1000);
      const round = type.root === 'FLOAT' ? Math.fround : (n: number) => n;
      return (_i, random) => round(min + random() * (max - min));
    }
    case 'DECIMAL': {
      const digits = 10 ** Math.min(type.precision ?? 10, 15);
      return (_i, random) => BigInt(Math.floor(random() * digits));
    }
    case 'BOOLEAN':
      return (_i, random) => random() < 0.5;
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return (i) => TIMESTAMP_START + i * 1000;
    case 'DATE':
      // One day per row from 2026-01-01, as the timestamps advance one second per row.
      return (i) => Math.floor(TIMESTAMP_START / MS_PER_DAY) + i;
    case 'TIME':
      return (i) => (i * 1000) % MS_PER_DAY;
    case 'STRING': {
      if (sequence) return (i) => String(start + i);
      const length = num('length', Math.min(type.length ?? 10, 10));
      return (_i, random) => {
        let s = '';
        for (let k = 0; k < length; k++) s += String.fromCharCode(97 + Math.floor(random() * 26));
        return s;
      };
    }
    default:
      throw new PlanError(`datagen column '${field.name}' is ${formatType(type)}: datagen generates TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL, BOOLEAN, TIMESTAMP, TIMESTAMP_LTZ, DATE, TIME and STRING columns`);
  }
}

/** The random numbers of row `index`: xorshift32 seeded by mixing the table's seed with the index. */
function rowRandom(seed: number, index: number): () => number {
  let state = fmix32((seed >>> 0) ^ fmix32((index >>> 0) ^ fmix32(Math.floor(index / 4294967296))));
  if (state === 0) state = 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 4294967296;
  };
}

