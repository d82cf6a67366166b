/**
 * The example CDK app deployed as a user deploys it, to moto_server's CloudFormation: `cdk synth`
 * of infra/bin/flambda-app.ts, then `cdklocal bootstrap` and `cdklocal deploy --all` against a
 * moto_server started here on 127.0.0.1 (endpoint `http://localhost:PORT`: with `127.0.0.1`,
 * moto reads `127` as an S3 bucket name), and what was deployed read back through the APIs.
 *
 * What moto does not model, and what the test does about it:
 *
 * - Resource types its CloudFormation does not implement ({@link UNMODELLED_RESOURCE_TYPES}) are
 *   taken out of the synthesized templates before the deploy, with the resources that refer to
 *   them (the dashboard shows the alarms), and listed in the output. The real templates are
 *   checked by test/infra (assertions, cdk-nag, cfn-lint).
 * - moto delivers every record put on a stream with an event source mapping to the mapped
 *   function through a container engine, synchronously inside PutRecords. The records must
 *   reach the bundles through the local event source mapping instead (which models retries,
 *   record age, skipping and the on-failure destination), and a second delivery by moto would
 *   run the function twice. Its documented switch, `POST /moto-api/config {"lambda":
 *   {"use_docker": false}}`, does not help here: moto 5.2 then looks the mapped function up in
 *   its Docker-less Lambda backend, where functions created by CloudFormation do not exist, and
 *   fails every PutRecords with ResourceNotFoundException. So the server gets a DOCKER_HOST that
 *   leads nowhere ({@link NO_CONTAINER_ENGINE}): moto's delivery fails at once (and is logged
 *   and dropped by moto) on every machine, with or without a container engine.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CloudFormationClient, DescribeStacksCommand, ListStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import type { StackResourceSummary } from '@aws-sdk/client-cloudformation';
import { GetRolePolicyCommand, IAMClient, ListRolePoliciesCommand } from '@aws-sdk/client-iam';
import { GetFunctionConfigurationCommand, LambdaClient, ListEventSourceMappingsCommand } from '@aws-sdk/client-lambda';
import type { EventSourceMappingConfiguration, FunctionConfiguration } from '@aws-sdk/client-lambda';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { startMotoServer } from '../aws/dynamodb-emulator.ts';
import type { DynamoDbEmulator } from '../aws/dynamodb-emulator.ts';

/** The repository root (where cdk.json and node_modules are). */
export const REPO_ROOT = resolve(fileURLToPath(import.meta.url), '../../..');

/** Resource types moto's CloudFormation does not implement: filtered out of the templates, in this test only. */
export const UNMODELLED_RESOURCE_TYPES: readonly string[] = ['AWS::CloudWatch::Alarm', 'AWS::SQS::QueuePolicy', 'AWS::CDK::Metadata'];

/** A Docker endpoint that cannot exist, so moto never reaches a container engine (see the module header). */
export const NO_CONTAINER_ENGINE = 'unix:///nonexistent/flambda-test-deploy/docker.sock';

export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';

/** Credentials that pass while moto does not enforce IAM. */
export const ROOT_CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' } as const;

/** A running moto_server. */
export interface Moto {
  /** `http://localhost:PORT`. */
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** Starts moto_server with no way to a container engine. */
export async function startMoto(): Promise<Moto> {
  const server: DynamoDbEmulator = await startMotoServer(30_000, { ...process.env, DOCKER_HOST: NO_CONTAINER_ENGINE });
  return { endpoint: server.endpoint.replace('127.0.0.1', 'localhost'), stop: () => server.stop() };
}

/** SDK client settings for moto with the given credentials. */
export function clientConfig(endpoint: string, credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } = ROOT_CREDENTIALS) {
  return { endpoint, region: REGION, credentials, requestHandler: new NodeHttpHandler({ connectionTimeout: 3_000, requestTimeout: 30_000 }), maxAttempts: 2 };
}

