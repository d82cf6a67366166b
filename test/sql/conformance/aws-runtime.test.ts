/**
 * The conformance cases that read only generator sources — VALUES, `SELECT` without FROM, UNNEST
 * alone in FROM, `INSERT … VALUES` — on the AWS runtime too (emulators: the producer puts the
 * rows into the source stream, the stage handlers run them): each gives the same documented
 * result as on the embedded runtime (conformance.test.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CASES, NOT_SUPPORTED } from './cases.ts';
import { FixtureFiles } from './fixtures.ts';
import { FUNCTIONS } from './functions.ts';
import { runCase } from './run-case.ts';

const files = new FixtureFiles();
afterAll(() => files.remove());

const generatorOnly = CASES.filter((c) => (c.tables ?? []).length === 0 && !NOT_SUPPORTED.has(c.name) && c.error === undefined && c.explain === undefined);

describe('conformance cases over generator sources, on the AWS runtime', () => {
  it('has the cases it means to run', () => {
    expect(generatorOnly.length).toBeGreaterThan(100);
    expect(generatorOnly.map((c) => c.name)).toContain('INSERT INTO … VALUES');
  });

  for (const c of generatorOnly) {
    it(`${c.page}: ${c.name}`, async () => {
      const out = await runCase(c, files, FUNCTIONS, 'aws');
      if (c.changelog) expect(out.changelog).toEqual(c.changelog);
      else expect(out.rows).toEqual(c.rows);
    }, 60_000);
  }
});
