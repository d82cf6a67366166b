/**
 * The conformance suite: every case of cases.ts, examples of Flink's SQL documentation over our
 * own data, gives its documented result or is on the "not supported" list with its exact error.
 * The README's Flink SQL section carries the list (`UPDATE_README=1` rewrites it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { CASES, NOT_SUPPORTED, assertedMessage, readmeSection, type ConformanceCase } from './cases.ts';
import { FixtureFiles } from './fixtures.ts';
import { runCase } from './run-case.ts';
import { FUNCTIONS } from './functions.ts';

const files = new FixtureFiles();
afterAll(() => files.remove());

async function errorOf(c: ConformanceCase): Promise<string> {
  try {
    await runCase(c, files, FUNCTIONS);
  } catch (e) {
    return assertedMessage((e as Error).message);
  }
  return '(no error: the case runs)';
}

const byPage = new Map<string, ConformanceCase[]>();
for (const c of CASES) byPage.set(c.page, [...(byPage.get(c.page) ?? []), c]);

for (const [page, cases] of byPage) {
  describe(page, () => {
    for (const c of cases) {
      const missing = NOT_SUPPORTED.get(c.name);
      if (missing !== undefined) {
        it(`not supported: ${c.name}`, async () => {
          expect(await errorOf(c)).toBe(missing);
        });
      } else if (c.error !== undefined) {
        it(`rejected as in Flink: ${c.name}`, async () => {
          expect(await errorOf(c)).toBe(c.error);
        });
      } else {
        it(c.name, async () => {
          const out = await runCase(c, files, FUNCTIONS);
          if (c.explain !== undefined) expect(out.explains.join('\n\n')).toBe(c.explain);
          else if (c.explainMatches !== undefined) expect(out.explains.join('\n\n')).toMatch(c.explainMatches);
          else if (c.changelog) expect(out.changelog).toEqual(c.changelog);
          else expect(out.rows).toEqual(c.rows);
        });
      }
    }
  });
}

describe('the suite', () => {
  it('has unique case names, one expectation per case, and names only its cases as not supported', () => {
    const names = CASES.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    // A case without an expected result (EXPLAIN's plan text, say) may only be a not-supported one.
    for (const c of CASES) {
      const expectations = [c.rows, c.changelog, c.error, c.explain, c.explainMatches].filter((x) => x !== undefined).length;
      expect(expectations, c.name).toBe(NOT_SUPPORTED.has(c.name) && expectations === 0 ? 0 : 1);
    }
    for (const name of NOT_SUPPORTED.keys()) expect(names, name).toContain(name);
  });

  it("is listed in the README's Flink SQL section", () => {
    const url = new URL('../../../README.md', import.meta.url);
    const readme = readFileSync(url, 'utf8');
    const begin = '<!-- conformance:begin -->\n';
    const end = '\n<!-- conformance:end -->';
    const at = readme.indexOf(begin);
    const stop = readme.indexOf(end);
    const section = readmeSection();
    if (process.env.UPDATE_README === '1' && at >= 0 && stop > at) writeFileSync(url, readme.slice(0, at + begin.length) + section + readme.slice(stop));
    expect(at, 'README has the conformance markers').toBeGreaterThan(0);
    expect(readme.slice(at + begin.length, stop), 'run UPDATE_README=1 npx vitest run test/sql/conformance to rewrite it').toBe(section);
  });
});
