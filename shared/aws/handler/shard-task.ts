/**
 * The working set of one input shard in a warm container (a *shard task*): its reader,
 * operator chain, state caches, writer, the checkpoint version they reflect and the open commit
 * interval; and the pure helpers the stage handler uses on it — the interval's held output,
 * where a failing row came from, the stage's output schema.
 */
import { Buffer } from 'node:buffer';
import type { KinesisStreamRecord } from 'aws-lambda';
import { PlanError } from '../../core/errors.ts';
import type { ChangeRow } from '../../core/row.ts';
import type { Row, Schema } from '../../core/types.ts';
import type { JobGraph, JobStage } from '../../plan/job-graph.ts';
import type { OperatorRunner } from '../../runtime/operator-runner.ts';
import type { RecordFailure, RecordOrigin, StageExecutor } from '../../runtime/stage-executor.ts';
import type { KinesisStageWriter } from '../kinesis/kinesis-writer.ts';
import type { ShardState, StateRef } from '../state/shard-state.ts';
import type { TimerJournal } from '../state/timer-journal.ts';
import type { DynamoDbStateStore } from '../state/dynamodb-state-store.ts';
import { shardIdOf, streamNameOf } from '../stage-input/kinesis-records.ts';
import type { DeadLetter, InputStep, StageInputReader, StageInputSnapshot } from '../stage-input/types.ts';
import { DEFAULT_DEAD_LETTER_DATA_BYTES, deadLetterOf } from '../stage-input/dead-letter.ts';
import type { ReportedCounters } from './handler-stats.ts';

/** What a stage stores in its checkpoint with each commit. */
export interface CommittedData {
  readonly reader: StageInputSnapshot;
  /** The chain's output watermark. */
  readonly watermark: number;
  /** Where the operators' state is (stages with operators). */
  readonly state?: StateRef;
}

/** The per-shard working set of a warm container. */
export interface ShardTask {
  readonly shardId: string;
  /** The input stream's name. */
  readonly streamName: string;
  readonly reader: StageInputReader;
  readonly runners: readonly OperatorRunner[];
  /** Runs the chain (shared/runtime/stage-executor.ts) under the job's error policy. */
  readonly executor: StageExecutor<KinesisOrigin>;
  /** Records the executor set aside during the current step. */
  readonly failures: RecordFailure<KinesisOrigin>[];
  readonly stores: readonly DynamoDbStateStore[];
  /** The durable state of the operators (undefined for a stage without operators). */
  readonly state: ShardState | undefined;
  /** Timer journals of the operators that persist timers. */
  readonly journals: readonly TimerJournal[];
  readonly writer: KinesisStageWriter | undefined;
  /** The chain's output watermark: the last watermark advanced through every operator. */
  watermark: number;
  /** The watermark last handed to the writer. */
  emittedWatermark: number;
  /** The checkpoint version the caches reflect. */
  version: number;
  /** What that version committed (to rebuild the task from). */
  committed: CommittedData | undefined;
  /** The version whose redo log this container applied completely. */
  appliedVersion: number;
  /** Operator and cache counters already added to the handler's stats. */
  reported: ReportedCounters;
  /** A skipped range was settled: the next batch commits, whatever the policy. */
  mustCommit: boolean;
  /** Lease-clock time a catch-up began, until its records are processed. */
  catchUpStartedAt: number | undefined;
  /** Built from the checkpoint in the current invocation (its uncommitted input is still to be re-read). */
  fresh: boolean;
  /** The batches processed since the last commit, with their held output. */
  interval: OpenInterval | undefined;
}

/** A commit interval not committed yet: its input range, batches and held output. */
export interface OpenInterval {
  readonly first: string;
  last: string;
  /** The first record of the latest event that added to it (Lambda re-delivers from there after a failure). */
  delivered: string;
  batches: number;
  /** Lease-clock time of its first batch. */
  readonly startedAt: number;
  readonly result: StepResult;
}

/** What running a batch's steps produced, before it is committed. */
export interface StepResult {
  readonly rows: ChangeRow[];
  readonly letters: DeadLetter[];
  readonly side: { operatorId: string; tag: string; rows: Row[] }[];
}

/**
 * The schema of the rows a stage emits: for an exchange, the downstream stage's input schema (the
 * receiver checks the bundles' schema fingerprint against it); otherwise the last operator's
 * output, or the stage input when it has no operators.
 */
export function outputSchemaOf(graph: JobGraph, stage: JobStage): Schema {
  const output = stage.output;
  if (output.type === 'exchange') {
    const next = graph.stages.find((s) => s.id === output.toStage);
    if (next === undefined) throw new PlanError(`stage ${stage.id} feeds unknown stage '${output.toStage}'`);
    // The right producer of a two-input stage writes the right side's rows.
    if (next.input.type === 'twoInput' && next.input.right.fromStage === stage.id) return next.input.right.schema;
    return next.inputSchema;
  }
  return stage.operators[stage.operators.length - 1]?.outputSchema ?? stage.inputSchema;
}

