/**
 * A deployed function's bundle, run as Lambda runs it: its asset from cdk.out copied into a
 * directory with no node_modules anywhere above it except `@aws-sdk/*` (which the Lambda Node.js
 * runtime provides), started in its own Node process per execution environment (lambda-runtime.mjs)
 * with exactly the environment the deployed function has, plus what the Lambda runtime sets
 * itself (region, credentials of the execution role, function name, memory, task root) and the
 * emulator's endpoint (`AWS_ENDPOINT_URL`, as LocalStack sets it in its functions).
 *
 * A container cold-starts on its first invocation (the init phase imports the bundle) and stays
 * warm until it is killed; `kill()` and a new container is a cold restart.
 */
import type { ChildProcess } from 'node:child_process';
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join, parse, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';

const RUNTIME = join(dirname(fileURLToPath(import.meta.url)), 'lambda-runtime.mjs');
const REPO_SDK = resolve(dirname(fileURLToPath(import.meta.url)), '../../node_modules/@aws-sdk');

/** Credentials the function runs with (its execution role's, in the IAM phase). */
export interface FunctionCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** What a container needs of a deployed function. */
export interface FunctionSpec {
  /** The deployed function's name and ARN. */
  readonly name: string;
  readonly arn: string;
  /** Its `Environment.Variables`, as read back from the deployment. */
  readonly environment: Readonly<Record<string, string>>;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  readonly runtime: string;
  readonly handler: string;
  /** The bare directory its bundle was copied to ({@link prepareBareBundle}). */
  readonly taskRoot: string;
}

/**
 * Copies a function's asset directory to `<root>/<name>` and gives `<root>` a node_modules with
 * only `@aws-sdk` (a link to the repository's copy). Throws when a directory above `root` has a
 * node_modules of its own, which would let the bundle resolve packages Lambda does not have.
 */
export function prepareBareBundle(assetDir: string, root: string, name: string): string {
  for (let dir = dirname(resolve(root)); dir !== parse(dir).root; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules'))) throw new Error(`${dir}/node_modules would be visible to the bare bundles in ${root}`);
  }
  const modules = join(root, 'node_modules');
  if (!existsSync(join(modules, '@aws-sdk'))) {
    mkdirSync(modules, { recursive: true });
    symlinkSync(REPO_SDK, join(modules, '@aws-sdk'), 'dir');
  }
  const taskRoot = join(root, name);
  cpSync(assetDir, taskRoot, { recursive: true });
  return taskRoot;
}

/** One invocation's outcome as the Lambda service reports it to the event source mapping. */
export type InvocationOutcome = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: { readonly name: string; readonly message: string } };

/** A running execution environment of one function. */
export class LambdaContainer {
  /** Lines the function wrote to stdout (Powertools logs and EMF metrics) and stderr. */
  readonly stdout: string[] = [];
  readonly stderr: string[] = [];
  /** Invocations served. */
  invocations = 0;
  private child: ChildProcess | undefined;
  private ready: Promise<void> | undefined;
  private readonly pending = new Map<string, (outcome: InvocationOutcome) => void>();

  constructor(
    readonly spec: FunctionSpec,
    private readonly credentials: FunctionCredentials,
    private readonly endpoint: string,
  ) {}

  /** The environment of the process: the function's own variables plus what Lambda and the emulator add. */
  environment(): Record<string, string> {
    const region = 'us-east-1';
    return {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      TZ: ':UTC',
      LANG: 'en_US.UTF-8',
      AWS_REGION: region,
      AWS_DEFAULT_REGION: region,
      AWS_EXECUTION_ENV: `AWS_Lambda_${this.spec.runtime}`,
      AWS_LAMBDA_FUNCTION_NAME: this.spec.name,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(this.spec.memoryMb),
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${this.spec.name}`,
      AWS_LAMBDA_LOG_STREAM_NAME: `local/${randomUUID()}`,
      LAMBDA_TASK_ROOT: this.spec.taskRoot,
      LAMBDA_RUNTIME_DIR: dirname(RUNTIME),
      _HANDLER: this.spec.handler,
      AWS_ACCESS_KEY_ID: this.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: this.credentials.secretAccessKey,
      ...(this.credentials.sessionToken !== undefined ? { AWS_SESSION_TOKEN: this.credentials.sessionToken } : {}),
      AWS_ENDPOINT_URL: this.endpoint,
      ...this.spec.environment,
    };
  }

  /** Invokes the function (cold-starting it first if needed) and resolves with what it returned or threw. */
  async invoke(event: unknown, context?: Pick<Context, 'getRemainingTimeInMillis' | 'awsRequestId'>): Promise<InvocationOutcome> {
    await this.start();
    const id = randomUUID();
    const remaining = context?.getRemainingTimeInMillis() ?? this.spec.timeoutSeconds * 1000;
    this.invocations++;
    return new Promise<InvocationOutcome>((resolveOutcome) => {
      this.pending.set(id, resolveOutcome);
      this.child?.send({ type: 'invoke', id, event, deadlineMs: Date.now() + remaining, requestId: context?.awsRequestId ?? id, functionArn: this.spec.arn });
    });
  }

  /** A Kinesis handler for the local event source mapping: what the function returned, or a thrown error. */
  async handleKinesis(event: KinesisStreamEvent, context: Context): Promise<KinesisStreamBatchResponse> {
    const outcome = await this.invoke(event, context);
    if (!outcome.ok) throw Object.assign(new Error(outcome.error.message), { name: outcome.error.name });
    return outcome.result as KinesisStreamBatchResponse;
  }

  /** Ends the execution environment (in-flight invocations fail). */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    this.ready = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGKILL');
    await exited;
  }

  private start(): Promise<void> {
    this.ready ??= new Promise<void>((ready, fail) => {
      const child = fork(RUNTIME, [], { cwd: this.spec.taskRoot, env: this.environment(), execArgv: [], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
      this.child = child;
      const lines = (into: string[]) => {
        let rest = '';
        return (chunk: Buffer) => {
          const parts = (rest + chunk.toString('utf8')).split('\n');
          rest = parts.pop() ?? '';
          for (const line of parts) if (line.trim() !== '') into.push(line);
        };
      };
      child.stdout?.on('data', lines(this.stdout));
      child.stderr?.on('data', lines(this.stderr));
      child.on('message', (message: { type: string; id?: string; result?: unknown; error?: { name: string; message: string } }) => {
        if (message.type === 'ready') ready();
        else if (message.type === 'init-error') fail(new Error(`${this.spec.name}: init failed: ${message.error?.name}: ${message.error?.message}`));
        else if (message.id !== undefined) {
          const settle = this.pending.get(message.id);
          this.pending.delete(message.id);
          settle?.(message.type === 'result' ? { ok: true, result: message.result } : { ok: false, error: message.error ?? { name: 'Error', message: 'unknown' } });
        }
      });
      child.once('exit', (code, signal) => {
        fail(new Error(`${this.spec.name}: the runtime exited (${code ?? signal}) before it was ready; stderr: ${this.stderr.slice(-5).join(' | ')}`));
        for (const settle of this.pending.values()) settle({ ok: false, error: { name: 'Runtime.ExitError', message: `the execution environment ended (${code ?? signal})` } });
        this.pending.clear();
      });
    });
    return this.ready;
  }
}
