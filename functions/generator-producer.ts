/**
 * The Lambda entry point of a generator source's producer (VALUES, datagen, a TypeScript
 * `generator`): wiring only. The CDK stack invokes it on a schedule; each invocation puts the
 * rows that came due into the source stream and returns, effectively once across crashes and
 * overlapping invocations (shared/aws/generator/generator-producer.ts). A bounded generator's
 * later invocations find it ended and return at once.
 *
 * The generator comes from the pipeline module bundled next to the handler (for a SQL pipeline,
 * the generated module of infra/lib/sql-pipeline-module.ts), by the reference the job graph names.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { createDynamoDbClient } from '../shared/aws/clients.ts';
import { loadJobGraph, loadUserCode, readProducerEnvironment } from '../shared/aws/env.ts';
import { GeneratorProducer } from '../shared/aws/generator/generator-producer.ts';
import type { ProduceReport } from '../shared/aws/generator/generator-producer.ts';
import { createKinesisClient } from '../shared/aws/kinesis/client.ts';
import { PlanError } from '../shared/core/errors.ts';

/** Time kept back from the invocation's end: the producer's last write must land before it. */
const MARGIN_MS = 2_000;

const env = readProducerEnvironment(process.env, dirname(fileURLToPath(import.meta.url)));
const graph = loadJobGraph(env.jobGraphPath);
const source = graph.sources.find((s) => s.name === env.source);
if (source === undefined || source.connector.type !== 'generator') {
  throw new PlanError(`job graph '${graph.name}' has no generator source '${env.source}' (generator sources: ${graph.sources.filter((s) => s.connector.type === 'generator').map((s) => s.name).join(', ') || 'none'})`);
}
const ref = source.connector.ref;
const generator = (await loadUserCode(env.pipelineModule)).generators.get(ref);
if (generator === undefined) throw new PlanError(`the pipeline module ${env.pipelineModule} has no generator ${ref} (source '${source.name}')`);

const logger = new Logger({ serviceName: graph.name });
const producer = new GeneratorProducer({ kinesis: createKinesisClient(), dynamoDb: createDynamoDbClient(), tableName: env.tableName, streamName: env.streamName, source, generator });

export const handler = middy<unknown, ProduceReport>()
  .use(injectLambdaContext(logger))
  .handler(async (_event: unknown, context: Context) => {
    const report = await producer.produce({ deadline: Date.now() + context.getRemainingTimeInMillis() - MARGIN_MS });
    logger.info('generator rows put', { source: source.name, ...report });
    return report;
  });
