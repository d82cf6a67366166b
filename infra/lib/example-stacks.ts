/**
 * The example stacks of the CDK app (infra/bin/flambda-app.ts): the seed's pipelines deployed
 * with {@link StreamPipeline}. Kept apart from the app entry so tests build exactly what
 * `cdk synth` builds.
 */
import { Annotations, CfnOutput, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { App, StackProps } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type { Construct } from 'constructs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { enrichedOrdersPipeline } from '../../examples/lookup/enriched-orders.ts';
import type { EnrichedOrdersDatabases } from '../../examples/lookup/enriched-orders.ts';
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
      // The orders generator serves local runs; on AWS the orders are put on the stream (the output below).
      externalSources: ['orders'],
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
   * The two databases (JDBC URLs and tables), as the deployed functions reach them: the URLs go
   * into the job graph, so they must name hosts the functions can reach (not 127.0.0.1).
   */
  readonly databases: EnrichedOrdersDatabases;
  /**
   * Names of the existing Secrets Manager secrets holding the two databases' passwords (the
   * MariaDB table `jdbc_table2`, the PostgreSQL table `jdbc_table3`).
   * @default { jdbc_table2: 'flambda/enriched-orders/mysql', jdbc_table3: 'flambda/enriched-orders/postgres' }
   */
  readonly secretNames?: { readonly jdbc_table2: string; readonly jdbc_table3: string };
  /** The VPC of private databases: the lookup stage runs in it (see StreamPipeline's `vpc`). @default - no VPC */
  readonly vpc?: ec2.IVpc;
  /** Subnets of the lookup stage in `vpc`. @default - the VPC's private subnets */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /** Security groups of the lookup stage in `vpc`. @default - one created for it */
  readonly securityGroups?: readonly ec2.ISecurityGroup[];
}

/** Default secret names of the two databases' passwords. */
export const ENRICHED_ORDERS_SECRETS = { jdbc_table2: 'flambda/enriched-orders/mysql', jdbc_table3: 'flambda/enriched-orders/postgres' } as const;

/**
 * The seed's two-dimension-table lookup pipeline (examples/lookup/enriched-orders.ts) on AWS:
 * orders enriched from a MariaDB table that is hashed (`lookup.enable_hash`: an exchange stream
 * routes each user id to one shard) and a PostgreSQL table that is not (looked up where the row
 * already is). The databases are the given ones; their passwords are existing Secrets Manager
 * secrets, read by the lookup stage only; the enriched rows go to a Kinesis stream.
 */
export class EnrichedOrdersStack extends Stack {
  readonly pipeline: StreamPipeline;

