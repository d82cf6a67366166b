/**
 * The `datagen` connector as a deterministic bounded generator source: `number-of-rows` rows,
 * per-column `fields.<c>.kind` = `sequence` (with `start`/`end`) or `random` (with `min`/`max`,
 * or `length` for strings).
 */
import type { GeneratorFunction } from '../api/pipeline.ts';
import type { Row, Schema, Value } from '../core/types.ts';
import type { DatagenSpec } from './connectors.ts';

/** A generator function producing the rows of a datagen table (shard 0 gets every row). */
export function createDatagen(schema: Schema, spec: DatagenSpec): GeneratorFunction {
  return function* datagen(context) {
    if (context.shard !== 0) return;
    let state = spec.seed >>> 0 || 1;
    const random = (): number => {
      state ^= state << 13;
      state >>>= 0;
      state ^= state >>> 17;
      state ^= state << 5;
      state >>>= 0;
      return state / 4294967296;
    };
    const start = Date.UTC(2026, 0, 1);
    for (let i = 0; i < spec.rows; i++) {
      const row: Record<string, Value> = {};
      for (const f of schema.fields) {
        const o = spec.fields.get(f.name);
        const num = (k: string, d: number): number => (o?.get(k) !== undefined ? Number(o.get(k)) : d);
        const sequence = o?.get('kind') === 'sequence';
        switch (f.type.root) {
          case 'INT':
          case 'BIGINT':
            row[f.name] = sequence ? num('start', 0) + i : Math.floor(num('min', 0) + random() * (num('max', 1000) - num('min', 0) + 1));
            break;
          case 'DOUBLE':
            row[f.name] = num('min', 0) + random() * (num('max', 1000) - num('min', 0));
            break;
          case 'DECIMAL':
            row[f.name] = BigInt(Math.floor(random() * 10 ** Math.min(f.type.precision ?? 10, 15)));
            break;
          case 'BOOLEAN':
            row[f.name] = random() < 0.5;
            break;
          case 'TIMESTAMP':
          case 'TIMESTAMP_LTZ':
            row[f.name] = start + i * 1000;
            break;
          case 'DATE':
            // One day per row from 2026-01-01, as the timestamps advance one second per row.
            row[f.name] = Math.floor(start / 86_400_000) + i;
            break;
          case 'TIME':
            row[f.name] = (i * 1000) % 86_400_000;
            break;
          case 'STRING': {
            const length = num('length', Math.min(f.type.length ?? 10, 10));
            let s = '';
            for (let k = 0; k < length; k++) s += String.fromCharCode(97 + Math.floor(random() * 26));
            row[f.name] = sequence ? String(num('start', 0) + i) : s;
            break;
          }
        }
      }
      yield row as Row;
    }
  };
}
