/**
 * The two DynamoDB calls the state backend makes: a paginated, strongly consistent Query of one
 * partition key, and BatchWriteItem in groups of 25 with retries of UnprocessedItems.
 */
import { BatchWriteItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { AttributeValue, ConsumedCapacity, DynamoDBClient, WriteRequest } from '@aws-sdk/client-dynamodb';
import { TransientError } from '../../core/errors.ts';
import { backoffDelay, forEachLimited } from './concurrency.ts';
import type { BackoffOptions } from './concurrency.ts';
import { MAX_BATCH_WRITE_ITEMS } from './constants.ts';
import { toStateError } from './errors.ts';
import type { Item } from './item-codec.ts';

/** What the backend needs of a DynamoDB client (a `DynamoDBClient`, or a test double). */
export type DynamoDbSender = Pick<DynamoDBClient, 'send'>;

/** Request counters, bumped in place. */
export interface IoCounters {
  readRequests: number;
  readItems: number;
  readCapacityUnits: number;
  writeRequests: number;
  writeItems: number;
  writeRetries: number;
  writeCapacityUnits: number;
}

/** Zeroed {@link IoCounters}. */
export function newIoCounters(): IoCounters {
  return { readRequests: 0, readItems: 0, readCapacityUnits: 0, writeRequests: 0, writeItems: 0, writeRetries: 0, writeCapacityUnits: 0 };
}

function capacity(consumed: ConsumedCapacity | readonly ConsumedCapacity[] | undefined): number {
  if (consumed === undefined) return 0;
  if (!Array.isArray(consumed)) return (consumed as ConsumedCapacity).CapacityUnits ?? 0;
  let total = 0;
  for (const c of consumed as readonly ConsumedCapacity[]) total += c.CapacityUnits ?? 0;
  return total;
}

/**
 * Every item of partition key `pk`, following LastEvaluatedKey (a Query page stops at 1 MB).
 * Reads are strongly consistent: an eventually consistent read may miss this very store's last
 * flush, after an eviction or an invalidate(), and state would go back in time.
 *
 * @throws TransientError for throttling and other retryable failures; FlambdaError otherwise.
 */
export async function queryPartition(client: DynamoDbSender, tableName: string, pk: string, counters: IoCounters): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    let page;
    try {
      page = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': 'pk' },
          ExpressionAttributeValues: { ':pk': { S: pk } },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
    } catch (error) {
      throw toStateError(error, `Query of ${JSON.stringify(pk)} on table '${tableName}'`);
    }
    counters.readRequests++;
    counters.readCapacityUnits += capacity(page.ConsumedCapacity);
    for (const item of page.Items ?? []) items.push(item);
    counters.readItems += page.Items?.length ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return items;
}

/** How {@link batchWrite} sends and retries. */
export interface BatchWriteOptions extends BackoffOptions {
  readonly client: DynamoDbSender;
  readonly tableName: string;
  /** BatchWriteItem calls in flight at once. */
  readonly concurrency: number;
  /** Calls per group of 25, the first included, before giving up on UnprocessedItems. */
  readonly maxAttempts: number;
  readonly sleep: (ms: number) => Promise<void>;
}

/**
 * Writes `requests` with BatchWriteItem, 25 per call, `concurrency` calls at once. DynamoDB may
 * accept a call yet return some items as UnprocessedItems (throttling, or the 16 MB request
 * cap); those are resent after a full-jitter backoff, up to `maxAttempts` calls per group.
 * Requests must name distinct items: BatchWriteItem rejects two operations on one item.
 *
 * @throws TransientError when items stay unprocessed after `maxAttempts` calls, or for
 * retryable SDK failures; FlambdaError otherwise.
 */
export async function batchWrite(requests: readonly WriteRequest[], options: BatchWriteOptions, counters: IoCounters): Promise<void> {
  const groups: WriteRequest[][] = [];
  for (let i = 0; i < requests.length; i += MAX_BATCH_WRITE_ITEMS) groups.push(requests.slice(i, i + MAX_BATCH_WRITE_ITEMS));
  await forEachLimited(groups, options.concurrency, (group) => writeGroup(group, options, counters));
}

async function writeGroup(group: WriteRequest[], options: BatchWriteOptions, counters: IoCounters): Promise<void> {
  const { client, tableName } = options;
  let pending = group;
  for (let attempt = 1; ; attempt++) {
    let response;
    try {
      response = await client.send(
        new BatchWriteItemCommand({ RequestItems: { [tableName]: pending }, ReturnConsumedCapacity: 'TOTAL' }),
      );
    } catch (error) {
      throw toStateError(error, `BatchWriteItem of ${pending.length} items on table '${tableName}'`);
    }
    counters.writeRequests++;
    counters.writeCapacityUnits += capacity(response.ConsumedCapacity);
    const unprocessed = response.UnprocessedItems?.[tableName] ?? [];
    counters.writeItems += pending.length - unprocessed.length;
    if (unprocessed.length === 0) return;
    if (attempt >= options.maxAttempts) {
      throw new TransientError(
        `BatchWriteItem on table '${tableName}' left ${unprocessed.length} of ${group.length} items unprocessed after ${attempt} attempts`,
      );
    }
    counters.writeRetries++;
    pending = unprocessed;
    await options.sleep(backoffDelay(attempt - 1, options));
  }
}
