import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default on a 2-core machine is one worker (cores - 1); most files wait on
    // emulators, databases and child processes, so two workers take the suite from ~14 to ~10 min.
    maxWorkers: 2,
  },
});
