/**
 * Window table functions: `TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), size[, offset]))`, `HOP(…, slide,
 * size[, offset])`, `CUMULATE(…, step, maxSize[, offset])` and `SESSION(TABLE t PARTITION BY k,
 * DESCRIPTOR(ts), gap)` → a WindowSpec, plus the windowed relation the query rules consume.
 */
import type { WindowSpec } from '../plan/logical.ts';
import { windowTableFunctionOutputSchema } from '../operators/window-rank/window-table-function.ts';
import type { Schema } from '../core/types.ts';
import { formatType } from '../core/type-parse.ts';
import type { SqlFrom } from './ast.ts';
import type { SqlExpr } from './ast.ts';
import { intervalMs } from './sql-literals.ts';
import { SqlError, atPosition } from './errors.ts';
import { resolveColumn, type Scope } from './expressions.ts';
import { sessionTimeZone } from './session-time-zone.ts';
import { UTC_ZONE_ID } from '../core/time-zone.ts';

/** Reads a window TVF call into a WindowSpec, checking the argument count and the columns. */
export function windowSpecOf(tvf: Extract<SqlFrom, { k: 'tvf' }>, input: Scope): WindowSpec {
  const spec = windowSpecAt(tvf, input);
  // Windows over an instant (a TIMESTAMP_LTZ rowtime, or a PROCTIME() attribute) align in the
  // session time zone, as Flink's do.
  const column = resolveColumn(input, [tvf.timeColumn.name], tvf.timeColumn.pos);
  const instant = column.proctime === true || input.schema.fields.find((f) => f.name === column.field)?.type.root === 'TIMESTAMP_LTZ';
  const zone = sessionTimeZone();
  return instant && zone !== UTC_ZONE_ID ? { ...spec, timeZone: zone } : spec;
}

function windowSpecAt(tvf: Extract<SqlFrom, { k: 'tvf' }>, input: Scope): WindowSpec {
  const time = resolveColumn(input, [tvf.timeColumn.name], tvf.timeColumn.pos);
  const timeColumn = time.field;
  // Flink windows only a time attribute: a column with a WATERMARK (passed on unchanged) or
  // PROCTIME(). A plain TIMESTAMP — one without a watermark, an expression over the rowtime, an
  // aggregate's MAX(rowtime) — is rejected, as SqlWindowTableFunction does in streaming mode.
  const field = input.schema.fields.find((f) => f.name === timeColumn);
  if (!time.proctime && field !== undefined && field.timeAttribute !== 'rowtime') {
    throw new SqlError(
      tvf.timeColumn.pos,
      `The window function ${tvf.fn} requires the timecol to be a time attribute, but '${time.name}' is ${formatType(field.type)} (declare a WATERMARK FOR it, or window a PROCTIME() column)`,
    );
  }
  const ms = tvf.args.map(intervalMs);
  const arity = (min: number, max: number, usage: string): void => {
    if (ms.length < min || ms.length > max) throw new SqlError(tvf.pos, `${tvf.fn} takes ${usage}`);
  };
  const offset = (i: number): { offsetMs?: number } => (ms[i] !== undefined ? { offsetMs: ms[i] as number } : {});
  // Only the offset (the last optional argument) may be negative: `INTERVAL '-1' MINUTE`.
  const sizes = tvf.fn === 'TUMBLE' ? 1 : tvf.fn === 'SESSION' ? 1 : 2;
  ms.slice(0, sizes).forEach((v, i) => {
    if (v <= 0) throw new SqlError((tvf.args[i] as SqlExpr).pos, `${tvf.fn}: a window size must be positive`);
  });
  switch (tvf.fn) {
    case 'TUMBLE':
      arity(1, 2, 'TABLE t, DESCRIPTOR(ts), size [, offset]');
      return { type: 'TUMBLE', timeColumn, sizeMs: ms[0] as number, ...offset(1) };
    case 'HOP':
      arity(2, 3, 'TABLE t, DESCRIPTOR(ts), slide, size [, offset]');
      return { type: 'HOP', timeColumn, slideMs: ms[0] as number, sizeMs: ms[1] as number, ...offset(2) };
    case 'CUMULATE':
      arity(2, 3, 'TABLE t, DESCRIPTOR(ts), step, max size [, offset]');
      return { type: 'CUMULATE', timeColumn, stepMs: ms[0] as number, maxSizeMs: ms[1] as number, ...offset(2) };
    case 'SESSION':
      arity(1, 1, 'TABLE t [PARTITION BY k], DESCRIPTOR(ts), gap');
      return { type: 'SESSION', timeColumn, gapMs: ms[0] as number, partitionBy: tvf.partitionBy.map((p) => resolveColumn(input, [p.name], p.pos).field) };
  }
}

/** The schema a window TVF gives its input (window_start, window_end, window_time appended). */
export function windowedSchema(tvf: Extract<SqlFrom, { k: 'tvf' }>, window: WindowSpec, input: Schema): Schema {
  return atPosition(tvf.pos, () => windowTableFunctionOutputSchema({ window }, input));
}
