/**
 * Billed units of a `flambda local` job, per stage, for the job page: each stage handler's
 * DynamoDB and Kinesis clients are metered (shared/aws/billing/) and each invocation's measured
 * duration is billed as Lambda GB-seconds at the stack's default memory, then priced with the
 * one price file. The counts are what AWS would bill for the same calls; the durations are this
 * machine's, with the emulators on the same thread, so Lambda's share is pessimistic.
 */
import { ATTR } from '../state/constants.ts';
import { meterDynamoDb, type MeteredDynamoDb } from '../billing/metered-dynamodb.ts';
import { meterKinesis, type MeteredKinesis } from '../billing/metered-kinesis.ts';
import { US_EAST_1, type AwsPrices } from '../billing/prices.ts';
import { addInvocation, newLambdaUsage, type LambdaUsage } from '../billing/stream-units.ts';
import type { StageBilling } from '../../runtime/job-probe.ts';
import type { LocalHandlerSetup } from './local-job.ts';

/** Lambda memory the units are billed at: the stack's default (infra/lib/stream-pipeline.ts). */
export const LOCAL_BILLING_MEMORY_MB = 1024;

/** Meters for a local job's handlers, and the priced units they counted so far. */
export interface LocalBilling {
  /** Pass as {@link LocalJobOptions.handlerSetup}. */
  readonly handlerSetup: LocalHandlerSetup;
  /** Units and dollars per stage id, so far. */
  billing(): ReadonlyMap<string, StageBilling>;
}

/** Creates the meters; every stage gets its own when its handler is built. */
export function localBilling(prices: AwsPrices = US_EAST_1): LocalBilling {
  const dynamo = new Map<string, MeteredDynamoDb>();
  const kinesis = new Map<string, MeteredKinesis>();
  const lambda = new Map<string, LambdaUsage>();
  const stages = new Set<string>();
  return {
    handlerSetup: {
      dynamoDb: (client, stage) => {
        stages.add(stage);
        const meter = meterDynamoDb(client, { keyAttributes: [ATTR.pk, ATTR.sk] });
        dynamo.set(stage, meter);
        return meter;
      },
      kinesis: (client, stage) => {
        stages.add(stage);
        const meter = meterKinesis(client);
        kinesis.set(stage, meter);
        return meter.client;
      },
      onInvocation: (stage, _records, ms) => {
        stages.add(stage);
        let usage = lambda.get(stage);
        if (usage === undefined) lambda.set(stage, (usage = newLambdaUsage()));
        addInvocation(usage, ms, LOCAL_BILLING_MEMORY_MB);
      },
    },
    billing: () => {
      const out = new Map<string, StageBilling>();
      for (const stage of stages) {
        const d = dynamo.get(stage)?.usage;
        const k = kinesis.get(stage)?.usage;
        const l = lambda.get(stage);
        const units = {
          dynamodbWriteUnits: d?.writeUnits ?? 0,
          dynamodbReadUnits: d?.readUnits ?? 0,
          kinesisPutPayloadUnits: k?.putPayloadUnits ?? 0,
          lambdaRequests: l?.invocations ?? 0,
          lambdaGbSeconds: l?.gbSeconds ?? 0,
        };
        const usd =
          units.dynamodbWriteUnits * prices.dynamoDbPerWriteUnit +
          units.dynamodbReadUnits * prices.dynamoDbPerReadUnit +
          units.kinesisPutPayloadUnits * prices.kinesisPerPutPayloadUnit +
          units.lambdaRequests * prices.lambdaPerRequest +
          units.lambdaGbSeconds * prices.lambdaPerGbSecond;
        out.set(stage, { units, usd });
      }
      return out;
    },
  };
}
