/**
 * The DynamoDB state backend (import from here; core code never imports the AWS SDK).
 */
export { DynamoDbStateStore } from './dynamodb-state-store.ts';
export type { DynamoDbStateStoreOptions, DynamoDbStateStats, FlushResult } from './dynamodb-state-store.ts';
export { createStateTable } from './create-state-table.ts';
export type { CreateStateTableOptions } from './create-state-table.ts';
export type { DynamoDbSender } from './table-io.ts';
export { isRetryableAwsError, toStateError } from './errors.ts';
export { ATTR, CHUNK_BYTES, DEFAULT_TTL_ATTRIBUTE, MAX_BATCH_WRITE_ITEMS, MAX_ITEM_BYTES } from './constants.ts';
