/**
 * The AWS cost of a pipeline at a steady rate, per stage and per operator, beside Amazon
 * Managed Service for Apache Flink's figure for the same rate — what `flambda cost` prints and
 * `EXPLAIN ESTIMATED_COST` appends.
 *
 * The figures come from a short sample run through the real stage handlers on the local
 * emulators (shared/bench/aws-cost.ts `measureJob`: DynamoDB units, Kinesis PUT payload units
 * and Lambda durations metered as AWS bills them), scaled to the rate and priced with
 * shared/aws/billing/prices.ts. The sample input is the files given with `--input`, or else
 * generated: Nexmark data for the Nexmark sources (person, auction, bid), otherwise rows made
 * from each source's schema with `--keys` distinct values per column and event time advancing
 * 1 ms per row.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MSF_EVENTS_PER_KPU, cents, flambdaMonthly, msfMonthly, shardsFor } from '../aws/billing/cost-model.ts';
import { HOURS_PER_MONTH as HOURS_PER_MONTH_FOR_REPORT, PRICES_AS_OF, US_EAST_1 } from '../aws/billing/prices.ts';
import { putPayloadUnits } from '../aws/billing/stream-units.ts';
import { awsDimensionSources } from '../aws/lookup/dimension-sources.ts';
import { AWS_COST_BATCH, AWS_COST_MEMORY_MB, measureJob } from '../bench/aws-cost.ts';
import type { MeasuredJob } from '../bench/aws-cost.ts';
import { formatTimestamp } from '../core/timestamp.ts';
import { PlanError } from '../core/errors.ts';
import type { Schema } from '../core/types.ts';
import { NEXMARK_TABLES } from '../nexmark/schemas.ts';
import { writeNexmarkFiles } from '../nexmark/write-files.ts';
import { lookupTablesOf, type JobGraph } from '../plan/job-graph.ts';
import { bindInputs } from './bindings.ts';
import type { Pipeline } from '../api/pipeline.ts';

/** Options of the cost command. */
export interface CostCommandOptions {
  /** Average input events per second. */
  readonly rate: number;
  /** Bytes per input event. @default 1024 */
  readonly eventBytes?: number;
  /** Distinct values per column of generated input. @default 10000 */
  readonly keys?: number;
  /** Events of the sample run. @default 5000 */
  readonly sample?: number;
  /** `name=file` bindings of sources and lookup tables (else the input is generated). */
  readonly input?: readonly string[];
}

