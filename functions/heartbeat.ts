/**
 * The Lambda entry point of the heartbeat schedule: writes one heartbeat record to every open
 * shard of the pipeline's source (and exchange) streams, so idle shards still advance their
 * watermark and processing time (shared/aws/heartbeat/heartbeat-writer.ts). The CDK stack runs
 * it on an EventBridge schedule with FLAMBDA_HEARTBEAT_STREAMS set.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { readHeartbeatStreams } from '../shared/aws/env.ts';
import { writeHeartbeats } from '../shared/aws/heartbeat/heartbeat-writer.ts';
import type { HeartbeatReport } from '../shared/aws/heartbeat/heartbeat-writer.ts';
import { createKinesisClient } from '../shared/aws/kinesis/client.ts';

const streams = readHeartbeatStreams(process.env);
const logger = new Logger({ serviceName: 'flambda-heartbeat' });
const kinesis = createKinesisClient();

export const handler = middy<unknown, HeartbeatReport>()
  .use(injectLambdaContext(logger))
  .handler(async () => {
    const report = await writeHeartbeats(kinesis, streams, Date.now());
    logger.info('heartbeats written', { ...report });
    return report;
  });
