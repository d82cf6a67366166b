// Lint configuration: ESLint's and typescript-eslint's recommended rules (syntax-based; no type
// information is loaded) over the whole tree, plus the project's rules below.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'coverage/', 'out/', 'tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  // Import boundaries (docs/architecture.md): each layer imports only the layers below it,
  // core ← partition, state ← plan ← operators ← runtime ← aws ← functions, infra; nothing in
  // shared/ imports examples/ or infra/; only shared/aws/, the connector modules and the tools
  // above the runtime (CLI, benchmarks) import the AWS SDK or a database driver.
  ...layerBoundaries(),
  noImportCycles(),
);

/**
 * No import cycles (import-x's no-cycle over the resolved .ts files): a module that imports,
 * directly or through others, a module that imports it back. Type-only imports are erased and
 * do not count. Every file is covered; where two modules need the same pieces, those pieces live
 * in a lower module both import (e.g. shared/plan/expr-type-rules.ts, shared/sql/relation.ts,
 * shared/sql/sql-literals.ts).
 */
function noImportCycles() {
  return {
    files: ['shared/**/*.ts', 'functions/**/*.ts', 'infra/**/*.ts', 'bin/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.mjs'] })],
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  };
}

/** One `no-restricted-imports` entry per layer: what its files must not import. */
function layerBoundaries() {
  const drivers = { regex: '^(@aws-sdk/|@smithy/|mysql2|pg$)', message: 'only shared/aws/ and connector modules load the AWS SDK or a database driver (the embedded runtime must run without them)' };
  const outside = { regex: '(^|/)(examples|infra)/', message: 'shared/ must not depend on examples/ or infra/' };
  const layers = (names, why) => ({ regex: `(^|/)\\.\\./(\\.\\./)*(${names.join('|')})/`, message: why, allowTypeImports: true });
  const above = {
    core: ['partition', 'state', 'plan', 'operators', 'lookup', 'runtime', 'aws', 'api', 'sql', 'cli', 'bench', 'ui', 'nexmark'],
    partition: ['state', 'plan', 'operators', 'lookup', 'runtime', 'aws', 'api', 'sql', 'cli', 'bench', 'ui', 'nexmark'],
    state: ['plan', 'operators', 'lookup', 'runtime', 'aws', 'api', 'sql', 'cli', 'bench', 'ui', 'nexmark'],
    plan: ['runtime', 'aws', 'api', 'sql', 'cli', 'bench', 'ui', 'nexmark'],
    operators: ['runtime', 'aws', 'api', 'sql', 'cli', 'bench', 'ui', 'nexmark'],
    runtime: ['aws', 'api', 'sql', 'cli', 'bench', 'ui', 'nexmark'],
  };
  const connectors = ['shared/aws/**', 'shared/lookup/dynamodb-source.ts', 'shared/lookup/dynamodb-values.ts', 'shared/lookup/jdbc-mysql-source.ts', 'shared/lookup/jdbc-postgres-source.ts', 'shared/cli/**', 'shared/bench/**', 'shared/nexmark/**', 'shared/ui/**'];
  return [
    { files: ['shared/**/*.ts'], ignores: connectors, rules: { 'no-restricted-imports': ['error', { patterns: [drivers, outside] }] } },
    ...Object.entries(above).map(([layer, names]) => ({
      files: [`shared/${layer}/**/*.ts`],
      rules: { 'no-restricted-imports': ['error', { patterns: [drivers, outside, layers(names, `shared/${layer}/ is below ${names.join(', ')}: it must not import them`)] }] },
    })),
  ];
}
