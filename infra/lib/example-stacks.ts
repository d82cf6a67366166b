/**
 * The example stacks of the CDK app (infra/bin/flambda-app.ts): the seed's pipelines deployed
 * with {@link StreamPipeline}. Kept apart from the app entry so tests build exactly what
 * `cdk synth` builds.
 */
import { CfnOutput, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
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
