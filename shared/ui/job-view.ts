/**
 * The job graph as the job page draws it: nodes (sources, operators, sinks), grouped by stage,
 * and the edges between them — forward edges inside a stage's chain, exchanges between stages
 * (with their distribution), edges into sinks, and side outputs (late rows) into their sinks.
 * Every edge says where its rows can be tapped.
 */
import type { Schema } from '../core/types.ts';
import type { JobGraph, JobStage } from '../plan/job-graph.ts';
import { formatDistribution } from '../plan/planner.ts';

/** A node of the diagram. */
export interface ViewNode {
  /** `source:bid`, `op:Calc_2`, `sink:q5`. */
  readonly id: string;
  readonly kind: 'source' | 'operator' | 'sink';
  /** The operator type as Flink names it (`WindowAggregate`), or the source / sink name. */
  readonly name: string;
  /** Flink's explain line of the operator, or the connector of a source / sink. */
  readonly detail: string;
  /** The stage an operator runs in (sources and sinks stand outside the stages). */
  readonly stage?: string;
  /** The operator id (`WindowAggregate_3`), for operators. */
  readonly operatorId?: string;
  /** Shards: the stage's parallelism for operators, the source's for sources. */
  readonly parallelism?: number;
}

/** Where an edge's rows can be seen. */
export type TapPoint =
  /** What the operator emits. */
  | { readonly kind: 'output'; readonly operatorId: string }
  /** What the operator receives (a source's rows, as its stage's first operator reads them). */
  | { readonly kind: 'input'; readonly operatorId: string }
  /** What the sink receives. */
  | { readonly kind: 'sink'; readonly sink: string };

/** An edge of the diagram. */
export interface ViewEdge {
  /** `source:bid->op:Calc_2`. */
  readonly id: string;
  readonly from: string;
  readonly to: string;
  /** `forward` inside a stage, `exchange` between stages, `sink` into a sink, `side` for a side output. */
  readonly kind: 'forward' | 'exchange' | 'sink' | 'side';
  /** The exchange's distribution (`hash[auction]`, `single`, `broadcast`) or the side output's tag. */
  readonly label?: string;
  /** The schema of the rows on the edge. */
  readonly schema: Schema;
  readonly tap: TapPoint;
}

/** A stage box of the diagram. */
export interface ViewStage {
  readonly id: string;
  readonly parallelism: number;
  /** Operator node ids, in chain order. */
  readonly nodes: readonly string[];
}

/** The whole diagram. */
export interface JobView {
  readonly nodes: readonly ViewNode[];
  readonly edges: readonly ViewEdge[];
  readonly stages: readonly ViewStage[];
}

/** Node id of a source, operator or sink. */
export const nodeId = {
  source: (name: string): string => `source:${name}`,
  operator: (id: string): string => `op:${id}`,
  sink: (name: string): string => `sink:${name}`,
};

/** Builds the diagram of a job graph. */
export function jobView(graph: JobGraph): JobView {
  const nodes: ViewNode[] = [];
  const edges: ViewEdge[] = [];
  const edge = (from: string, to: string, kind: ViewEdge['kind'], schema: Schema, tap: TapPoint, label?: string): void => {
    edges.push({ id: `${from}->${to}`, from, to, kind, schema, tap, ...(label !== undefined ? { label } : {}) });
  };
  for (const source of graph.sources) {
    const c = source.connector;
    const detail = c.type === 'generator' ? `generator ${c.display}` : c.type === 'kinesis' ? `kinesis ${c.streamName ?? c.streamArn ?? ''}`.trim() : 'jsonl';
    const wm = source.watermark;
    nodes.push({
      id: nodeId.source(source.name),
      kind: 'source',
      name: source.name,
      detail: `${detail}${wm ? `, watermark ${wm.column} - ${wm.outOfOrdernessMs} ms${wm.idleTimeoutMs !== undefined ? `, idle after ${wm.idleTimeoutMs} ms` : ''}` : ', no watermark'}`,
      parallelism: source.parallelism,
    });
  }
  for (const sink of graph.sinks) {
    nodes.push({ id: nodeId.sink(sink.name), kind: 'sink', name: sink.name, detail: `${sink.connector.type}${sink.upsertKey ? `, upsert key [${sink.upsertKey.join(', ')}]` : ''}, ${sink.changelogMode.join(' ')}` });
  }
  const stages: ViewStage[] = [];
  // Where each stage's output leaves from, and where it enters: an operator, or for a stage
  // without operators the node that feeds it.
  const exitOf = new Map<string, { node: string; tap: TapPoint | undefined }>();
  for (const stage of graph.stages) {
    const ids = stage.operators.map((op) => nodeId.operator(op.id));
    stages.push({ id: stage.id, parallelism: stage.parallelism, nodes: ids });
    for (const op of stage.operators) {
      nodes.push({ id: nodeId.operator(op.id), kind: 'operator', name: op.type, detail: op.description, stage: stage.id, operatorId: op.id, parallelism: stage.parallelism });
    }
    const first = stage.operators[0];
    let entry: { node: string; tap: TapPoint | undefined };
    if (stage.input.type === 'source') {
      entry = { node: nodeId.source(stage.input.source), tap: undefined };
      if (first) edge(entry.node, nodeId.operator(first.id), 'forward', stage.inputSchema, { kind: 'input', operatorId: first.id });
    } else {
      // One exchange in, or two into a join (each side with its own schema and distribution).
      const feeds =
        stage.input.type === 'twoInput'
          ? [stage.input.left, stage.input.right]
          : [{ fromStage: stage.input.fromStage, distribution: stage.input.distribution, schema: stage.inputSchema }];
      let firstEntry: { node: string; tap: TapPoint | undefined } | undefined;
      for (const feed of feeds) {
        const upstream = exitOf.get(feed.fromStage);
        if (upstream === undefined) throw new Error(`internal: stage ${stage.id} reads ${feed.fromStage}, which comes later`);
        firstEntry ??= upstream;
        if (first) {
          const tap: TapPoint = upstream.tap ?? { kind: 'input', operatorId: first.id };
          edge(upstream.node, nodeId.operator(first.id), 'exchange', feed.schema, tap, formatDistribution(feed.distribution));
        }
      }
      entry = firstEntry as { node: string; tap: TapPoint | undefined };
    }
    for (let i = 1; i < stage.operators.length; i++) {
      const prev = stage.operators[i - 1] as JobStage['operators'][number];
      const op = stage.operators[i] as JobStage['operators'][number];
      edge(nodeId.operator(prev.id), nodeId.operator(op.id), 'forward', op.inputSchema, { kind: 'output', operatorId: prev.id });
    }
    const last = stage.operators[stage.operators.length - 1];
    const exit = last ? { node: nodeId.operator(last.id), tap: { kind: 'output', operatorId: last.id } as TapPoint } : entry;
    exitOf.set(stage.id, exit);
    if (stage.output.type === 'sink') {
      const sink = graph.sinks.find((s) => s.name === (stage.output as { sink: string }).sink);
      if (sink) edge(exit.node, nodeId.sink(sink.name), 'sink', sink.schema, { kind: 'sink', sink: sink.name });
    }
    for (const side of stage.sideOutputs ?? []) {
      const sink = graph.sinks.find((s) => s.name === side.sink);
      if (sink) edge(nodeId.operator(side.operatorId), nodeId.sink(sink.name), 'side', sink.schema, { kind: 'sink', sink: sink.name }, side.tag);
    }
  }
  return { nodes, edges, stages };
}
