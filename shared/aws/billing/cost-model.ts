/**
 * Monthly dollars from measured usage: what a pipeline run on Flambda costs at a steady event
 * rate, priced with prices.ts, next to what Amazon Managed Service for Apache Flink would cost
 * for the same rate.
 *
 * Flambda at `rate` events/s (1 KB events unless told):
 *
 * ```
 *  per event   DynamoDB write + read units, Lambda requests + GB-seconds, PUT payload units of
 *              the exchange streams — all measured per 1,000 events on the emulators — plus the
 *              source stream's PUT payload units (ceil(event bytes / 25 KB) per event)
 *  per hour    shard-hours of the source stream and of every exchange stream; each stream gets
 *              the shards its peak needs by the per-shard write limits (1 MiB/s and 1,000
 *              records/s), at least 1
 * ```
 *
 * "10 events/s bursty": events arrive in bursts that fill the batches as in the measurement
 * (so the per-event figures hold), and average 10/s; every stream keeps its minimum of 1 shard.
 *
 * Managed Flink at `rate`: `ceil(rate / eventsPerKpu)` KPUs (at least 1) plus the one
 * orchestration KPU per application, each with its 50 GB of running application storage, for
 * the whole month, and the same source stream (shards and PUT payload units). `eventsPerKpu`
 * is an assumption, stated in every report: {@link DEFAULT_MSF_EVENTS_PER_KPU}.
 */
import { HOURS_PER_MONTH, MSF_STORAGE_GB_PER_KPU, US_EAST_1 } from './prices.ts';
import type { AwsPrices } from './prices.ts';
import { putPayloadUnits } from './stream-units.ts';

/**
 * Events per second one Managed Flink KPU (1 vCPU, 4 GB) is assumed to sustain for a keyed
 * stateful job (aggregation, Top-N, windows) on 1 KB JSON events. AWS publishes no figure;
 * Alibaba's fully managed Flink documents 5,000–10,000 records/s per CU (1 vCPU, 4 GiB) for
 * "complex" streaming jobs (https://www.alibabacloud.com/help/en/flink/product-overview/billable-items);
 * the lower end is taken. A higher figure makes Managed Flink cheaper only above ~5,000 events/s.
 */
export const DEFAULT_MSF_EVENTS_PER_KPU = 5_000;

/** Per-shard write limits of Kinesis Data Streams (provisioned). */
export const SHARD_BYTES_PER_S = 1024 * 1024;
export const SHARD_RECORDS_PER_S = 1_000;

/** Usage of one pipeline per 1,000 input events, as measured. */
export interface UsagePer1000 {
  readonly writeUnits: number;
  readonly readUnits: number;
  readonly lambdaInvocations: number;
  readonly lambdaGbSeconds: number;
  /** PUT payload units of the exchange streams (the source stream is priced from `eventBytes`). */
  readonly exchangePutUnits: number;
  readonly sqsRequests: number;
  /** Per exchange stream: records and bytes written to it per 1,000 input events. */
  readonly exchanges: readonly { readonly records: number; readonly bytes: number }[];
}

/** How the pipeline's input is sized. */
export interface Workload {
  /** Average input events per second. */
  readonly rate: number;
  /** Bytes per input event. @default 1024 */
  readonly eventBytes?: number;
}

/** Dollars per month, by item. */
export interface MonthlyCost {
  readonly total: number;
  readonly dynamoDb: number;
  readonly lambda: number;
  readonly kinesisShards: number;
  readonly kinesisPutUnits: number;
  readonly sqs: number;
  /** Shards of the source stream and of each exchange stream. */
  readonly shards: readonly number[];
}

/** Managed Flink's dollars per month. */
export interface MsfMonthlyCost {
  readonly total: number;
  readonly kpus: number;
  readonly kpuHours: number;
  readonly storage: number;
  readonly sourceStream: number;
}

