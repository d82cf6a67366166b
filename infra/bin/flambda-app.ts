/**
 * The Flambda CDK app (`cdk.json` runs it with tsx): the example pipelines as stacks.
 *
 * Context (`-c key=value`): `parallelism` (default 2) for the Top-N example.
 */
import { App, Validations } from 'aws-cdk-lib';
// cdk-nag is CommonJS with re-exported names Node's ESM loader cannot see: import the namespace.
import cdkNag from 'cdk-nag';
import { EnrichedOrdersStack, TopMerchandiseStack } from '../lib/example-stacks.ts';

const app = new App();
const parallelism = Number(app.node.tryGetContext('parallelism') ?? 2);

new TopMerchandiseStack(app, 'FlambdaTopMerchandise', {
  description: 'Flambda example: live Top-10 merchandise by total quantity (examples/orders/top-merchandise.ts)',
  parallelism,
});

new EnrichedOrdersStack(app, 'FlambdaEnrichedOrders', {
  description: "Flambda example: the seed's two-dimension-table lookup join, one table hashed (examples/lookup/enriched-orders.ts)",
  parallelism,
});

// cdk-nag on every synth (a policy validation plugin): an unacknowledged finding fails synth.
Validations.of(app).addPlugins(new cdkNag.AwsSolutionsChecks(app, { verbose: true }));
