/**
 * Builds operator instances from job-graph operator specs. Adding an operator type to the
 * runtimes is one entry here plus its spec type in shared/plan/job-graph.ts.
 */
import type { JobOperator } from '../plan/job-graph.ts';
import type { LookupSourceDescriptor } from '../plan/logical.ts';
import type { Row, Schema } from '../core/types.ts';
import type { DimensionSource } from '../lookup/dimension-source.ts';
import type { DynamoDbSourceOptions } from '../lookup/dynamodb-source.ts';
import { createFunctionSource, type LookupFunction } from '../lookup/function-source.ts';
import { parseJdbcUrl, resolveCredentials, validateJdbcConfig } from '../lookup/jdbc-config.ts';
import { lazyDimensionSource } from '../lookup/lazy-source.ts';
import { createJsonlSource } from '../lookup/jsonl-source.ts';
import { createLookupJoinOperator } from '../lookup/lookup-join.ts';
import type { UdfRegistry } from '../plan/expr-compile.ts';
import { createGroupAggregateOperator } from './aggregate/group-aggregate.ts';
import { createCalcOperator } from './calc/calc-operator.ts';
import { createDeduplicateOperator } from './dedup/deduplicate-operator.ts';
import { createCorrelateOperator } from './correlate/correlate-operator.ts';
import { createMapOperator } from './map/map-operator.ts';
import { createRankOperator } from './rank/rank-operator.ts';
import type { Operator } from './operator.ts';
import { createConstraintEnforcer } from './sink/constraint-enforcer.ts';
import { createUnionOperator } from './union/union-operator.ts';
import { createOverAggregateOperator } from './over/over-aggregate.ts';
import { createTemporalSortOperator } from './sort/temporal-sort.ts';
import { PlanError } from '../core/errors.ts';
import { createWindowAggregateOperator, createWindowProcessOperator, type WindowProcessFunction } from './window/index.ts';
import { createUnalignedWindowTableFunctionOperator, createWindowDeduplicateOperator, createWindowRankOperator, createWindowTableFunctionOperator } from './window-rank/index.ts';
import { createIntervalJoinOperator, createStreamingJoinOperator, createTemporalJoinOperator, createWindowJoinOperator } from './join/index.ts';

/** User code a job may reference: scalar/row functions by registry reference. */
export interface UserCode {
  readonly functions: ReadonlyMap<string, unknown>;
  /**
   * Builds the dimension source of a LookupJoin operator; runtimes inject one to bind files,
   * share clients or resolve secrets. @default {@link createDimensionSource} with `process.env`
   */
  readonly lookupSources?: DimensionSourceFactory;
}

/** What a dimension source factory is told besides the descriptor. */
export interface DimensionSourceContext {
  /** The lookup table's name. */
  readonly table: string;
  /** The dimension schema (columns read and their types). */
  readonly schema: Schema;
  /** The LookupJoin operator the source is for. */
  readonly operatorId: string;
  /** The pipeline module's user functions (function sources). */
  readonly functions: ReadonlyMap<string, unknown>;
}

/** Builds one operator instance's dimension source; the operator closes it when it closes. */
export type DimensionSourceFactory = (descriptor: LookupSourceDescriptor, context: DimensionSourceContext) => DimensionSource;

/** Settings of {@link createDimensionSource}. */
export interface DimensionSourceSettings {
  /** Environment `passwordFrom` is read from. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** JSON-lines file per lookup table name (`--input side_input=…`); overrides a descriptor's path. */
  readonly jsonlPaths?: ReadonlyMap<string, string>;
  /** Options handed to DynamoDB sources (e.g. a client shared by every source of a container). */
  readonly dynamoDb?: DynamoDbSourceOptions;
  /**
   * Resolves `secretArn` of a JDBC source to the password (on AWS: shared/aws/lookup/secrets.ts,
   * read at cold start). Without it such a source is a PlanError.
   */
  readonly resolveSecret?: (arn: string, table: string) => string;
}

/**
 * The default dimension source factory: JDBC (MySQL/MariaDB by `jdbc:mysql:`/`jdbc:mariadb:`,
 * PostgreSQL by `jdbc:postgresql:`), DynamoDB, JSON lines and user functions.
 *
 * @throws PlanError for an unbound JSON-lines table, a missing user function, an unset
 *   `passwordFrom` variable or an unresolvable `secretArn`.
 */
