/**
 * The Lambda entry point of one operator stage: wiring only. Everything is built once per cold
 * start (Lambda's init phase, via top-level await); the configuration comes from the
 * environment (shared/aws/env.ts).
 *
 * Middlewares, outermost first: Powertools Logger (request context in every log line), Metrics
 * (flushes EMF after the invocation), then the stage metrics (counter deltas of the batch).
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import { createDynamoDbClient } from '../shared/aws/clients.ts';
import { loadJobGraph, loadUserCode, readStageEnvironment } from '../shared/aws/env.ts';
import { DEFAULT_COMMIT_POLICY, StageHandler } from '../shared/aws/handler/stage-handler.ts';
import { awsDimensionSources } from '../shared/aws/lookup/dimension-sources.ts';
import { loadLookupSecrets } from '../shared/aws/lookup/secrets.ts';
import { lookupTablesOf } from '../shared/plan/job-graph.ts';
import { createKinesisClient } from '../shared/aws/kinesis/client.ts';
import { createAwsSink } from '../shared/aws/sinks/create-sink.ts';
import { createSqsClient } from '../shared/aws/stage-input/sqs-client.ts';
import { SqsDeadLetterQueue } from '../shared/aws/stage-input/sqs-dead-letter-queue.ts';
import { countingDynamoDb, stageMetrics } from '../shared/aws/stage-metrics.ts';

const env = readStageEnvironment(process.env, dirname(fileURLToPath(import.meta.url)));
const graph = loadJobGraph(env.jobGraphPath);
const handlerDir = dirname(fileURLToPath(import.meta.url));
// One DynamoDB client per container (one connection pool): state, dimension tables, the lookup
// cache's second level in the state table, and DynamoDB sinks. State requests go through a
// counting wrapper for the StateReads/StateWrites metrics.
const dynamoDb = createDynamoDbClient();
// Lookup joins: JSON-lines tables bundled next to the handler (FLAMBDA_LOOKUP_FILES), and the
// database passwords of this stage's own SQL lookup tables, read from Secrets Manager once, at
// cold start (other stages' secrets are not granted to this function).
const ownLookups = lookupTablesOf({ ...graph, stages: graph.stages.filter((s) => s.id === env.stageId) });
const secrets = ownLookups.size > 0 ? await loadLookupSecrets(graph, process.env, undefined, env.stageId) : undefined;
const lookupSources = awsDimensionSources({
  baseDir: handlerDir,
  dynamoDb,
  l2: { client: dynamoDb, tableName: env.tableName },
  ...(secrets !== undefined ? { secrets } : {}),
});
const code = { ...(await loadUserCode(env.pipelineModule)), lookupSources };

const logger = new Logger({ serviceName: graph.name });
const metrics = new Metrics({ namespace: 'Flambda', serviceName: graph.name, defaultDimensions: { Pipeline: graph.name, Stage: env.stageId } });

const state = countingDynamoDb(dynamoDb);
const deadLetterQueue = env.deadLetterQueueUrl === undefined ? undefined : new SqsDeadLetterQueue({ client: createSqsClient(), queueUrl: env.deadLetterQueueUrl });

const kinesis = createKinesisClient();
const stageSpec = graph.stages.find((s) => s.id === env.stageId);
const sinkSpec = stageSpec?.output.type === 'sink' ? graph.sinks.find((s) => s.name === (stageSpec.output as { sink: string }).sink) : undefined;
const sinkContext = { dynamoDb, kinesis, targets: env.sinkTargets };
const writeSink = sinkSpec === undefined ? undefined : createAwsSink(sinkSpec, sinkContext);
// Late-data (side output) sinks of this stage's operators, by sink name.
const sideWriters = new Map(
  (stageSpec?.sideOutputs ?? []).map((side) => {
    const spec = graph.sinks.find((s) => s.name === side.sink);
    if (spec === undefined) throw new Error(`job graph: side output ${side.operatorId}/${side.tag} names unknown sink '${side.sink}'`);
    return [side.sink, createAwsSink(spec, sinkContext)] as const;
  }),
);

const stage = new StageHandler({
  graph,
  stageId: env.stageId,
  code,
  dynamoDb: state.client,
  tableName: env.tableName,
  kinesis,
  outputStreams: env.outputStreams,
  ...(writeSink === undefined ? {} : { sink: (rows) => writeSink(rows) }),
  ...(sideWriters.size === 0 ? {} : { sideSink: (rows, info) => sideWriters.get(info.sink)?.(rows) }),
  ...(deadLetterQueue === undefined ? {} : { onDeadLetters: async (letters) => void (await deadLetterQueue.send(letters)) }),
  onError: (error, shardId) => logger.error('batch failed', { shardId, error: error as Error }),
  // Commit intervals: the protocol's writes once per 8 batches or 10 s (docs/effectively-once.md).
  commit: DEFAULT_COMMIT_POLICY,
});

export const handler = middy<KinesisStreamEvent, KinesisStreamBatchResponse>()
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics))
  .use(stageMetrics({ metrics, counters: () => ({ handler: stage.stats(), state: { ...state.counts }, lookupL2: lookupSources.l2Totals() }) }))
  .handler((event, context) => stage.handle(event, context));
