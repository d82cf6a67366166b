/**
 * The Flambda CDK app (`cdk.json` runs it with tsx): the example pipelines as stacks.
 *
 * Context (`-c key=value`, infra/lib/example-stacks.ts): `parallelism` (default 2) for both
 * examples; `enrichedOrders:mysqlUrl` and `enrichedOrders:postgresUrl` (and optionally
 * `…Table`, `…Secret`) to synthesize the lookup example, which is left out without them.
 */
import { App, Validations } from 'aws-cdk-lib';
// cdk-nag is CommonJS with re-exported names Node's ESM loader cannot see: import the namespace.
import cdkNag from 'cdk-nag';
import { exampleStacks } from '../lib/example-stacks.ts';

const app = new App();
exampleStacks(app);

// cdk-nag on every synth (a policy validation plugin): an unacknowledged finding fails synth.
Validations.of(app).addPlugins(new cdkNag.AwsSolutionsChecks(app, { verbose: true }));
