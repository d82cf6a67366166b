/**
 * Creates the state table, for tests and local runs (the CDK stack creates it on AWS).
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TransientError } from '../../core/errors.ts';
import { sleep } from './concurrency.ts';
import { ATTR } from './constants.ts';
import { toStateError } from './errors.ts';

/** Options of {@link createStateTable}. */
export interface CreateStateTableOptions {
  /**
   * Enable DynamoDB TTL on this attribute (UpdateTimeToLive). dynalite does not implement
   * UpdateTimeToLive; moto and DynamoDB do.
   * @default - TTL is not enabled
   */
  readonly ttlAttribute?: string;
  /** How long to wait for the table to become ACTIVE, ms. @default 30000 */
  readonly timeoutMs?: number;
}

/**
 * Creates a state table — partition key `pk` (S), sort key `sk` (S), on-demand billing
 * (PAY_PER_REQUEST) — unless it exists, waits until it is ACTIVE, and optionally enables TTL.
 *
 * @throws TransientError when the table does not become ACTIVE in time; FlambdaError for other
 * failures.
 */
export async function createStateTable(
  client: Pick<DynamoDBClient, 'send'>,
  tableName: string,
  options: CreateStateTableOptions = {},
): Promise<void> {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [
          { AttributeName: ATTR.pk, AttributeType: 'S' },
          { AttributeName: ATTR.sk, AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: ATTR.pk, KeyType: 'HASH' },
          { AttributeName: ATTR.sk, KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  } catch (error) {
    if ((error as { name?: unknown }).name !== 'ResourceInUseException') throw toStateError(error, `CreateTable '${tableName}'`);
  }
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    let status: string | undefined;
    try {
      status = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.TableStatus;
    } catch (error) {
      throw toStateError(error, `DescribeTable '${tableName}'`);
    }
    if (status === 'ACTIVE') break;
    if (Date.now() > deadline) throw new TransientError(`Table '${tableName}' is still ${status ?? 'missing'} after waiting`);
    await sleep(50);
  }
  if (options.ttlAttribute !== undefined) {
    try {
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: { AttributeName: options.ttlAttribute, Enabled: true },
        }),
      );
    } catch (error) {
      throw toStateError(error, `UpdateTimeToLive on '${tableName}'`);
    }
  }
}
