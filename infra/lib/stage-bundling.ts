/**
 * How a stage function is bundled: the local esbuild (never Docker — the CI and many developer
 * machines have none), ESM output for Node 20 on arm64, and the job graph (plus, when the
 * pipeline calls user functions, the pipeline module, and the JSON-lines files of the stage's
 * lookup tables) copied next to the handler by `afterBundling`, where the handler's
 * `FLAMBDA_JOB_GRAPH_PATH` (and `FLAMBDA_LOOKUP_FILES`) find them.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BundlingOptions, ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';

/** The repository root: the esbuild project root and where package-lock.json lives. */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The generic stage handler's entry. */
export const STAGE_HANDLER_ENTRY = join(PROJECT_ROOT, 'functions/stage-handler.ts');

/** The entry of a generator source's producer function (bundled like a stage: job graph and pipeline module beside it). */
export const GENERATOR_PRODUCER_ENTRY = join(PROJECT_ROOT, 'functions/generator-producer.ts');

/** The heartbeat function's entry. */
export const HEARTBEAT_ENTRY = join(PROJECT_ROOT, 'functions/heartbeat.ts');

/** The lock file NodejsFunction resolves the project root from. */
export const DEPS_LOCK_FILE = join(PROJECT_ROOT, 'package-lock.json');

/** File name of the job graph inside a stage bundle (the handler's default, shared/aws/env.ts). */
export const JOB_GRAPH_FILE = 'job-graph.json';

/** File name of the bundled pipeline module inside a stage bundle. */
export const PIPELINE_MODULE_FILE = 'pipeline.mjs';

/** Directory of a stage bundle that holds its lookup tables' JSON-lines files. */
export const LOOKUP_FILES_DIR = 'lookup';

/** A file copied into a stage bundle. */
export interface BundledFile {
  /** Absolute path at synth time. */
  readonly source: string;
  /** Path inside the bundle, relative to the handler. */
  readonly target: string;
}

/**
 * Modules never bundled. `@aws-sdk/*` ships with the Node 20 Lambda runtime; the others are
 * build- or test-time packages that must never end up in a function even if an import slips in:
 * esbuild leaves them as imports, which then fail loudly at cold start instead of silently
 * bloating every function.
 */
export const EXTERNAL_MODULES: readonly string[] = [
  '@aws-sdk/*',
  'aws-cdk-lib',
  'constructs',
  'cdk-nag',
  'esbuild',
  'vitest',
  'typescript',
  // pg's optional native binding; pg falls back to its pure-JS client without it.
  'pg-native',
];

/**
 * ESM bundles have no `require`; a few CommonJS dependencies call it for Node built-ins, so
 * the bundle defines one (the pattern esbuild documents for ESM output on Node).
 */
const REQUIRE_SHIM = "import { createRequire as __flambdaCreateRequire } from 'node:module'; const require = __flambdaCreateRequire(import.meta.url);";

/** Bundling options shared by every Flambda function. */
export function baseBundling(): BundlingOptions {
  return {
    format: OutputFormat.ESM,
    target: 'node20',
    mainFields: ['module', 'main'],
    banner: REQUIRE_SHIM,
    externalModules: [...EXTERNAL_MODULES],
    minify: true,
    // Minified names would make Powertools' error logs unreadable; keep them (costs ~2 %).
    keepNames: true,
    sourceMap: false,
    forceDockerBundling: false,
  };
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The local esbuild binary (the same package NodejsFunction detects). */
function esbuildBinary(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('esbuild/package.json')), 'bin', 'esbuild');
}

/**
 * Bundling options of a stage function: the job graph JSON (already serialized) is written to a
 * synth-time file and copied into the bundle after esbuild ran; a pipeline module, when given,
 * is bundled into the same directory.
 *
 * Lookup files are copied to their `target` paths (under {@link LOOKUP_FILES_DIR}).
 *
 * The content hash goes into the bundling environment on purpose: the CDK caches bundles per
 * app by their options, and command hooks (functions) do not take part in that key — without
 * the hash, two pipelines in one app would share the first one's job graph.
 */
export function stageBundling(graphJson: string, pipelineModule: string | undefined, files: readonly BundledFile[] = []): BundlingOptions {
  const digest = createHash('sha256').update(graphJson).update(pipelineModule ?? '');
  // The files' contents take part too: a changed lookup file must change the asset.
  for (const file of files) digest.update(`\u0000${file.target}\u0000`).update(readFileSync(file.source));
  const hash = digest.digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'flambda-cdk', hash);
  mkdirSync(dir, { recursive: true });
  const graphFile = join(dir, JOB_GRAPH_FILE);
  writeFileSync(graphFile, graphJson);
  const hooks: ICommandHooks = {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (_inputDir, outputDir) => [
      `cp ${shellQuote(graphFile)} ${shellQuote(join(outputDir, JOB_GRAPH_FILE))}`,
      ...files.flatMap((file) => [`mkdir -p ${shellQuote(dirname(join(outputDir, file.target)))}`, `cp ${shellQuote(file.source)} ${shellQuote(join(outputDir, file.target))}`]),
      ...(pipelineModule === undefined
        ? []
        : [
            [
              shellQuote(esbuildBinary()),
              shellQuote(pipelineModule),
              '--bundle',
              '--platform=node',
              '--format=esm',
              '--target=node20',
              '--minify',
              '--keep-names',
              `--banner:js=${shellQuote(REQUIRE_SHIM)}`,
              ...EXTERNAL_MODULES.map((m) => `--external:${shellQuote(m)}`),
              `--outfile=${shellQuote(join(outputDir, PIPELINE_MODULE_FILE))}`,
            ].join(' '),
          ]),
    ],
  };
  return { ...baseBundling(), commandHooks: hooks, environment: { FLAMBDA_BUNDLE_CONTENT_SHA256: hash } };
}
