/**
 * The session time zone of the script being compiled: `SET 'table.local-time-zone' = '…'`
 * (UTC until set, as Flambda's default). Statements compile in order and synchronously, so the
 * expression compiler reads the zone in force here rather than threading it through every scope
 * (as shared/sql/user-functions.ts does for user functions). A query — and a view it reads,
 * which is expanded where it is used, as in Flink — compiles under the zone set before it.
 */
import { timeZoneOf, UTC_ZONE_ID } from '../core/time-zone.ts';

let current = UTC_ZONE_ID;

/** Runs `body` (the compilation of one script) starting from UTC, restoring the outer zone after. */
export function withSessionTimeZone<T>(body: () => T): T {
  const saved = current;
  current = UTC_ZONE_ID;
  try {
    return body();
  } finally {
    current = saved;
  }
}

/**
 * Sets the zone for the statements that follow.
 *
 * @throws PlanError for an id that is not a tz database name, a `GMT±hh:mm` offset or `UTC`.
 */
export function setSessionTimeZone(id: string): void {
  timeZoneOf(id);
  current = id;
}

/** The zone in force (`UTC` unless a SET changed it). */
export function sessionTimeZone(): string {
  return current;
}