export function createDimensionSource(descriptor: LookupSourceDescriptor, context: DimensionSourceContext, settings: DimensionSourceSettings = {}): DimensionSource {
  const { table, schema } = context;
  switch (descriptor.type) {
    case 'jsonl': {
      const path = settings.jsonlPaths?.get(table) ?? descriptor.path;
      if (path === undefined) throw new PlanError(`lookup table '${table}' has no file: pass --input ${table}=<file.jsonl>`);
      return createJsonlSource({ table, path, schema });
    }
    case 'function': {
      const lookup = context.functions.get(descriptor.ref);
      const name = descriptor.display ?? descriptor.ref;
      if (typeof lookup !== 'function') throw new PlanError(`lookup table '${table}': lookup function ${name} (${descriptor.ref}) is not in the pipeline module`);
      const loadAll = descriptor.loadAllRef === undefined ? undefined : context.functions.get(descriptor.loadAllRef);
      if (descriptor.loadAllRef !== undefined && typeof loadAll !== 'function') {
        throw new PlanError(`lookup table '${table}': loadAll function (${descriptor.loadAllRef}) is not in the pipeline module`);
      }
      return createFunctionSource({
        table,
        schema,
        lookup: lookup as LookupFunction,
        ...(loadAll === undefined ? {} : { loadAll: loadAll as () => Iterable<Row> | Promise<Iterable<Row>> }),
      });
    }
    // Connectors with an SDK or a driver are imported when first used (lookup/lazy-source.ts).
    case 'dynamodb': {
      const config = { table: descriptor.table, schema, ...(descriptor.mode !== undefined ? { mode: descriptor.mode } : {}), ...(descriptor.indexName !== undefined ? { indexName: descriptor.indexName } : {}) };
      return lazyDimensionSource(table, async () => (await import('../lookup/dynamodb-source.ts')).createDynamoDbSource(config, settings.dynamoDb ?? {}));
    }
    case 'jdbc': {
      const env = settings.env ?? process.env;
      let password: string | undefined;
      if (descriptor.secretArn !== undefined && descriptor.passwordFrom === undefined) {
        if (settings.resolveSecret === undefined) {
          throw new PlanError(
            `lookup table '${table}': secretArn needs a Secrets Manager resolver, which this runtime does not have; ` +
              `put the password in an environment variable and name it in passwordFrom`,
          );
        }
        password = settings.resolveSecret(descriptor.secretArn, table);
      }
      const config = {
        url: descriptor.url,
        table: descriptor.table,
        schema,
        ...(descriptor.user !== undefined ? { user: descriptor.user } : {}),
        ...(descriptor.passwordFrom !== undefined ? { passwordFrom: descriptor.passwordFrom } : {}),
        ...(password !== undefined ? { password } : {}),
      };
      // Configuration errors (a bad URL, an unset passwordFrom variable) surface now, before the driver loads.
      validateJdbcConfig(config);
      const url = parseJdbcUrl(descriptor.url);
      resolveCredentials(config, url, env);
      return url.protocol === 'postgresql'
        ? lazyDimensionSource(table, async () => (await import('../lookup/jdbc-postgres-source.ts')).createPostgresSource(config, { env }))
        : lazyDimensionSource(table, async () => (await import('../lookup/jdbc-mysql-source.ts')).createMySqlSource(config, { env }));
    }
  }
}

/** Creates a fresh operator instance for one shard. */
export function createOperator(op: JobOperator, code: UserCode): Operator {
  switch (op.type) {
    case 'Calc':
      return createCalcOperator(op.spec, op.inputSchema, code.functions as UdfRegistry);
    case 'Map':
      return createMapOperator(op.spec, code.functions);
    case 'Correlate':
      return createCorrelateOperator(op.spec, op.inputSchema, code.functions);
    case 'GroupAggregate':
      return createGroupAggregateOperator(op.spec, op.inputSchema, code.functions);
    case 'Rank':
      return createRankOperator(op.spec, op.inputSchema);
    case 'Deduplicate':
      return createDeduplicateOperator(op.spec, op.inputSchema);
    case 'OverAggregate':
      return createOverAggregateOperator(op.spec, op.inputSchema);
    case 'TemporalSort':
      return createTemporalSortOperator(op.spec, op.inputSchema);
    case 'WindowAggregate':
      return createWindowAggregateOperator(op.spec, op.inputSchema, { functions: code.functions });
    case 'WindowProcess': {
      const fn = code.functions.get(op.spec.ref);
      if (typeof fn !== 'function') {
        throw new PlanError(`${op.id}: window function ${op.spec.display} (${op.spec.ref}) is not in the pipeline module`);
      }
      return createWindowProcessOperator(op.spec, op.inputSchema, fn as WindowProcessFunction);
    }
    case 'WindowTableFunction':
      return createWindowTableFunctionOperator(op.spec, op.inputSchema);
    case 'UnalignedWindowTableFunction':
      return createUnalignedWindowTableFunctionOperator(op.spec, op.inputSchema);
    case 'WindowRank':
      return createWindowRankOperator(op.spec, op.inputSchema);
    case 'WindowDeduplicate':
      return createWindowDeduplicateOperator(op.spec, op.inputSchema);
    case 'LookupJoin': {
      // One source (and so one cache) per operator instance: a shard's cache lives as long as
      // its operator, which on AWS is the warm container's shard task.
      const { source: descriptor, ...spec } = op.spec;
      const context: DimensionSourceContext = { table: spec.table, schema: spec.dimensionSchema, operatorId: op.id, functions: code.functions };
      const source = code.lookupSources ? code.lookupSources(descriptor, context) : createDimensionSource(descriptor, context);
      return createLookupJoinOperator(spec, op.inputSchema, source, { udfs: code.functions as UdfRegistry });
    }
    case 'Join':
      return createStreamingJoinOperator(op.spec, code.functions as UdfRegistry);
    case 'IntervalJoin':
      return createIntervalJoinOperator(op.spec, code.functions as UdfRegistry);
    case 'TemporalJoin':
      return createTemporalJoinOperator(op.spec, code.functions as UdfRegistry);
    case 'WindowJoin':
      return createWindowJoinOperator(op.spec, code.functions as UdfRegistry);
    case 'Union':
      return createUnionOperator();
    case 'ConstraintEnforcer':
      return createConstraintEnforcer(op.spec);
  }
}
