/**
 * The orders a stream can be put in, as Flink's streaming planner allows them: by a time
 * attribute (Flink's TemporalSort, `ORDER BY rowtime [, …]` without LIMIT) and the first rows to
 * arrive (Flink's Limit, `LIMIT n [OFFSET m]` without ORDER BY). `ORDER BY … LIMIT` is a Top-N
 * (`Stream.rank`).
 */
import { PlanError } from '../core/errors.ts';
import type { SortField } from '../plan/logical.ts';
import { checkTemporalSort } from '../operators/sort/temporal-sort.ts';
import { parseOrder, type OrderSpec } from './rank-options.ts';
import type { Stream } from './stream.ts';
import { lateSinkSpec, type LateSinkOption } from './windowed-stream.ts';

/** Options of {@link Stream.sortByTime}. */
export interface SortByTimeOptions<T> {
  /**
   * Event time: the rowtime column ascending, then any other keys (`['ts', 'id DESC']`).
   * Processing time: the keys that order the rows arriving in the same millisecond (may be empty).
   */
  readonly orderBy: readonly OrderSpec<T>[];
  /** @default 'event' */
  readonly timeDomain?: 'event' | 'processing';
  /** Processing time: the name EXPLAIN shows for the arrival time. @default 'PROCTIME()' */
  readonly timeAttribute?: string;
  /** Sink receiving the rows too late to be sorted (event time); else they are counted and dropped. */
  readonly lateSink?: LateSinkOption;
}

/** Flink's words for an ORDER BY without LIMIT that does not start with a time attribute ascending. */
export const NON_TIME_SORT_MESSAGE = 'Sort on a non-time-attribute field is not supported';

/**
 * A TemporalSort node over `input`; see {@link Stream.sortByTime}.
 *
 * @throws PlanError for an unknown column; in event time an `orderBy` that does not start with
 *   the rowtime column ascending (Flink's "Sort on a non-time-attribute field is not
 *   supported"); a late sink in processing time.
 */
export function sortByTime<T>(input: Stream<T>, options: SortByTimeOptions<T>): Stream<T> {
  const timeDomain = options.timeDomain ?? 'event';
  const keys: SortField[] = options.orderBy.map((o) => parseOrder(o as OrderSpec<Record<string, unknown>>, input.schema));
  let timeColumn: string;
  let orderBy: SortField[];
  if (timeDomain === 'event') {
    const first = keys[0];
    const field = input.schema.fields.find((f) => f.name === first?.column);
    if (first === undefined || field?.timeAttribute !== 'rowtime' || first.direction !== 'ASC') {
      throw new PlanError(`${NON_TIME_SORT_MESSAGE}: sortByTime orders by the rowtime column ascending first${first ? ` (given ${first.column} ${first.direction})` : ''}`);
    }
    timeColumn = first.column;
    orderBy = keys.slice(1);
  } else if (timeDomain === 'processing') {
    if (options.lateSink !== undefined) throw new PlanError('sortByTime: a lateSink needs event time; a processing-time sort has no late rows');
    timeColumn = options.timeAttribute ?? 'PROCTIME()';
    orderBy = keys;
  } else {
    throw new PlanError(`sortByTime timeDomain must be 'event' or 'processing' (given ${JSON.stringify(timeDomain)})`);
  }
  const spec = { timeDomain, timeColumn, orderBy } as const;
  checkTemporalSort(spec, input.schema);
  const lateSink = lateSinkSpec(input.pipeline, options.lateSink);
  return input.derive<T>({
    type: 'TemporalSort',
    id: input.pipeline.nextId(),
    input: input.node,
    ...spec,
    ...(lateSink ? { lateSink } : {}),
    schema: input.schema,
  });
}

/**
 * A Limit over `input` (a ROW_NUMBER rank of the whole stream without sort keys, as Flink's
 * StreamExecLimit); see {@link Stream.limit}.
 *
 * @throws PlanError for a fetch that is not a positive integer or an offset that is not a
 *   non-negative integer.
 */
export function limit<T>(input: Stream<T>, fetch: number, offset = 0): Stream<T> {
  if (!Number.isSafeInteger(fetch) || fetch < 1) throw new PlanError(`limit: fetch must be a positive integer (given ${fetch})`);
  if (!Number.isSafeInteger(offset) || offset < 0) throw new PlanError(`limit: offset must be a non-negative integer (given ${offset})`);
  return input.derive<T>({
    type: 'Rank',
    id: input.pipeline.nextId(),
    input: input.node,
    rankType: 'ROW_NUMBER',
    partitionBy: [],
    orderBy: [],
    rankRange: { type: 'constant', start: offset + 1, end: offset + fetch },
    schema: input.schema,
  });
}
