/**
 * Orders enriched from two dimension tables, the seed article's pipeline ("Flink SQL 扩展维表
 * Keyby"): one table with `'lookup.enable_hash' = 'true'` (here `hash: true`), one without.
 *
 * ```sql
 * CREATE TABLE jdbc_table2 (id INT, name VARCHAR, description STRING, catalog STRING) WITH (
 *   'connector' = 'jdbc', 'url' = 'jdbc:mysql://127.0.0.1:3306/test', 'table-name' = 'users_mysql',
 *   'lookup.enable_hash' = 'true');                                   -- hashed
 * CREATE TABLE jdbc_table3 (…same columns…) WITH (
 *   'connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:5432/test', 'table-name' = 'users_pg',
 *   'lookup.enable_hash' = 'false');                                  -- forward
 * INSERT INTO fs_table SELECT s1.user_id, s2.name, s3.name, s1.order_amount, s2.description
 * FROM orders s1
 * JOIN jdbc_table2 FOR SYSTEM_TIME AS OF s1.proctime AS s2 ON s1.user_id = s2.id
 * JOIN jdbc_table3 FOR SYSTEM_TIME AS OF s1.proctime AS s3 ON s1.user_id = s3.id;
 * ```
 *
 * The plan has exactly one extra Exchange, `hash[user_id]`, below the hashed join; the second
 * join is chained after the first in the same stage (forward), as in the seed's topology with
 * one table hashed:
 *
 * ```
 * stage-0: source orders                              => hash[user_id]
 * stage-1: LookupJoin(jdbc_table2) -> LookupJoin(jdbc_table3) -> Calc => sink fs_table
 * ```
 *
 * Tables: `npx tsx examples/lookup/setup.ts` creates `users_mysql` in MariaDB (root, no password,
 * database `test`) and `users_pg` in PostgreSQL (postgres, trust, database `test`); URLs and table
 * names can be changed with FLAMBDA_EXAMPLE_{MYSQL,POSTGRES}_{URL,TABLE}. Then:
 *
 * `npx flambda run examples/lookup/enriched-orders.ts --input orders=examples/lookup/orders.jsonl --table`
 *
 * On AWS (infra/lib/example-stacks.ts) the URLs and the secrets holding the passwords come from
 * CDK context instead, through {@link enrichedOrdersPipeline}.
 */
import { Pipeline } from 'flambda';
import { settings } from './setup.ts';

/** Where the two dimension tables are: JDBC URLs (credentials other than the password may be URL parameters) and table names. */
export interface EnrichedOrdersDatabases {
  readonly mysqlUrl: string;
  readonly mysqlTable: string;
  readonly postgresUrl: string;
  readonly postgresTable: string;
}

const USER = { id: 'INT NOT NULL', name: 'STRING', description: 'STRING', catalog: 'STRING' } as const;

/**
 * The pipeline reading the dimension tables at `databases`. The CDK stack builds it from CDK
 * context (infra/lib/example-stacks.ts), so a deployed job graph never names a local database.
 */
export function enrichedOrdersPipeline(databases: EnrichedOrdersDatabases): Pipeline {
  const pipeline = new Pipeline('enriched-orders');

  const jdbcTable2 = pipeline.lookupTable('jdbc_table2', {
    schema: USER,
    source: { jdbc: { url: databases.mysqlUrl, table: databases.mysqlTable } },
    cache: { type: 'PARTIAL', maxRows: 1000 },
    // Each shard sees only its share of user ids, so each cache holds only its share of the table.
    hash: true,
  });

  const jdbcTable3 = pipeline.lookupTable('jdbc_table3', {
    schema: USER,
    source: { jdbc: { url: databases.postgresUrl, table: databases.postgresTable } },
    cache: { type: 'PARTIAL', maxRows: 1000 },
  });

  pipeline
    .source('orders', { schema: { user_id: 'INT', order_amount: 'BIGINT', sname: 'STRING', log_ts: 'TIMESTAMP(3)' } })
    .lookupJoin(jdbcTable2, { on: { user_id: 'id' }, columns: ['name', 'description'] })
    .lookupJoin(jdbcTable3, { on: { user_id: 'id' }, columns: { s3Name: 'name' } })
    .select({ id: 'user_id', name: 'name', s3Name: 's3Name', order_amount: 'order_amount', description: 'description' })
    .sinkTo('fs_table');
  return pipeline;
}

/** The pipeline over the local databases of setup.ts (`flambda run`, `flambda local`). */
export default enrichedOrdersPipeline(settings());
