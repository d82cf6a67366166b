/**
 * AWS list prices, us-east-1 (US East, N. Virginia), on which every dollar figure of Flambda's
 * cost reports is computed (`flambda bench aws-cost`, `flambda cost`, `flambda explain`). One
 * file, so a price change is one edit. Free tiers are left out: the figures compare designs,
 * and a free tier is per account, not per pipeline.
 *
 * Looked up on 2026-12-01 (the pages as stored then):
 *
 * | price | value | source |
 * |---|---|---|
 * | Lambda requests | $0.20 per million | https://docs.aws.amazon.com/whitepapers/latest/how-aws-pricing-works/lambda.html |
 * | Lambda duration (x86, first tier) | $0.0000166667 per GB-second | same page ($0.00001667); https://aws.amazon.com/lambda/pricing/ |
 * | DynamoDB on-demand writes | $0.625 per million write request units | https://airbyte.com/data-engineering-resources/dynamodb-pricing (after AWS's November 2024 cut) |
 * | DynamoDB on-demand reads | $0.125 per million read request units | same page |
 * | DynamoDB storage | $0.25 per GB-month | https://aws.amazon.com/dynamodb/pricing/on-demand/ |
 * | Kinesis provisioned shard | $0.015 per shard-hour | https://aws.amazon.com/kinesis/data-streams/pricing/ (Provisioned tab) |
 * | Kinesis provisioned PUT payload unit (25 KB) | $0.014 per million | same page; unit rule: http://aws.amazon.com/kinesis/pricing/ |
 * | Kinesis on-demand stream | $0.04 per stream-hour | https://aws.amazon.com/kinesis/data-streams/pricing/ (On-Demand tab) |
 * | Kinesis on-demand data in (1 KB rounding per record) | $0.08 per GB | same page |
 * | Kinesis on-demand data out | $0.04 per GB | same page |
 * | SQS standard requests (64 KB chunks) | $0.40 per million | https://unanswered.io/guide/aws-sqs-pricing-and-cost-optimization, https://aws.amazon.com/sqs/pricing/ |
 * | Managed Service for Apache Flink | $0.11 per KPU-hour, + 1 orchestration KPU per application | https://docs.aws.amazon.com/managed-flink/latest/java/how-pricing.html (rules); https://aws.amazon.com/managed-service-apache-flink/pricing/ (price) |
 * | MSF running application storage | $0.10 per GB-month, 50 GB per KPU | same pages |
 *
 * The stored excerpts showed the Lambda, DynamoDB and SQS figures and the unit rules of
 * Kinesis and Managed Flink verbatim; the Kinesis and Managed Flink dollar figures are the
 * us-east-1 list prices of the AWS pages named (their stored excerpts cut off before the
 * tables). Re-check them there before quoting a bill.
 */

/** Prices in USD. */
export interface AwsPrices {
  readonly lambdaPerRequest: number;
  readonly lambdaPerGbSecond: number;
  readonly dynamoDbPerWriteUnit: number;
  readonly dynamoDbPerReadUnit: number;
  readonly dynamoDbPerGbMonth: number;
  readonly kinesisPerShardHour: number;
  readonly kinesisPerPutPayloadUnit: number;
  readonly kinesisOnDemandPerStreamHour: number;
  readonly kinesisOnDemandPerGbIn: number;
  readonly kinesisOnDemandPerGbOut: number;
  readonly sqsPerRequest: number;
  readonly msfPerKpuHour: number;
  /** Running application storage per GB-month; {@link MSF_STORAGE_GB_PER_KPU} GB come with each KPU. */
  readonly msfStoragePerGbMonth: number;
}

/** us-east-1 list prices; see the module documentation for the sources. */
export const US_EAST_1: AwsPrices = {
  lambdaPerRequest: 0.2 / 1e6,
  lambdaPerGbSecond: 0.0000166667,
  dynamoDbPerWriteUnit: 0.625 / 1e6,
  dynamoDbPerReadUnit: 0.125 / 1e6,
  dynamoDbPerGbMonth: 0.25,
  kinesisPerShardHour: 0.015,
  kinesisPerPutPayloadUnit: 0.014 / 1e6,
  kinesisOnDemandPerStreamHour: 0.04,
  kinesisOnDemandPerGbIn: 0.08,
  kinesisOnDemandPerGbOut: 0.04,
  sqsPerRequest: 0.4 / 1e6,
  msfPerKpuHour: 0.11,
  msfStoragePerGbMonth: 0.1,
};

/** The date the prices were looked up. */
export const PRICES_AS_OF = '2026-12-01';

/** Running application storage that comes with each Managed Flink KPU, GB. */
export const MSF_STORAGE_GB_PER_KPU = 50;

/** Hours in the month the reports use (365 × 24 / 12). */
export const HOURS_PER_MONTH = 730;
