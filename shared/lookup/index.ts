/**
 * Lookup (dimension table) joins: the operator, the dimension sources, the cache and the retry
 * layer. Start at {@link createLookupJoinOperator}; see docs/architecture.md ("Lookup join").
 */
export { createLookupJoinOperator, lookupJoinOutputSchema } from './lookup-join.ts';
export type { LookupJoinOperator, LookupJoinOptions } from './lookup-join.ts';
export type { LookupJoinSpec, LookupKeyPair, LookupOutputColumn } from './lookup-join-spec.ts';
export type { DimensionSource } from './dimension-source.ts';
export { encodeLookupKey } from './dimension-source.ts';
export type { FullLookupCacheSpec, LookupCacheSpec, NoLookupCacheSpec, PartialLookupCacheSpec } from './cache-spec.ts';
export type { LookupCacheMetrics } from './cache-metrics.ts';
export { createCachedSource } from './cached-source.ts';
export type { CachedDimensionSource, CachedSourceOptions } from './cached-source.ts';
export { createResilientSource } from './resilient-source.ts';
export type { LookupRetrySpec, ResilientSourceOptions } from './resilient-source.ts';
export { DimensionDataError, classifyLookupError, isTransientLookupError } from './errors.ts';
export type { JdbcConnectionConfig, JdbcSourceConfig } from './jdbc-config.ts';
export { parseJdbcUrl } from './jdbc-config.ts';
export { createMySqlSource } from './jdbc-mysql-source.ts';
export type { MySqlSourceOptions } from './jdbc-mysql-source.ts';
export { createPostgresSource } from './jdbc-postgres-source.ts';
export type { PostgresSourceOptions } from './jdbc-postgres-source.ts';
export { createDynamoDbSource } from './dynamodb-source.ts';
export type { DynamoDbSourceConfig, DynamoDbSourceOptions } from './dynamodb-source.ts';
export { createJsonlSource } from './jsonl-source.ts';
export type { JsonlSourceConfig } from './jsonl-source.ts';
export { createFunctionSource } from './function-source.ts';
export type { FunctionSourceConfig, LookupFunction } from './function-source.ts';
