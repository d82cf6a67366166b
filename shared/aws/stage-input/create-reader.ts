/**
 * Builds the input reader of one shard of a job-graph stage: a source reader for a stage that
 * reads a source, an exchange reader for one that reads the previous stage's exchange.
 */
import { PlanError } from '../../core/errors.ts';
import type { JobGraph, JobStage } from '../../plan/job-graph.ts';
import { ExchangeInputReader } from './exchange-reader.ts';
import type { InputReaderOptions } from './input-reader.ts';
import { SourceInputReader } from './source-reader.ts';
import type { StageInputReader } from './types.ts';

/** Options of {@link createStageInputReader}: the shard, limits and overrides. */
export interface CreateStageInputReaderOptions extends Omit<InputReaderOptions, 'stage'> {
  /**
   * Exchange stages: the idleness timeout of input channels.
   * @default - the smallest `idleTimeoutMs` any source of the job declares, as the embedded
   *   runtime applies to its exchanges (none when no source declares one)
   */
  readonly idleTimeoutMs?: number;
}

/**
 * The reader for shard `options.shardId` of `stage`.
 *
 * @throws PlanError when the stage's source or upstream stage is not in the graph.
 */
export function createStageInputReader(graph: JobGraph, stage: JobStage, options: CreateStageInputReaderOptions): StageInputReader {
  const input = stage.input;
  const common: InputReaderOptions = {
    stage: stage.id,
    shardId: options.shardId,
    ...(options.maxRecordBytes === undefined ? {} : { maxRecordBytes: options.maxRecordBytes }),
    ...(options.maxDeadLetterDataBytes === undefined ? {} : { maxDeadLetterDataBytes: options.maxDeadLetterDataBytes }),
  };
  if (input.type === 'source') {
    const source = graph.sources.find((s) => s.name === input.source);
    if (source === undefined) throw new PlanError(`stage ${stage.id} reads unknown source '${input.source}'`);
    const format = source.connector.type === 'generator' ? undefined : source.connector.format;
    return new SourceInputReader({ ...common, schema: source.schema, ...(source.watermark ? { watermark: source.watermark } : {}), ...(format ? { format } : {}) });
  }
  const idleTimeoutMs = options.idleTimeoutMs ?? smallestSourceIdleTimeout(graph);
  const upstreamOf = (fromStage: string): JobStage => {
    const upstream = graph.stages.find((s) => s.id === fromStage);
    if (upstream === undefined) throw new PlanError(`stage ${stage.id} reads the exchange of unknown stage '${fromStage}'`);
    return upstream;
  };
  if (input.type === 'twoInput') {
    // A join: both producers write into this stage's stream; rows are tagged by their producer.
    const left = upstreamOf(input.left.fromStage);
    const right = upstreamOf(input.right.fromStage);
    return new ExchangeInputReader({
      ...common,
      schema: input.left.schema,
      upstreamStage: left.id,
      upstreamShards: left.parallelism,
      rightUpstream: { stage: right.id, shards: right.parallelism, schema: input.right.schema },
      ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
    });
  }
  const upstream = upstreamOf(input.fromStage);
  return new ExchangeInputReader({
    ...common,
    schema: stage.inputSchema,
    upstreamStage: upstream.id,
    upstreamShards: upstream.parallelism,
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
  });
}

/** The smallest idle timeout any source declares (embedded-runtime.ts, `sourceIdleTimeout`). */
function smallestSourceIdleTimeout(graph: JobGraph): number | undefined {
  const timeouts = graph.sources.map((s) => s.watermark?.idleTimeoutMs).filter((t): t is number => t !== undefined);
  return timeouts.length > 0 ? Math.min(...timeouts) : undefined;
}
