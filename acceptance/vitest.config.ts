// `npm run test:acceptance`: the comparisons with the external Nexmark fixture (see README.md here).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['acceptance/**/*.test.ts'],
    globalSetup: ['acceptance/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
