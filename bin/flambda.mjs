#!/usr/bin/env node
// Entry point of the `flambda` CLI. Registers tsx so pipeline modules written in TypeScript
// (and the engine's own sources) load without a build step, then hands over to the CLI.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../shared/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
