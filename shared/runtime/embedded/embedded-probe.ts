/**
 * The embedded runtime's {@link JobProbe}: reads its stage tasks (runners, input watermarks,
 * output watermark) without changing them. State sizes come from each runner's memory store;
 * bytes are the size of the state's JSON form, measured only when asked for and only up to
 * {@link EXACT_BYTES_MAX_ENTRIES} entries (beyond that, scaled from the last measurement).
 */
import type { JobGraph, JobStage } from '../../plan/job-graph.ts';
import type { JobProbe, ShardInput, ShardProbe, StageProbe, StateSize } from '../job-probe.ts';
import type { OperatorRunner } from '../operator-runner.ts';
import type { InputWatermarks } from '../watermarks.ts';

/** What the probe reads of one embedded stage task. */
export interface EmbeddedTaskView {
  readonly shard: number;
  readonly runners: readonly OperatorRunner[];
  readonly inputs: InputWatermarks;
  readonly outputWatermark: number;
}

/** What the probe reads of one embedded stage. */
export interface EmbeddedStageView {
  readonly spec: JobStage;
  readonly tasks: readonly EmbeddedTaskView[];
}

/** States with more entries are not serialized to measure them; their bytes are scaled instead. */
export const EXACT_BYTES_MAX_ENTRIES = 20_000;

/** Builds the probe of an embedded job. */
export function embeddedProbe(graph: JobGraph, stages: readonly EmbeddedStageView[]): JobProbe {
  return {
    runtime: 'embedded',
    stages: stages.map((stage): StageProbe => {
      const shards = stage.tasks.map((task) => shardProbe(graph, stage.spec, task));
      return { stageId: stage.spec.id, shards: () => shards };
    }),
  };
}

function shardProbe(graph: JobGraph, spec: JobStage, task: EmbeddedTaskView): ShardProbe {
  const input = spec.input;
  const delay = input.type === 'source' ? graph.sources.find((s) => s.name === input.source)?.watermark?.outOfOrdernessMs : undefined;
  // Bytes per entry of the last exact measurement, per runner, to scale large states by.
  const bytesPerEntry: (number | undefined)[] = task.runners.map(() => undefined);
  return {
    shard: task.shard,
    label: String(task.shard),
    runners: task.runners,
    input: (): ShardInput => {
      if (input.type === 'source') {
        // The source shard's watermark is max event time − delay (watermarks.ts), so the
        // largest event time seen is the watermark plus the delay.
        const wm = task.outputWatermark;
        return { kind: 'source', maxEventTime: Number.isFinite(wm) && delay !== undefined ? wm + delay : wm };
      }
      const states = task.inputs.channelStates();
      const idleTimeoutMs = task.inputs.idleTimeout;
      return {
        kind: 'exchange',
        watermark: task.inputs.current,
        expectedChannels: states.length,
        ...(idleTimeoutMs !== undefined ? { idleTimeoutMs } : {}),
        channels: states.map((c, i) => ({ channel: String(i), ...c })),
      };
    },
    outputWatermark: () => task.outputWatermark,
    state: (withBytes): StateSize[] =>
      task.runners.map((runner, i) => {
        const store = runner.memoryState;
        const entries = store.stats().entries;
        if (!withBytes) return { entries, scope: 'all' };
        if (entries <= EXACT_BYTES_MAX_ENTRIES) {
          const bytes = jsonBytes(store.snapshot());
          bytesPerEntry[i] = entries > 0 ? bytes / entries : bytesPerEntry[i];
          return { entries, bytes, scope: 'all' };
        }
        const per = bytesPerEntry[i];
        return per === undefined ? { entries, scope: 'all' } : { entries, bytes: Math.round(per * entries), scope: 'all' };
      }),
  };
}

/** Length of a value's JSON form (bigints as their decimal digits). */
function jsonBytes(value: unknown): number {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)).length;
}