/** Runs a command; resolves with its output, rejects with its last lines when it fails. */
export function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd = REPO_ROOT): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', fail);
    child.once('exit', (code) => (code === 0 ? done(output) : fail(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output.split('\n').slice(-25).join('\n')}`))));
  });
}

/** The environment of the CDK CLI: offline, and (for cdklocal) pointed at moto. */
export function cdkEnvironment(endpoint?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CDK_DISABLE_VERSION_CHECK: '1', CDK_DISABLE_CLI_TELEMETRY: 'true' };
  for (const key of Object.keys(env)) if (key.startsWith('AWS_')) delete env[key];
  if (endpoint !== undefined) Object.assign(env, { AWS_ENDPOINT_URL: endpoint, AWS_ENDPOINT_URL_S3: endpoint, AWS_REGION: REGION, AWS_DEFAULT_REGION: REGION });
  return env;
}

const bin = (name: string): string => join(REPO_ROOT, 'node_modules/.bin', name);

/**
 * `cdk synth` of the example app into `outdir`, with `context`. The CDK's own CloudFormation
 * schema validation is off (CDK_VALIDATION=false, as in test/infra): cfn-lint checks the same
 * templates there; cdk-nag still runs as the app's validation plugin.
 */
export async function synthesize(outdir: string, context: Readonly<Record<string, string>>): Promise<void> {
  const args = ['synth', '--quiet', '--no-notices', '-o', outdir, ...Object.entries(context).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  await run(bin('cdk'), args, { ...cdkEnvironment(), CDK_VALIDATION: 'false' });
}

/** Every logical id a value refers to (Ref, Fn::GetAtt, ${X} in Fn::Sub). */
function references(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) references(v, into);
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Ref' && typeof inner === 'string') into.add(inner);
      else if (key === 'Fn::GetAtt') into.add(Array.isArray(inner) ? String(inner[0]) : String(inner).split('.')[0] as string);
      else if (key === 'Fn::Sub') {
        const text = Array.isArray(inner) ? inner[0] : inner;
        for (const m of String(text).matchAll(/\$\{([A-Za-z0-9]+)(?:\.[A-Za-z]+)?\}/g)) into.add(m[1] as string);
        if (Array.isArray(inner)) references(inner[1], into);
      } else references(inner, into);
    }
  }
  return into;
}

/** What was taken out of one template. */
export interface FilteredResource {
  readonly stack: string;
  readonly logicalId: string;
  readonly type: string;
  /** Why: an unmodelled type, or the filtered resource it refers to. */
  readonly reason: string;
}

/**
 * Takes {@link UNMODELLED_RESOURCE_TYPES} out of every template in `outdir`, with the resources
 * and outputs that refer to them (transitively) and their DependsOn entries.
 */
export function filterUnmodelled(outdir: string): FilteredResource[] {
  const removed: FilteredResource[] = [];
  for (const file of readdirSync(outdir).filter((f) => f.endsWith('.template.json'))) {
    const path = join(outdir, file);
    const template = JSON.parse(readFileSync(path, 'utf8')) as { Resources: Record<string, { Type: string; Properties?: unknown; DependsOn?: string | string[] }>; Outputs?: Record<string, unknown> };
    const stack = file.replace(/\.template\.json$/, '');
    const gone = new Map<string, string>();
    for (const [id, r] of Object.entries(template.Resources)) if (UNMODELLED_RESOURCE_TYPES.includes(r.Type)) gone.set(id, 'not modelled by moto');
    for (let changed = true; changed; ) {
      changed = false;
      for (const [id, r] of Object.entries(template.Resources)) {
        if (gone.has(id)) continue;
        const target = [...references(r.Properties)].find((ref) => gone.has(ref));
        if (target !== undefined) {
          gone.set(id, `refers to ${target}`);
          changed = true;
        }
      }
    }
    for (const [id, reason] of gone) {
      removed.push({ stack, logicalId: id, type: (template.Resources[id] as { Type: string }).Type, reason });
      delete template.Resources[id];
    }
    for (const r of Object.values(template.Resources)) {
      if (Array.isArray(r.DependsOn)) r.DependsOn = r.DependsOn.filter((d) => !gone.has(d));
      else if (r.DependsOn !== undefined && gone.has(r.DependsOn)) delete r.DependsOn;
    }
    for (const [name, output] of Object.entries(template.Outputs ?? {})) if ([...references(output)].some((ref) => gone.has(ref))) delete template.Outputs?.[name];
    writeFileSync(path, JSON.stringify(template, null, 1));
  }
  return removed;
}

/** `cdklocal bootstrap` and `cdklocal deploy --all` of the synthesized app in `outdir`; returns the CLI's output. */
export async function deploy(outdir: string, endpoint: string): Promise<string> {
  const env = cdkEnvironment(endpoint);
  // --app with the synthesized directory: neither command synthesizes again.
  const bootstrap = await run(bin('cdklocal'), ['bootstrap', `aws://${ACCOUNT}/${REGION}`, '--app', outdir, '--no-notices'], env);
  const deployed = await run(bin('cdklocal'), ['deploy', '--all', '--app', outdir, '--require-approval', 'never', '--no-notices', '--progress', 'events'], env);
  return `${bootstrap}\n${deployed}`;
}

/** A deployed function, read back from the Lambda, IAM and CloudFormation APIs. */
export interface DeployedFunction {
  readonly stack: string;
  readonly logicalId: string;
  readonly configuration: FunctionConfiguration;
  readonly environment: Readonly<Record<string, string>>;
  /** Its execution role's inline policies, by name. */
  readonly policies: ReadonlyMap<string, { Statement: { Action: string | string[]; Effect: string; Resource: unknown }[] }>;
  readonly roleName: string;
  readonly mappings: readonly EventSourceMappingConfiguration[];
  /** The bundle in cdk.out (the template's `aws:asset:path`). */
  readonly assetDir: string;
}

/** A deployed stack. */
export interface DeployedStack {
  readonly name: string;
  readonly status: string;
  readonly resources: readonly StackResourceSummary[];
}

/** Reads back the stacks and their functions. */
export async function readBack(endpoint: string, outdir: string, stackNames: readonly string[]): Promise<{ stacks: DeployedStack[]; functions: DeployedFunction[] }> {
  const cfn = new CloudFormationClient(clientConfig(endpoint));
  const lambda = new LambdaClient(clientConfig(endpoint));
  const iam = new IAMClient(clientConfig(endpoint));
  try {
    const stacks: DeployedStack[] = [];
    const functions: DeployedFunction[] = [];
    // All mappings, matched to functions by ARN (moto's FunctionName filter does not match ARNs).
    const allMappings: EventSourceMappingConfiguration[] = [];
    let marker: string | undefined;
    do {
      const page = await lambda.send(new ListEventSourceMappingsCommand({ Marker: marker }));
      allMappings.push(...(page.EventSourceMappings ?? []));
      marker = page.NextMarker;
    } while (marker !== undefined);
    for (const name of stackNames) {
      const status = (await cfn.send(new DescribeStacksCommand({ StackName: name }))).Stacks?.[0]?.StackStatus ?? 'UNKNOWN';
      const resources: StackResourceSummary[] = [];
      let token: string | undefined;
      do {
        const page = await cfn.send(new ListStackResourcesCommand({ StackName: name, NextToken: token }));
        resources.push(...(page.StackResourceSummaries ?? []));
        token = page.NextToken;
      } while (token !== undefined);
      stacks.push({ name, status, resources });
      const template = JSON.parse(readFileSync(join(outdir, `${name}.template.json`), 'utf8')) as { Resources: Record<string, { Type: string; Metadata?: Record<string, unknown> }> };
      for (const r of resources.filter((x) => x.ResourceType === 'AWS::Lambda::Function')) {
        const configuration = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: r.PhysicalResourceId }));
        const roleName = (configuration.Role ?? '').split('/').pop() as string;
        const policies = new Map<string, { Statement: { Action: string | string[]; Effect: string; Resource: unknown }[] }>();
        for (const policyName of (await iam.send(new ListRolePoliciesCommand({ RoleName: roleName }))).PolicyNames ?? []) {
          const document = (await iam.send(new GetRolePolicyCommand({ RoleName: roleName, PolicyName: policyName }))).PolicyDocument ?? '{}';
          policies.set(policyName, JSON.parse(decodeURIComponent(document)) as { Statement: { Action: string | string[]; Effect: string; Resource: unknown }[] });
        }
        const mappings = allMappings.filter((m) => m.FunctionArn === configuration.FunctionArn);
        const assetPath = template.Resources[r.LogicalResourceId as string]?.Metadata?.['aws:asset:path'];
        if (typeof assetPath !== 'string') throw new Error(`${name}/${r.LogicalResourceId} has no aws:asset:path`);
        functions.push({
          stack: name,
          logicalId: r.LogicalResourceId as string,
          configuration,
          environment: configuration.Environment?.Variables ?? {},
          policies,
          roleName,
          mappings,
          assetDir: join(outdir, assetPath),
        });
      }
    }
    return { stacks, functions };
  } finally {
    cfn.destroy();
    lambda.destroy();
    iam.destroy();
  }
}
