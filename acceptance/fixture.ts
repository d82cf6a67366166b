/**
 * Where the acceptance suite finds the external Nexmark fixture: the directory named by
 * `FLAMBDA_FIXTURE_DIR`, by default `../shared/nexmark-fixture` beside the repository. The
 * fixture is another project's data (RisingWave's end-to-end Nexmark rows, Apache-2.0): it is
 * read from there, never copied into this repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonValue } from '../shared/core/codec.ts';

/** The repository root. */
export const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** The fixture directory (absolute). */
export const FIXTURE_DIR = resolve(REPO_ROOT, process.env.FLAMBDA_FIXTURE_DIR ?? '../shared/nexmark-fixture');

/** The files the suite reads from the fixture directory. */
const REQUIRED = ['bid.jsonl', 'side_input.jsonl', 'expected_q15.json'];

/**
 * Throws an error that says what is missing and how to point the suite at the fixture, when the
 * directory or one of its files is not there.
 */
export function checkFixture(): void {
  const missing = existsSync(FIXTURE_DIR) ? REQUIRED.filter((f) => !existsSync(resolve(FIXTURE_DIR, f))) : REQUIRED;
  if (missing.length === 0) return;
  throw new Error(
    `npm run test:acceptance: the Nexmark fixture is missing at ${FIXTURE_DIR} ` +
      `(${existsSync(FIXTURE_DIR) ? `no ${missing.join(', ')}` : 'no such directory'}). ` +
      'Set FLAMBDA_FIXTURE_DIR to the directory holding bid.jsonl, side_input.jsonl and expected_qN.json.',
  );
}

/** A fixture file's absolute path. */
export function fixtureFile(name: string): string {
  return resolve(FIXTURE_DIR, name);
}

/** The fixture's expected final result of `query` (`expected_<query>.json`). */
export function expectedResult(query: string): Record<string, JsonValue>[] {
  return JSON.parse(readFileSync(fixtureFile(`expected_${query}.json`), 'utf8')) as Record<string, JsonValue>[];
}

/** The fixture's bid lines, in order. */
export function fixtureBidLines(): string[] {
  return readFileSync(fixtureFile('bid.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0);
}
