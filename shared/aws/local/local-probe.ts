/**
 * The {@link JobProbe} of a `flambda local` job: reads each stage handler's shard tasks (runners,
 * input reader state, chain watermark, state caches). Shards are named by their Kinesis shard
 * ids and appear with their first batch; exchange channels are named by the producing shard.
 */
import type { StageHandler } from '../handler/stage-handler.ts';
import type { JobProbe, ShardInput, ShardProbe, StageBilling, StageProbe } from '../../runtime/job-probe.ts';

/** Builds the probe over the handlers of a local job, by stage id; `billing` from shared/aws/local/local-billing.ts. */
export function localProbe(handlers: ReadonlyMap<string, StageHandler>, billing?: () => ReadonlyMap<string, StageBilling>): JobProbe {
  return {
    runtime: 'local',
    ...(billing ? { billing } : {}),
    stages: [...handlers].map(([stageId, handler]): StageProbe => ({
      stageId,
      shards: () =>
        handler
          .shardTasks()
          .map((task): ShardProbe => {
            const input = task.input;
            const shardInput: ShardInput =
              input.kind === 'source'
                ? { kind: 'source', maxEventTime: input.maxEventTime, ...(input.lastDataAt !== null ? { lastDataAt: input.lastDataAt } : {}) }
                : {
                    kind: 'exchange',
                    watermark: input.watermarks.combined,
                    expectedChannels: input.watermarks.expected,
                    ...(input.watermarks.idleTimeoutMs !== null ? { idleTimeoutMs: input.watermarks.idleTimeoutMs } : {}),
                    channels: input.watermarks.channels.map((c) => ({ channel: c.channel, watermark: c.watermark, lastActive: c.lastActive, idle: c.idle })),
                  };
            return {
              shard: shardIndexOf(task.shardId),
              label: task.shardId,
              runners: task.runners,
              input: () => shardInput,
              outputWatermark: () => task.watermark,
              // A shard's state lives in DynamoDB; what the probe can see cheaply is its cache.
              state: () => task.state.map((s) => ({ entries: s.cachedKeys, bytes: s.cachedBytes, scope: 'cached' as const })),
            };
          })
          .sort((a, b) => a.shard - b.shard),
    })),
  };
}

/** The numeric suffix of a shard id (`shardId-000000000003` → 3). */
function shardIndexOf(shardId: string): number {
  const m = /(\d+)$/.exec(shardId);
  return m === null ? 0 : Number.parseInt(m[1] as string, 10);
}
