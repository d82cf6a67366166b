/**
 * SQL errors carry a position so users find the offending token: `line 3:15: unknown column …`.
 */
import { PlanError } from '../core/errors.ts';

/** A 1-based line and column in the SQL text. */
export interface SqlPosition {
  readonly line: number;
  readonly column: number;
}

/** A user error in a SQL script, with the position it points at (1-based line and column). */
export class SqlError extends PlanError {
  readonly line: number;
  readonly column: number;

  constructor(position: SqlPosition, message: string, options?: { cause?: unknown }) {
    super(`line ${position.line}:${position.column}: ${message}`, options);
    this.line = position.line;
    this.column = position.column;
  }
}

/**
 * Runs `fn`, turning a PlanError from the API layer (which knows no positions) into a SqlError
 * at `position`, so every error of a statement points into the script.
 */
export function atPosition<T>(position: SqlPosition, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof SqlError || !(e instanceof PlanError)) throw e;
    throw new SqlError(position, e.message, { cause: e });
  }
}
