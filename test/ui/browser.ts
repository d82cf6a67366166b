/**
 * Headless Chromium for the page tests: Debian's `chromium` package driven by playwright-core
 * (never a browser that Playwright downloads). The executable comes from `FLAMBDA_CHROMIUM`
 * (or `CHROMIUM_PATH`), else `chromium` / `chromium-browser` on PATH; `.ci/run` installs the
 * package when it is missing.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { REPO_ROOT } from '../cli/cli.ts';

/** Where the page tests save their screenshots (git-ignored). */
export const SCREENSHOT_DIR = join(REPO_ROOT, 'out', 'test-ui');

/** The Chromium executable, or an error that says how to get one. */
export function chromiumPath(): string {
  const fromEnv = process.env.FLAMBDA_CHROMIUM || process.env.CHROMIUM_PATH;
  if (fromEnv) return fromEnv;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser']) {
      const file = join(dir, name);
      try {
        accessSync(file, constants.X_OK);
        return file;
      } catch {
        // not here
      }
    }
  }
  throw new Error('no Chromium: apt-get install -y chromium, or set FLAMBDA_CHROMIUM to its executable');
}

/** Launches headless Chromium with the flags this machine needs. */
export async function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-gpu', '--no-first-run'],
  });
}