/** Writes `events` rows of `schema` made up from their types, as JSON lines. */
function writeSchemaRows(path: string, schema: Schema, events: number, keys: number, timeColumn: string | undefined): void {
  let seed = 7;
  const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const start = Date.UTC(2024, 0, 1);
  const lines: string[] = [];
  for (let i = 0; i < events; i++) {
    const row: Record<string, unknown> = {};
    for (const field of schema.fields) {
      const k = Math.floor(random() * keys);
      switch (field.type.root) {
        case 'BIGINT':
        case 'INT':
        case 'SMALLINT':
        case 'TINYINT':
          row[field.name] = field.type.root === 'TINYINT' ? k % 128 : field.type.root === 'SMALLINT' ? k % 32768 : k;
          break;
        case 'DOUBLE':
        case 'FLOAT':
        case 'DECIMAL':
          row[field.name] = Math.round(random() * 1e6) / 100;
          break;
        case 'BOOLEAN':
          row[field.name] = k % 2 === 0;
          break;
        case 'TIMESTAMP':
        case 'TIMESTAMP_LTZ':
          row[field.name] = formatTimestamp(field.name === timeColumn || field.timeAttribute === 'rowtime' ? start + i : start + k);
          break;
        case 'DATE':
          row[field.name] = formatTimestamp(start + k * 86_400_000).slice(0, 10);
          break;
        case 'TIME':
          row[field.name] = formatTimestamp(start + (k % 86_400) * 1000).slice(11, 19);
          break;
        default:
          row[field.name] = `v${k}`;
      }
    }
    lines.push(JSON.stringify(row));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

/** The sample's input files (given, or generated into `dir`). */
async function sampleInputs(graph: JobGraph, options: CostCommandOptions, dir: string): Promise<{ sources: Map<string, string>; lookups: Map<string, string> }> {
  const given = options.input ?? [];
  const bound = given.length === 0 ? new Map<string, string>() : bindInputs(graph, [...given]);
  const sample = options.sample ?? 5_000;
  const sources = new Map<string, string>();
  const lookups = new Map<string, string>();
  const lookupNames = new Set(lookupTablesOf(graph).keys());
  const nexmark = graph.sources.every((s) => (NEXMARK_TABLES as readonly string[]).includes(s.name));
  const generated = nexmark && bound.size === 0 ? await writeNexmarkFiles(join(dir, 'nexmark'), { events: sample, seed: 1 }) : undefined;
  for (const source of graph.sources) {
    const given = bound.get(source.name);
    if (given !== undefined) sources.set(source.name, given);
    else if (generated !== undefined) sources.set(source.name, generated.files[source.name as 'bid']);
    else {
      const path = join(dir, `${source.name}.jsonl`);
      writeSchemaRows(path, source.schema, sample, options.keys ?? 10_000, source.watermark?.column);
      sources.set(source.name, path);
    }
  }
  for (const name of lookupNames) {
    const given = bound.get(name);
    if (given !== undefined) lookups.set(name, given);
    else if (generated !== undefined && name === 'side_input') lookups.set(name, generated.files.side_input);
    else throw new PlanError(`lookup table '${name}' needs sample rows: pass --input ${name}=<file.jsonl>`);
  }
  return { sources, lookups };
}

function usd(n: number): string {
  return `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

function fixed(n: number, digits = 1): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/** The cost section text: per stage and operator, totals, Managed Flink's figure. */
export function formatCost(graph: JobGraph, measured: MeasuredJob, rate: number, eventBytes = 1024): string {
  const prices = US_EAST_1;
  const perS = rate / 1000;
  const month = rate * 3600 * HOURS_PER_MONTH_FOR_REPORT;
  const lines: string[] = [];
  const sourceShards = shardsFor(rate, rate * eventBytes);
  const sourceUsd = sourceShards * HOURS_PER_MONTH_FOR_REPORT * prices.kinesisPerShardHour + month * putPayloadUnits(eventBytes) * prices.kinesisPerPutPayloadUnit;
  lines.push(`== Cost at ${fixed(rate, 0)} events/s (${eventBytes}-byte events; us-east-1 prices of ${PRICES_AS_OF}) ==`);
  lines.push(`measured: ${measured.events.toLocaleString('en-US')} sample events through the stage handlers on the local emulators, batches of ${AWS_COST_BATCH}, Lambda at ${AWS_COST_MEMORY_MB} MB`);
  lines.push(`source stream: ${sourceShards} shard${sourceShards === 1 ? '' : 's'}, ${usd(sourceUsd)}/month`);
  for (const [i, s] of measured.stages.entries()) {
    const stage = graph.stages[i];
    const u = s.usage;
    const dynamo = (month / 1000) * (u.writeUnits * prices.dynamoDbPerWriteUnit + u.readUnits * prices.dynamoDbPerReadUnit);
    const lambda = (month / 1000) * (u.lambdaInvocations * prices.lambdaPerRequest + u.lambdaGbSeconds * prices.lambdaPerGbSecond);
    const exchange = u.exchanges[0];
    const outShards = exchange === undefined ? 0 : shardsFor(exchange.records * perS, exchange.bytes * perS);
    const exchangeUsd = exchange === undefined ? 0 : outShards * HOURS_PER_MONTH_FOR_REPORT * prices.kinesisPerShardHour + (month / 1000) * u.exchangePutUnits * prices.kinesisPerPutPayloadUnit;
    const ops = stage?.operators.map((o) => o.id).join(' -> ') || '(no operators)';
    lines.push(
      `${s.stage} (${stage?.parallelism ?? 1} shard${(stage?.parallelism ?? 1) === 1 ? '' : 's'} measured): ${ops}\n` +
        `  invocations ${fixed(u.lambdaInvocations * perS, 2)}/s, ${fixed(u.lambdaGbSeconds * perS, 3)} GB-s/s: Lambda ${usd(lambda)}/month\n` +
        `  DynamoDB ${fixed(u.writeUnits * perS)} write + ${fixed(u.readUnits * perS)} read units/s: ${usd(dynamo)}/month\n` +
        (exchange === undefined ? '' : `  exchange out: ${fixed(exchange.records * perS)} records/s, ${outShards} shard${outShards === 1 ? '' : 's'}: ${usd(exchangeUsd)}/month\n`) +
        `  stage total ${usd(dynamo + lambda + exchangeUsd)}/month`,
    );
    const totalState = [...s.stateBytesByOperator.values()].reduce((a, b) => a + b, 0);
    for (const [op, bytes] of s.stateBytesByOperator) {
      if (totalState === 0) continue;
      const share = bytes / totalState;
      lines.push(`    ${op}: ${fixed(share * 100, 0)}% of the stage's state bytes (${fixed(bytes / 1024, 2)} KB per 1,000 events): ≈ ${usd(share * dynamo)}/month of its DynamoDB`);
    }
  }
  const total = flambdaMonthly(measured.usage, { rate, eventBytes });
  const msf = msfMonthly({ rate, eventBytes });
  lines.push(`Flambda total: ${usd(cents(total.total))}/month (DynamoDB ${usd(total.dynamoDb)}, Lambda ${usd(total.lambda)}, Kinesis shards ${usd(total.kinesisShards)}, PUT units ${usd(total.kinesisPutUnits)})`);
  lines.push(
    `Managed Service for Apache Flink: ${usd(cents(msf.total))}/month (${msf.kpus - 1} KPU at ${DEFAULT_MSF_EVENTS_PER_KPU.toLocaleString('en-US')} events/s per KPU (assumed) + 1 orchestration KPU: ${usd(msf.kpuHours)}; running storage ${usd(msf.storage)}; source stream ${usd(msf.sourceStream)})`,
  );
  return lines.join('\n');
}

/**
 * Measures a pipeline on a sample run through the stage handlers on the local emulators and
 * returns its cost section ({@link formatCost}). `progress` hears what is being measured.
 */
export async function estimateCost(pipeline: Pipeline, options: CostCommandOptions, progress?: (line: string) => void): Promise<string> {
  if (!(Number.isFinite(options.rate) && options.rate > 0)) throw new PlanError(`--rate must be a positive number of events per second (given ${options.rate})`);
  const graph = pipeline.jobGraph({ parallelism: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'flambda-cost-'));
  try {
    const { sources, lookups } = await sampleInputs(graph, options, dir);
    progress?.(`measuring a sample of ${graph.name} on the local emulators`);
    const measured = await measureJob({
      name: graph.name,
      graph,
      code: { functions: pipeline.userFunctions, lookupSources: awsDimensionSources({ jsonlPaths: lookups }) },
      inputs: sources,
    });
    return formatCost(graph, measured, options.rate, options.eventBytes ?? 1024);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
