/**
 * The repository is self-contained: no file outside the acceptance suite (acceptance/) refers to
 * anything beside the clone — a `../shared` path that leaves the repository, an absolute
 * `/work/shared` path, or the external Nexmark fixture. Tests, examples and README commands use
 * data the project makes itself (test/nexmark/test-data.ts, `flambda nexmark generate`), so a
 * fresh clone with nothing beside it passes `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../cli/cli.ts';

/** This file: it spells the patterns it looks for. */
const SELF = 'test/repo/self-contained.test.ts';

/** The folders beside the repository that its own ./shared does not have. */
const OUTSIDE_FOLDERS = /(?:\.\.\/)+shared\/(?:docs|seeds|acceptance|hooks)\b/g;

/** Files tracked by git, plus untracked ones not ignored (what a commit would hold). */
function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' });
  return out.split('\0').filter((f) => f !== '' && !f.startsWith('acceptance/') && f !== 'package-lock.json' && f !== SELF);
}

/** Where `text` (the content of `file`, repository-relative) points outside the repository. */
export function outsideReferences(file: string, text: string): string[] {
  const found: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const at = `${file}:${i + 1}`;
    if (/nexmark-fixture/i.test(line)) found.push(`${at}: names the external Nexmark fixture`);
    if (/\/work\/shared\b/.test(line)) found.push(`${at}: an absolute path to /work/shared`);
    for (const match of line.matchAll(/(?:\.\.\/)+shared\b/g)) {
      const target = resolve(REPO_ROOT, dirname(file), match[0]);
      const inside = relative(REPO_ROOT, target);
      if (inside.startsWith('..') || inside.startsWith(sep)) found.push(`${at}: '${match[0]}' leaves the repository`);
    }
    // Prose cites paths from the repository root, whatever folder the file is in.
    for (const match of line.matchAll(OUTSIDE_FOLDERS)) found.push(`${at}: '${match[0]}' is a folder beside the repository`);
  });
  return found;
}

describe('the repository refers to nothing beside it', () => {
  it('finds a reference that leaves the repository, and accepts one into ./shared', () => {
    expect(outsideReferences('README.md', 'npx flambda run x --input bid=../shared/data/bid.jsonl')).toEqual([
      "README.md:1: '../shared' leaves the repository",
    ]);
    expect(outsideReferences('test/a/b.test.ts', "import { x } from '../../shared/core/row.ts';")).toEqual([]);
    expect(outsideReferences('test/a/b.test.ts', "new URL('../../../shared/x', import.meta.url)")).toEqual([
      "test/a/b.test.ts:1: '../../../shared' leaves the repository",
    ]);
    expect(outsideReferences('docs/x.md', 'see /work/shared/docs')).toHaveLength(1);
    expect(outsideReferences('shared/aws/x.ts', ' * (../shared/docs/architecture.md §4)')).toEqual([
      "shared/aws/x.ts:1: '../shared/docs' is a folder beside the repository",
    ]);
  });

  it('no file outside acceptance/ refers to ../shared, /work/shared or the external fixture', () => {
    const found: string[] = [];
    for (const file of repositoryFiles()) {
      const path = resolve(REPO_ROOT, file);
      let stat: ReturnType<typeof lstatSync>;
      try {
        stat = lstatSync(path);
      } catch {
        continue; // deleted in the work tree but still in the index
      }
      // Symbolic links (a node_modules linked into a clone) and huge files are not sources.
      if (!stat.isFile() || stat.size > 2_000_000) continue;
      const buffer = readFileSync(path);
      if (buffer.includes(0)) continue; // binary (images)
      found.push(...outsideReferences(file, buffer.toString('utf8')));
    }
    expect(found).toEqual([]);
  });
});