/**
 * The operator context's shard number: the shard id's numeric suffix. It only labels the
 * instance (metrics, errors); routing is by the exchange's hash ranges, not by this number.
 */
export function shardIndexOf(shardId: string): number {
  const match = /(\d+)$/.exec(shardId);
  return match === null ? 0 : Number.parseInt(match[1] as string, 10);
}

/** Where a row of a stage's input came from: its Kinesis record. */
export interface KinesisOrigin extends RecordOrigin {
  readonly record: KinesisStreamRecord;
}

/**
 * The origin of each row of a rows step: a source stage's rows have one record each; an
 * exchange stage's rows all come from the bundle's one record. Looked up only for a failing row.
 */
export function kinesisOrigins(rows: readonly ChangeRow[], records: readonly KinesisStreamRecord[] | undefined): ((row: ChangeRow) => KinesisOrigin | undefined) | undefined {
  if (records === undefined || records.length === 0) return undefined;
  return (row) => {
    const record = records.length === 1 ? records[0] : records[rows.indexOf(row)];
    if (record === undefined) return undefined;
    return { record, position: `${streamNameOf(record)}/${shardIdOf(record)}@${record.kinesis.sequenceNumber}`, raw: record.kinesis.data };
  };
}

/**
 * The dead letter of a record an operator set aside (kind `data-error`): the record the row came
 * from (also for a row the chain's stateless operators derived from it; for a row a stateful
 * operator emitted, the step's first record and that operator), the reason with its position,
 * and the operator.
 */
export function dataErrorLetter(stage: string, failure: RecordFailure<KinesisOrigin>, step: InputStep): DeadLetter {
  const record = failure.origin?.record ?? (step.type === 'rows' ? step.records?.[0] : undefined);
  const at = record === undefined ? `${stage}@${firstSequenceOf(step)}` : `${shardIdOf(record)}@${record.kinesis.sequenceNumber}`;
  // With an origin the record is exact (the executor traces rows through stateless operators);
  // without one a stateful operator emitted the row: say which, and on what.
  const derived = failure.origin === undefined ? ` (${failure.producer !== undefined ? `${failure.producer}; ` : ''}a row derived from the batch of this record)` : '';
  const reason = `${at}: ${failure.reason}${derived}, in operator ${failure.operator}`;
  if (record !== undefined) return { ...deadLetterOf(record, stage, 'data-error', reason, DEFAULT_DEAD_LETTER_DATA_BYTES), operator: failure.operator };
  const data = Buffer.from(JSON.stringify(failure.row.row, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))).toString('base64');
  return { kind: 'data-error', reason, stage, stream: '', shardId: '', sequenceNumber: firstSequenceOf(step), approximateArrivalTimestamp: 0, partitionKey: '', data, dataBytes: Buffer.byteLength(data, 'base64'), truncated: false, operator: failure.operator };
}

export function firstSequenceOf(step: InputStep): string {
  return step.type === 'rows' ? step.first : step.sequenceNumber;
}

export function indexOf(records: readonly KinesisStreamRecord[], sequenceNumber: string): number {
  return records.findIndex((r) => r.kinesis.sequenceNumber === sequenceNumber);
}

export function seqOf(record: KinesisStreamRecord | undefined): string {
  return (record as KinesisStreamRecord).kinesis.sequenceNumber;
}

/** Adds a batch's result to the task's open interval (opening one at `now` if none is open); returns it. */
export function extendInterval(task: ShardTask, records: readonly KinesisStreamRecord[], result: StepResult, now: number, eventFirst: string): OpenInterval {
  const last = seqOf(records[records.length - 1]);
  const open = task.interval;
  if (open === undefined) return (task.interval = { first: seqOf(records[0]), last, delivered: eventFirst, batches: 1, startedAt: now, result });
  push(open.result.rows, result.rows);
  push(open.result.letters, result.letters);
  mergeSide(open.result.side, result.side);
  open.last = last;
  open.delivered = eventFirst;
  open.batches++;
  return open;
}

/** Adds side-output rows to `into`, one entry per operator and tag (each entry is sent under one id). */
export function mergeSide(into: StepResult['side'], more: StepResult['side']): void {
  for (const side of more) {
    const same = into.find((s) => s.operatorId === side.operatorId && s.tag === side.tag);
    if (same === undefined) into.push({ ...side, rows: [...side.rows] });
    else push(same.rows, side.rows);
  }
}

export function push<T>(into: T[], rows: readonly T[]): void {
  for (const row of rows) into.push(row);
}
