/**
 * Prop validation of the Flambda constructs. Every message names the prop (or stage) and the
 * value given, like the CDK's own checks (`batchSize must be 1..10000 (given 0)`), so a bad
 * prop is found without reading the construct.
 */
import { Token } from 'aws-cdk-lib';
import type { Duration } from 'aws-cdk-lib';

/** Thrown for a prop or job graph the constructs cannot deploy. */
export class StreamPipelineValidationError extends Error {
  override readonly name = 'StreamPipelineValidationError';
}

/**
 * Checks that `value` is an integer in `min..max`. Tokens (values resolved at deploy time) are
 * let through: they cannot be checked at synth time.
 *
 * @throws StreamPipelineValidationError `<what> must be <min>..<max> (given <value>)`.
 */
export function checkIntegerRange(what: string, value: number, min: number, max: number): void {
  if (Token.isUnresolved(value)) return;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new StreamPipelineValidationError(`${what} must be ${min}..${max} (given ${value})`);
  }
}

/**
 * Checks that a duration lies in `min..max` seconds (inclusive).
 *
 * @throws StreamPipelineValidationError `<what> must be <min>..<max> seconds (given <value>)`.
 */
export function checkDurationSeconds(what: string, value: Duration, min: number, max: number): void {
  if (value.isUnresolved()) return;
  // toMilliseconds: toSeconds() throws for fractions such as Duration.millis(500).
  const seconds = value.toMilliseconds() / 1000;
  if (seconds < min || seconds > max) {
    throw new StreamPipelineValidationError(`${what} must be ${min}..${max} seconds (given ${value.toHumanString()})`);
  }
}
