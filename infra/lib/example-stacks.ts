/**
 * The example stacks of the CDK app (infra/bin/flambda-app.ts): the seed's pipelines deployed
 * with {@link StreamPipeline}. Kept apart from the app entry so tests build exactly what
 * `cdk synth` builds.
 */
import { CfnOutput, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import enrichedOrders from '../../examples/lookup/enriched-orders.ts';
import topMerchandise from '../../examples/orders/top-merchandise.ts';
import { StreamPipeline } from './stream-pipeline.ts';

/** Props of {@link TopMerchandiseStack}. */
export interface TopMerchandiseStackProps extends StackProps {
  /** Shards of the source and of the aggregation stage (the Top-N stage is global: 1). @default 2 */
  readonly parallelism?: number;
}

/**
 * examples/orders/top-merchandise.ts on AWS: `orders` records put on the source stream →
 * SUM(quantity) per merchandise (hash exchange) → global Top-10 (single exchange) → the
 * `leaderboard` sink, which prints in the example and is written to a DynamoDB table here
 * (keyed by `ranking`), so the result can be read with a scan.
 */
export class TopMerchandiseStack extends Stack {
  readonly pipeline: StreamPipeline;

  constructor(scope: Construct, id: string, props: TopMerchandiseStackProps = {}) {
    super(scope, id, props);
    this.pipeline = new StreamPipeline(this, 'TopMerchandise', {
      pipeline: topMerchandise,
      parallelism: props.parallelism ?? 2,
      sinkConnectors: { leaderboard: 'dynamodb' },
      // An example: `npm run destroy` should leave nothing behind.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const orders = this.pipeline.sourceStreams.get('orders');
    const leaderboard = this.pipeline.sinkTables.get('leaderboard');
    if (orders !== undefined) new CfnOutput(this, 'OrdersStream', { value: orders.streamName, description: 'put orders here' });
    if (leaderboard !== undefined) new CfnOutput(this, 'LeaderboardTable', { value: leaderboard.tableName, description: 'the Top-10, keyed by ranking' });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: this.pipeline.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'StateTable', { value: this.pipeline.stateTable.tableName });
  }
}

/** Props of {@link EnrichedOrdersStack}. */
export interface EnrichedOrdersStackProps extends StackProps {
  /** Shards of the source and of the lookup stage. @default 2 */
  readonly parallelism?: number;
  /**
   * Names of the existing Secrets Manager secrets holding the two databases' passwords (the
   * MariaDB table `jdbc_table2`, the PostgreSQL table `jdbc_table3`).
   * @default { jdbc_table2: 'flambda/enriched-orders/mysql', jdbc_table3: 'flambda/enriched-orders/postgres' }
   */
  readonly secretNames?: { readonly jdbc_table2: string; readonly jdbc_table3: string };
}

/**
 * The seed's two-dimension-table lookup pipeline (examples/lookup/enriched-orders.ts) on AWS:
 * orders enriched from a MariaDB table that is hashed (`lookup.enable_hash`: an exchange stream
 * routes each user id to one shard) and a PostgreSQL table that is not (looked up where the row
 * already is). The database passwords are existing Secrets Manager secrets, read by the lookup
 * stage only; the enriched rows go to a Kinesis stream.
 */
export class EnrichedOrdersStack extends Stack {
  readonly pipeline: StreamPipeline;

  constructor(scope: Construct, id: string, props: EnrichedOrdersStackProps = {}) {
    super(scope, id, props);
    const names = props.secretNames ?? { jdbc_table2: 'flambda/enriched-orders/mysql', jdbc_table3: 'flambda/enriched-orders/postgres' };
    this.pipeline = new StreamPipeline(this, 'EnrichedOrders', {
      pipeline: enrichedOrders,
      parallelism: props.parallelism ?? 2,
      sinkConnectors: { fs_table: 'kinesis' },
      lookupSecrets: {
        jdbc_table2: secretsmanager.Secret.fromSecretNameV2(this, 'MySqlSecret', names.jdbc_table2),
        jdbc_table3: secretsmanager.Secret.fromSecretNameV2(this, 'PostgresSecret', names.jdbc_table3),
      },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const orders = this.pipeline.sourceStreams.get('orders');
    const out = this.pipeline.sinkStreams.get('fs_table');
    if (orders !== undefined) new CfnOutput(this, 'OrdersStream', { value: orders.streamName, description: 'put orders here' });
    if (out !== undefined) new CfnOutput(this, 'EnrichedStream', { value: out.streamName, description: 'the enriched orders, one JSON changelog line per record' });
  }
}
