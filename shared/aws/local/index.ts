/** Running a job graph the AWS way on one machine (`flambda local`). */
export { runLocalJob } from './local-job.ts';
export type { LocalJobOptions, LocalJobResult, LocalStageReport } from './local-job.ts';
export { startDynalite, startKinesalite } from './emulators.ts';
export type { LocalEmulator } from './emulators.ts';
