/**
 * Explain lines of the window nodes, in the format of Flink's plans, e.g.
 *
 * ```
 * WindowAggregate(groupBy=[auction], window=[HOP(time_col=[date_time], size=[10 s], slide=[2 s])],
 *   select=[auction, COUNT(*) AS num, start('w$) AS window_start, end('w$) AS window_end, rowtime('w$) AS window_time])
 * WindowRank(window=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[10 s])], rankType=[RANK], …)
 * ```
 *
 * Options Flink has no plan attribute for (trigger, allowed lateness, late sink) follow the
 * window as `trigger=[…]`, `allowedLateness=[…]`, `lateSink=[…]`.
 */
import type { LogicalNode, WindowSpec, WindowTiming } from './logical.ts';
import { formatAggCall, formatRankRange, formatSortField } from './explain-format.ts';

type WindowNode = Extract<LogicalNode, { type: 'WindowAggregate' | 'WindowProcess' | 'WindowTableFunction' | 'WindowRank' | 'WindowDeduplicate' }>;

const UNITS: readonly [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['min', 60_000],
  ['s', 1000],
];

/** A duration in the largest unit that divides it, as Flink's `TimeUtils.formatWithHighestUnit`: `10 s`, `2 min`, `150 ms`. */
export function formatDuration(ms: number): string {
  for (const [unit, size] of UNITS) if (ms !== 0 && ms % size === 0) return `${ms / size} ${unit}`;
  return `${ms} ms`;
}

/** The window's sizes: `size=[10 s], slide=[2 s]`. */
function windowSizes(w: WindowSpec): string[] {
  const offset = 'offsetMs' in w && w.offsetMs !== undefined && w.offsetMs !== 0 ? [`offset=[${formatDuration(w.offsetMs)}]`] : [];
  switch (w.type) {
    case 'TUMBLE':
      return [`size=[${formatDuration(w.sizeMs)}]`, ...offset];
    case 'HOP':
      return [`size=[${formatDuration(w.sizeMs)}]`, `slide=[${formatDuration(w.slideMs)}]`, ...offset];
    case 'CUMULATE':
      return [`max_size=[${formatDuration(w.maxSizeMs)}]`, `step=[${formatDuration(w.stepMs)}]`, ...offset];
    case 'SESSION':
      return [`gap=[${formatDuration(w.gapMs)}]`, ...(w.partitionBy.length > 0 ? [`partition keys=[${w.partitionBy.join(', ')}]`] : [])];
  }
}

/** `HOP(time_col=[date_time], size=[10 s], slide=[2 s])`, as a window TVF or window aggregate shows its window. */
export function formatWindow(w: WindowSpec, timeDomain: 'event' | 'processing' = 'event'): string {
  const time = timeDomain === 'processing' ? `time_col=[PROCTIME(${w.timeColumn})]` : `time_col=[${w.timeColumn}]`;
  return `${w.type}(${[time, ...windowSizes(w)].join(', ')})`;
}

/** `TUMBLE(win_start=[window_start], win_end=[window_end], size=[10 s])`, as operators over windowed rows show it. */
export function formatAttachedWindow(w: WindowSpec | undefined, start: string, end: string): string {
  const columns = [`win_start=[${start}]`, `win_end=[${end}]`];
  return w === undefined ? `WINDOW(${columns.join(', ')})` : `${w.type}(${[...columns, ...windowSizes(w)].join(', ')})`;
}

function timingAttrs(t: WindowTiming): string[] {
  const out: string[] = [];
  const trigger = t.trigger;
  if (trigger) {
    const parts: string[] = [];
    if (trigger.earlyFireIntervalMs !== undefined) parts.push(`early delay ${formatDuration(trigger.earlyFireIntervalMs)}`);
    if (trigger.lateFireIntervalMs !== undefined) parts.push(`late delay ${formatDuration(trigger.lateFireIntervalMs)}`);
    if (trigger.count !== undefined) parts.push(`count ${trigger.count}`);
    if (trigger.purge === true) parts.push('purge');
    if (parts.length > 0) out.push(`trigger=[${parts.join(', ')}]`);
  }
  if ((t.allowedLatenessMs ?? 0) > 0) out.push(`allowedLateness=[${formatDuration(t.allowedLatenessMs as number)}]`);
  if (t.lateSink) out.push(`lateSink=[${t.lateSink.name}]`);
  return out;
}

/** The explain line of a window node. */
export function describeWindowNode(node: WindowNode): string {
  const list = (names: readonly string[]): string => `[${names.join(', ')}]`;
  const domain = 'timeDomain' in node ? node.timeDomain : undefined;
  const windowProps = [`start('w$) AS window_start`, `end('w$) AS window_end`, `${domain === 'processing' ? 'proctime' : 'rowtime'}('w$) AS window_time`];
  switch (node.type) {
    case 'WindowAggregate':
      return `WindowAggregate(${[
        ...(node.groupBy.length > 0 ? [`groupBy=${list(node.groupBy)}`] : []),
        `window=[${formatWindow(node.window, domain)}]`,
        ...timingAttrs(node),
        `select=${list([...node.groupBy, ...node.aggCalls.map(formatAggCall), ...windowProps])}`,
      ].join(', ')})`;
    case 'WindowProcess':
      return `WindowProcess(${[
        ...(node.groupBy.length > 0 ? [`groupBy=${list(node.groupBy)}`] : []),
        `window=[${formatWindow(node.window, domain)}]`,
        ...timingAttrs(node),
        `function=[${node.display}]`,
        `select=${list(node.schema.fields.map((f) => f.name))}`,
      ].join(', ')})`;
    case 'WindowTableFunction':
      return `WindowTableFunction(${[`window=[${formatWindow(node.window, domain)}]`, ...timingAttrs(node)].join(', ')})`;
    case 'WindowRank':
      return `WindowRank(${[
        `window=[${formatAttachedWindow(node.window, node.windowStartColumn, node.windowEndColumn)}]`,
        `rankType=[${node.rankType}]`,
        `rankRange=[${formatRankRange(node.rankRange)}]`,
        `partitionBy=${list(node.partitionBy)}`,
        `orderBy=${list(node.orderBy.map(formatSortField))}`,
        ...timingAttrs(node),
        `select=${list(node.schema.fields.map((f) => f.name))}`,
      ].join(', ')})`;
    case 'WindowDeduplicate':
      return `WindowDeduplicate(${[
        `window=[${formatAttachedWindow(node.window, node.windowStartColumn, node.windowEndColumn)}]`,
        `keep=[${node.keep === 'first' ? 'FirstRow' : 'LastRow'}]`,
        `partitionKeys=${list(node.partitionBy)}`,
        `orderKey=[${node.orderColumn}]`,
        'order=[ROWTIME]',
        ...timingAttrs(node),
      ].join(', ')})`;
  }
}
