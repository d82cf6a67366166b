/**
 * Stops the acceptance run before any test, with one clear line on stderr and exit code 1, when
 * the fixture is missing (a thrown error would bury the message under vitest's stack trace).
 */
import { checkFixture } from './fixture.ts';

export default function setup(): void {
  try {
    checkFixture();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
}
