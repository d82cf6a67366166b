/**
 * The Lambda stage handler (at-least-once; the checkpoint protocol is not built yet).
 */
export { StageHandler } from './stage-handler.ts';
export type {
  DeadLetterCallback,
  SideOutputCallback,
  SinkBatchInfo,
  SinkCallback,
  StageHandlerOptions,
  StageHandlerStats,
} from './stage-handler.ts';
