/**
 * Job-graph operators of the window nodes, and the late sinks they feed. Kept apart from
 * job-graph.ts so the window options (trigger, lateness, time domain, late sink) stay in one
 * place.
 */
import type { Schema } from '../core/types.ts';
import { DEFAULT_LATE_OUTPUT_TAG } from '../operators/window/window-spec.ts';
import type { JobOperator, JobSideOutput, JobSink } from './job-graph.ts';
import type { LogicalNode, WindowTiming } from './logical.ts';
import { windowEmitsUpdates } from './window-planning.ts';

type WindowNode = Extract<LogicalNode, { type: 'WindowAggregate' | 'WindowProcess' | 'WindowTableFunction' | 'WindowRank' | 'WindowDeduplicate' }>;

/** What every job operator carries besides its type and spec. */
interface OperatorCommon {
  readonly id: string;
  readonly inputSchema: Schema;
  readonly outputSchema: Schema;
  readonly description: string;
}

/** The timing fields of a window operator spec; absent options stay absent (defaults apply). */
function timingOf(node: WindowTiming): { timeDomain?: 'event' | 'processing'; trigger?: WindowTiming['trigger']; allowedLatenessMs?: number } {
  return {
    ...(node.timeDomain !== undefined ? { timeDomain: node.timeDomain } : {}),
    ...(node.trigger !== undefined ? { trigger: node.trigger } : {}),
    ...(node.allowedLatenessMs !== undefined ? { allowedLatenessMs: node.allowedLatenessMs } : {}),
  };
}

/**
 * The job operator of a window node. `generateUpdateBefore` applies to a window aggregate that
 * emits updates and feeds a consumer needing `-U` rows; a window process function always emits
 * them, since its rows have no key a sink could upsert by.
 */
export function windowOperator(node: WindowNode, common: OperatorCommon, needsUpdateBefore: boolean): JobOperator {
  switch (node.type) {
    case 'WindowAggregate':
      return {
        ...common,
        type: 'WindowAggregate',
        spec: {
          window: node.window,
          ...timingOf(node),
          groupBy: node.groupBy,
          aggCalls: node.aggCalls,
          generateUpdateBefore: needsUpdateBefore && windowEmitsUpdates(node),
        },
      };
    case 'WindowProcess':
      return {
        ...common,
        type: 'WindowProcess',
        spec: {
          window: node.window,
          ...timingOf(node),
          groupBy: node.groupBy,
          outputSchema: node.schema,
          generateUpdateBefore: true,
          ref: node.ref,
          display: node.display,
        },
      };
    case 'WindowTableFunction': {
      // SESSION windows merge: their table function buffers rows until the session closes.
      if (node.window.type === 'SESSION') {
        return { ...common, type: 'UnalignedWindowTableFunction', spec: { window: node.window, ...(node.timeDomain !== undefined ? { timeDomain: node.timeDomain } : {}) } };
      }
      return { ...common, type: 'WindowTableFunction', spec: { window: node.window, ...(node.timeDomain !== undefined ? { timeDomain: node.timeDomain } : {}) } };
    }
    case 'WindowRank':
      return {
        ...common,
        type: 'WindowRank',
        spec: {
          rankType: node.rankType,
          partitionBy: node.partitionBy,
          orderBy: node.orderBy,
          rankRange: node.rankRange,
          ...(node.rankNumberColumn !== undefined ? { rankNumberColumn: node.rankNumberColumn } : {}),
          windowStartColumn: node.windowStartColumn,
          windowEndColumn: node.windowEndColumn,
          ...(node.window?.timeZone !== undefined ? { timeZone: node.window.timeZone } : {}),
          ...(node.timeDomain !== undefined ? { timeDomain: node.timeDomain } : {}),
        },
      };
    case 'WindowDeduplicate':
      return {
        ...common,
        type: 'WindowDeduplicate',
        spec: {
          partitionBy: node.partitionBy,
          keep: node.keep,
          orderColumn: node.orderColumn,
          windowStartColumn: node.windowStartColumn,
          windowEndColumn: node.windowEndColumn,
          ...(node.window?.timeZone !== undefined ? { timeZone: node.window.timeZone } : {}),
        },
      };
  }
}

/**
 * The late sinks declared on a stage's nodes: one job sink each (the late rows are the
 * operator's input rows, unchanged and insert-only) and the side-output route to it.
 */
export function lateSinksOf(nodes: readonly LogicalNode[]): { sink: JobSink; side: JobSideOutput }[] {
  const out: { sink: JobSink; side: JobSideOutput }[] = [];
  for (const node of nodes) {
    if (!('lateSink' in node) || node.lateSink === undefined || !('input' in node)) continue;
    out.push({
      sink: { name: node.lateSink.name, schema: node.input.schema, connector: node.lateSink.connector, changelogMode: ['+I'] },
      side: { operatorId: `${node.type}_${node.id}`, tag: DEFAULT_LATE_OUTPUT_TAG, sink: node.lateSink.name },
    });
  }
  return out;
}