/** Shards a stream needs for `recordsPerS` records of `bytesPerS` bytes in total per second (at least 1). */
export function shardsFor(recordsPerS: number, bytesPerS: number): number {
  return Math.max(1, Math.ceil(bytesPerS / SHARD_BYTES_PER_S), Math.ceil(recordsPerS / SHARD_RECORDS_PER_S));
}

/** Events in a month at `rate` per second. */
export function eventsPerMonth(rate: number): number {
  return rate * 3600 * HOURS_PER_MONTH;
}

/** Flambda's variable dollars per million events (no shard-hours), with the source stream's PUT units. */
export function usdPerMillionEvents(usage: UsagePer1000, eventBytes = 1024, prices: AwsPrices = US_EAST_1): number {
  const perEvent =
    (usage.writeUnits * prices.dynamoDbPerWriteUnit +
      usage.readUnits * prices.dynamoDbPerReadUnit +
      usage.lambdaInvocations * prices.lambdaPerRequest +
      usage.lambdaGbSeconds * prices.lambdaPerGbSecond +
      usage.exchangePutUnits * prices.kinesisPerPutPayloadUnit +
      usage.sqsRequests * prices.sqsPerRequest) /
      1000 +
    putPayloadUnits(eventBytes) * prices.kinesisPerPutPayloadUnit;
  return perEvent * 1e6;
}

/** Flambda's monthly cost at a steady rate; see the module documentation. */
export function flambdaMonthly(usage: UsagePer1000, workload: Workload, prices: AwsPrices = US_EAST_1): MonthlyCost {
  const eventBytes = workload.eventBytes ?? 1024;
  const events = eventsPerMonth(workload.rate);
  const thousands = events / 1000;
  const shards = [shardsFor(workload.rate, workload.rate * eventBytes), ...usage.exchanges.map((x) => shardsFor((x.records * workload.rate) / 1000, (x.bytes * workload.rate) / 1000))];
  const dynamoDb = thousands * (usage.writeUnits * prices.dynamoDbPerWriteUnit + usage.readUnits * prices.dynamoDbPerReadUnit);
  const lambda = thousands * (usage.lambdaInvocations * prices.lambdaPerRequest + usage.lambdaGbSeconds * prices.lambdaPerGbSecond);
  const kinesisShards = shards.reduce((a, b) => a + b, 0) * HOURS_PER_MONTH * prices.kinesisPerShardHour;
  const kinesisPutUnits = (thousands * usage.exchangePutUnits + events * putPayloadUnits(eventBytes)) * prices.kinesisPerPutPayloadUnit;
  const sqs = thousands * usage.sqsRequests * prices.sqsPerRequest;
  return { total: dynamoDb + lambda + kinesisShards + kinesisPutUnits + sqs, dynamoDb, lambda, kinesisShards, kinesisPutUnits, sqs, shards };
}

/** Managed Flink's monthly cost for the same rate; see the module documentation. */
export function msfMonthly(workload: Workload, eventsPerKpu = DEFAULT_MSF_EVENTS_PER_KPU, prices: AwsPrices = US_EAST_1): MsfMonthlyCost {
  const eventBytes = workload.eventBytes ?? 1024;
  const kpus = Math.max(1, Math.ceil(workload.rate / eventsPerKpu)) + 1;
  const kpuHours = kpus * HOURS_PER_MONTH * prices.msfPerKpuHour;
  const storage = kpus * MSF_STORAGE_GB_PER_KPU * prices.msfStoragePerGbMonth;
  const sourceStream =
    shardsFor(workload.rate, workload.rate * eventBytes) * HOURS_PER_MONTH * prices.kinesisPerShardHour +
    eventsPerMonth(workload.rate) * putPayloadUnits(eventBytes) * prices.kinesisPerPutPayloadUnit;
  return { total: kpuHours + storage + sourceStream, kpus, kpuHours, storage, sourceStream };
}

/** Rounds dollars to cents. */
export function cents(usd: number): number {
  return Math.round(usd * 100) / 100;
}
