#!/usr/bin/env node
// Entry point of the `flambda` CLI. Registers tsx so pipeline modules written in TypeScript
// (and the engine's own sources) load without a build step, then hands over to the CLI.
import { register } from 'tsx/esm/api';

register();
// `flambda explain … | head` closes the pipe early: stop quietly instead of crashing on EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
const { main } = await import('../shared/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