  constructor(scope: Construct, id: string, props: EnrichedOrdersStackProps) {
    super(scope, id, props);
    const names = props.secretNames ?? ENRICHED_ORDERS_SECRETS;
    for (const url of [props.databases.mysqlUrl, props.databases.postgresUrl]) {
      if (/^jdbc:[a-z]+:\/\/(127\.|localhost[:/]|\[::1\])/.test(url)) {
        Annotations.of(this).addWarningV2('@flambda/loopback-database', `${url} names this machine: a deployed function cannot reach it (give the database's address in CDK context)`);
      }
    }
    this.pipeline = new StreamPipeline(this, 'EnrichedOrders', {
      pipeline: enrichedOrdersPipeline(props.databases),
      parallelism: props.parallelism ?? 2,
      sinkConnectors: { fs_table: 'kinesis' },
      lookupSecrets: {
        jdbc_table2: secretsmanager.Secret.fromSecretNameV2(this, 'MySqlSecret', names.jdbc_table2),
        jdbc_table3: secretsmanager.Secret.fromSecretNameV2(this, 'PostgresSecret', names.jdbc_table3),
      },
      ...(props.vpc !== undefined ? { vpc: props.vpc } : {}),
      ...(props.vpcSubnets !== undefined ? { vpcSubnets: props.vpcSubnets } : {}),
      ...(props.securityGroups !== undefined ? { securityGroups: props.securityGroups } : {}),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const orders = this.pipeline.sourceStreams.get('orders');
    const out = this.pipeline.sinkStreams.get('fs_table');
    if (orders !== undefined) new CfnOutput(this, 'OrdersStream', { value: orders.streamName, description: 'put orders here' });
    if (out !== undefined) new CfnOutput(this, 'EnrichedStream', { value: out.streamName, description: 'the enriched orders, one JSON changelog line per record' });
  }
}

/** CDK context keys of the example app (`cdk deploy -c key=value`). */
export const EXAMPLE_CONTEXT = {
  /** Shards of the examples' source and keyed stages. */
  parallelism: 'parallelism',
  mysqlUrl: 'enrichedOrders:mysqlUrl',
  mysqlTable: 'enrichedOrders:mysqlTable',
  mysqlSecret: 'enrichedOrders:mysqlSecret',
  postgresUrl: 'enrichedOrders:postgresUrl',
  postgresTable: 'enrichedOrders:postgresTable',
  postgresSecret: 'enrichedOrders:postgresSecret',
} as const;

/** The stacks {@link exampleStacks} created; `enrichedOrders` only when its databases are in the context. */
export interface ExampleStacks {
  readonly topMerchandise: TopMerchandiseStack;
  readonly enrichedOrders: EnrichedOrdersStack | undefined;
}

/**
 * The example app's stacks (infra/bin/flambda-app.ts), configured from CDK context (see
 * {@link EXAMPLE_CONTEXT}): FlambdaTopMerchandise always; FlambdaEnrichedOrders when both
 * database URLs are given (`-c enrichedOrders:mysqlUrl=jdbc:mysql://db:3306/shop?user=app
 * -c enrichedOrders:postgresUrl=…`), with the tables `users_mysql` / `users_pg` and the secrets of
 * {@link ENRICHED_ORDERS_SECRETS} unless the context names others.
 */
export function exampleStacks(app: App): ExampleStacks {
  const context = (key: string): string | undefined => {
    const value: unknown = app.node.tryGetContext(key);
    return value === undefined || value === null || String(value).trim() === '' ? undefined : String(value);
  };
  const parallelism = Number(context(EXAMPLE_CONTEXT.parallelism) ?? 2);
  const topMerchandise = new TopMerchandiseStack(app, 'FlambdaTopMerchandise', {
    description: 'Flambda example: live Top-10 merchandise by total quantity (examples/orders/top-merchandise.ts)',
    parallelism,
  });
  const mysqlUrl = context(EXAMPLE_CONTEXT.mysqlUrl);
  const postgresUrl = context(EXAMPLE_CONTEXT.postgresUrl);
  if (mysqlUrl === undefined || postgresUrl === undefined) {
    Annotations.of(topMerchandise).addInfo(
      `FlambdaEnrichedOrders is not synthesized: give its databases with -c ${EXAMPLE_CONTEXT.mysqlUrl}=jdbc:mysql://… -c ${EXAMPLE_CONTEXT.postgresUrl}=jdbc:postgresql://… (docs/deploying.md)`,
    );
    return { topMerchandise, enrichedOrders: undefined };
  }
  const enrichedOrders = new EnrichedOrdersStack(app, 'FlambdaEnrichedOrders', {
    description: "Flambda example: the seed's two-dimension-table lookup join, one table hashed (examples/lookup/enriched-orders.ts)",
    parallelism,
    databases: { mysqlUrl, mysqlTable: context(EXAMPLE_CONTEXT.mysqlTable) ?? 'users_mysql', postgresUrl, postgresTable: context(EXAMPLE_CONTEXT.postgresTable) ?? 'users_pg' },
    secretNames: {
      jdbc_table2: context(EXAMPLE_CONTEXT.mysqlSecret) ?? ENRICHED_ORDERS_SECRETS.jdbc_table2,
      jdbc_table3: context(EXAMPLE_CONTEXT.postgresSecret) ?? ENRICHED_ORDERS_SECRETS.jdbc_table3,
    },
  });
  return { topMerchandise, enrichedOrders };
}
