/**
 * Planning rules of the window nodes: their changelog modes and upsert keys, and the checks on
 * their inputs.
 *
 * Window results are final, insert-only rows (Flink's window-TVF semantics) unless the window
 * can fire more than once for the same window — allowed lateness, early firing or a count
 * trigger — in which case a window aggregate emits updates keyed by its group key plus
 * `window_start, window_end` (retract, or upsert when no consumer needs `-U`).
 */
import { PlanError } from '../core/errors.ts';
import type { LogicalNode, WindowAggregateNode, WindowTiming } from './logical.ts';
import { INSERT_ONLY, RETRACT } from './logical.ts';
import type { NodeTraits } from './logical.ts';

/** The window columns every windowing node appends. */
export const WINDOW_START_COLUMN = 'window_start';
/** See {@link WINDOW_START_COLUMN}. */
export const WINDOW_END_COLUMN = 'window_end';

/** Window nodes handled here. */
type WindowNode = Extract<LogicalNode, { type: 'WindowAggregate' | 'WindowProcess' | 'WindowTableFunction' | 'WindowRank' | 'WindowDeduplicate' }>;

/**
 * Whether a window operator may fire a window more than once without purging, so that later
 * firings update (retract) earlier results.
 */
export function windowEmitsUpdates(timing: WindowTiming): boolean {
  const trigger = timing.trigger;
  if (trigger?.purge === true) return false; // every firing is an insert of a delta
  return (timing.allowedLatenessMs ?? 0) > 0 || trigger?.earlyFireIntervalMs !== undefined || trigger?.count !== undefined;
}

/** Changelog mode, upsert keys and distribution of a window node's output. */
export function windowTraits(node: WindowNode, input: NodeTraits): NodeTraits {
  switch (node.type) {
    case 'WindowAggregate':
      return aggregateTraits(node);
    case 'WindowProcess':
      return { changelogMode: windowEmitsUpdates(node) ? RETRACT : INSERT_ONLY, upsertKeys: [], distribution: undefined };
    case 'WindowTableFunction':
      // Row-preserving: the input's distribution still holds. A SESSION table function passes
      // every row on with its kind (Flink's operator does not compact changelogs).
      return { changelogMode: node.window.type === 'SESSION' ? input.changelogMode : INSERT_ONLY, upsertKeys: [], distribution: input.distribution };
    case 'WindowRank': {
      const window = [...node.partitionBy, node.windowStartColumn, node.windowEndColumn];
      const keys: (readonly string[])[] = [];
      if (node.rankNumberColumn !== undefined && node.rankType === 'ROW_NUMBER') keys.push([...window, node.rankNumberColumn]);
      if (node.rankType === 'ROW_NUMBER' && node.rankRange.type === 'constant' && node.rankRange.end === 1) keys.push(window);
      return { changelogMode: INSERT_ONLY, upsertKeys: keys, distribution: undefined };
    }
    case 'WindowDeduplicate':
      return {
        changelogMode: INSERT_ONLY,
        upsertKeys: [[...node.partitionBy, node.windowStartColumn, node.windowEndColumn]],
        distribution: undefined,
      };
  }
}

function aggregateTraits(node: WindowAggregateNode): NodeTraits {
  const key = [...node.groupBy, WINDOW_START_COLUMN, WINDOW_END_COLUMN];
  return { changelogMode: windowEmitsUpdates(node) ? RETRACT : INSERT_ONLY, upsertKeys: [key], distribution: undefined };
}

/**
 * Window table functions (but SESSION's), window Top-N and window deduplication take
 * insert-only input (their results are final when the window ends, so an update after that could
 * not be applied).
 *
 * @throws PlanError naming the node and the input that emits updates.
 */
export function checkWindowInput(node: LogicalNode, inputTraits: NodeTraits | undefined): void {
  if (node.type !== 'WindowTableFunction' && node.type !== 'WindowRank' && node.type !== 'WindowDeduplicate') return;
  // The SESSION table function takes a changelog as it is: each row leaves with its kind.
  if (node.type === 'WindowTableFunction' && node.window.type === 'SESSION') return;
  const mode = inputTraits?.changelogMode ?? INSERT_ONLY;
  if (mode.length === 1 && mode[0] === '+I') return;
  const hint =
    node.type === 'WindowTableFunction'
      ? 'window an insert-only stream (a source, or a window aggregate without lateness and early firing)'
      : 'the window aggregate before it must not use allowedLateness, early firing or a count trigger (they emit updates); use rank() for an updating input';
  throw new PlanError(`${node.type} #${node.id} needs an insert-only input, but its input emits updates [${mode.join(', ')}]: ${hint}`);
}

/**
 * What Flink does not run directly after a SESSION window table function, with the "Limitation"
 * section of its documentation page that says so (window-topn, window-deduplication, window-join).
 */
export const SESSION_NOT_SUPPORTED = {
  rank:
    'window Top-N directly after a SESSION window table function is not supported, as in Flink (window-topn "Limitation": TUMBLE, HOP and CUMULATE only); ' +
    'aggregate the sessions first (GROUP BY window_start, window_end), then rank the aggregate',
  deduplicate: 'window deduplication directly after a SESSION window table function is not supported, as in Flink (window-deduplication "Limitation": TUMBLE, HOP or CUMULATE only)',
  join: 'window join directly after a SESSION window table function is not supported, as in Flink (window-join "Limitation": TUMBLE, HOP or CUMULATE only)',
} as const;
