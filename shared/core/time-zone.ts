/**
 * Time zones for TIMESTAMP_LTZ: the session time zone (`SET 'table.local-time-zone' = '…'`)
 * turns an instant (epoch milliseconds) into a wall-clock reading (a TIMESTAMP value, the epoch
 * milliseconds of that reading taken as UTC) and back.
 *
 * Zone ids follow Flink's `table.local-time-zone`: a tz database name (`Asia/Shanghai`,
 * `America/Los_Angeles`, with their daylight saving rules), `UTC`, or a fixed offset written
 * `GMT+08:00` / `GMT-3`. The rules come from Node's ICU (`Intl.DateTimeFormat` with `timeZone`);
 * an offset is computed once per hour of the time line and cached, so converting a record's value
 * costs a map lookup.
 *
 * Wall-clock readings that a transition skips or repeats resolve as Java's
 * `LocalDateTime.atZone(zone)` does, which Flink uses: a reading inside a gap moves later by the
 * gap's length, a reading inside an overlap takes the earlier offset.
 */
import { PlanError } from './errors.ts';
import { daysFromCivil } from './timestamp.ts';

const MS_PER_HOUR = 3_600_000;
const MS_PER_DAY = 86_400_000;

/** A time zone: the offset from UTC at each instant. */
export interface TimeZone {
  /** The id it was named by (`Asia/Shanghai`, `GMT+08:00`, `UTC`). */
  readonly id: string;
  /** The offset from UTC in milliseconds at `instant` (epoch milliseconds); east is positive. */
  offsetAt(instant: number): number;
}

/** The default session time zone of Flambda. */
export const UTC_ZONE_ID = 'UTC';

/** A zone with one offset at every instant. */
function fixedZone(id: string, offset: number): TimeZone {
  return { id, offsetAt: () => offset };
}

/**
 * Before standard time zones (the 1880s on), every zone kept its local mean time: the offset at
 * 1600-01-01 is used for all earlier instants, so ICU's Julian calendar before 1582 never enters
 * the arithmetic.
 */
const EARLIEST_RULE_INSTANT = daysFromCivil(1600, 1, 1) * MS_PER_DAY;

/** Past year 9999 (and for timer sentinels such as ±Infinity) the offset of 9999-12-31 holds. */
const LATEST_RULE_INSTANT = daysFromCivil(9999, 12, 31) * MS_PER_DAY;

/** One cached hour of the time line: the offset before and from `at` (Infinity: no transition). */
interface HourOffsets {
  readonly at: number;
  readonly before: number;
  readonly after: number;
}

/** Cached hours per zone; past this the cache starts over (a stream's times move forward). */
const HOURS_CACHED = 8192;

/** A tz database zone, its offsets read from ICU. */
class IanaZone implements TimeZone {
  private readonly format: Intl.DateTimeFormat;
  private readonly hours = new Map<number, HourOffsets>();

  constructor(readonly id: string) {
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: id,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** The zone's canonical name in ICU. */
  get resolvedId(): string {
    return this.format.resolvedOptions().timeZone;
  }

  offsetAt(instant: number): number {
    if (!(instant >= EARLIEST_RULE_INSTANT && instant <= LATEST_RULE_INSTANT)) {
      return this.offsetAt(instant > LATEST_RULE_INSTANT ? LATEST_RULE_INSTANT : EARLIEST_RULE_INSTANT);
    }
    const hour = Math.floor(instant / MS_PER_HOUR);
    let cached = this.hours.get(hour);
    if (cached === undefined) {
      cached = this.hourOffsets(hour);
      if (this.hours.size >= HOURS_CACHED) this.hours.clear();
      this.hours.set(hour, cached);
    }
    return instant < cached.at ? cached.before : cached.after;
  }

  /** The offsets of one hour; a transition inside it is found by bisection to the millisecond. */
  private hourOffsets(hour: number): HourOffsets {
    const start = hour * MS_PER_HOUR;
    const last = start + MS_PER_HOUR - 1;
    const before = this.icuOffset(start);
    const after = this.icuOffset(last);
    if (before === after) return { at: Infinity, before, after };
    let lo = start;
    let hi = last;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (this.icuOffset(mid) === before) lo = mid;
      else hi = mid;
    }
    return { at: hi, before, after };
  }

  /** ICU's offset at an instant: its wall-clock fields minus the instant, to the second. */
  private icuOffset(instant: number): number {
    const t = instant;
    const second = t - (((t % 1000) + 1000) % 1000);
    const fields: Record<string, string> = {};
    for (const part of this.format.formatToParts(second)) fields[part.type] = part.value;
    const yearOfEra = Number(fields.year);
    const year = fields.era === 'BC' || fields.era === 'B' ? 1 - yearOfEra : yearOfEra;
    const local =
      daysFromCivil(year, Number(fields.month), Number(fields.day)) * MS_PER_DAY +
      Number(fields.hour) * MS_PER_HOUR +
      Number(fields.minute) * 60_000 +
      Number(fields.second) * 1000;
    return local - second;
  }
}

/** `GMT+8`, `GMT+08:00`, `GMT-0330`, `GMT+8:30`: Java's custom zone ids, which Flink accepts. */
const GMT_OFFSET = /^GMT([+-])(\d{1,2})(?::?(\d{2}))?$/;

const zones = new Map<string, TimeZone>();

/**
 * The zone of a `table.local-time-zone` id.
 *
 * @throws PlanError naming the id and the accepted forms when it is not a zone.
 */
export function timeZoneOf(id: string): TimeZone {
  const known = zones.get(id);
  if (known !== undefined) return known;
  const zone = createZone(id);
  zones.set(id, zone);
  return zone;
}

/**
 * A zone for CONVERT_TZ, which reads its zone arguments as Java's `TimeZone.getTimeZone` does:
 * besides {@link timeZoneOf}'s ids also abbreviations such as `PST` (as ICU maps them).
 *
 * @throws PlanError naming the id when ICU does not know it either.
 */
export function lenientTimeZoneOf(id: string): TimeZone {
  const known = abbreviations.get(id);
  if (known !== undefined) return known;
  try {
    return timeZoneOf(id);
  } catch (err) {
    if (!(err instanceof PlanError) || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(id)) throw err;
    let zone: IanaZone;
    try {
      zone = new IanaZone(id);
    } catch {
      throw err;
    }
    abbreviations.set(id, zone);
    return zone;
  }
}

/** Zones only {@link lenientTimeZoneOf} accepts, kept apart so `timeZoneOf` still rejects them. */
const abbreviations = new Map<string, TimeZone>();

function createZone(id: string): TimeZone {
  if (id === 'UTC' || id === 'GMT' || id === 'Z') return fixedZone(id, 0);
  const gmt = GMT_OFFSET.exec(id);
  if (gmt !== null) {
    const hours = Number(gmt[2]);
    const minutes = Number(gmt[3] ?? '0');
    if (hours <= 18 && minutes <= 59 && hours * 60 + minutes <= 18 * 60) {
      return fixedZone(id, (gmt[1] === '-' ? -1 : 1) * (hours * MS_PER_HOUR + minutes * 60_000));
    }
  } else if (/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(id)) {
    try {
      const zone = new IanaZone(id);
      // ICU also maps abbreviations (`PST` → America/Los_Angeles), which Flink rejects as
      // ambiguous: a name without a region must be a zone of its own (`UTC`, `EST5EDT`).
      if (id.includes('/') || zone.resolvedId === id) return zone;
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
    }
  }
  throw new PlanError(
    `invalid time zone '${id}': give a tz database name such as 'America/Los_Angeles' (daylight saving time included), a fixed offset such as 'GMT+08:00', or 'UTC'`,
  );
}

/** The wall-clock reading (a TIMESTAMP value) of an instant (a TIMESTAMP_LTZ value) in `zone`. */
export function toLocalMillis(instant: number, zone: TimeZone): number {
  return instant + zone.offsetAt(instant);
}

/**
 * The instant (a TIMESTAMP_LTZ value) of a wall-clock reading (a TIMESTAMP value) in `zone`, as
 * Java's `LocalDateTime.atZone(zone).toInstant()`: a reading a transition skips moves later by
 * the gap, a reading it repeats takes the earlier offset.
 */
export function toInstant(local: number, zone: TimeZone): number {
  // Offsets a day either side bracket any transition near the reading (zones change at most
  // twice a year, and never by more than a day).
  const early = zone.offsetAt(local - MS_PER_DAY);
  const late = zone.offsetAt(local + MS_PER_DAY);
  if (early === late) return local - early;
  // After the transition (only the later offset fits): that one. Otherwise the earlier offset:
  // in an overlap both fit and Java keeps the earlier; in a gap neither fits and Java moves the
  // reading later by the gap (late - early), giving local + (late - early) - late = local - early.
  const earlyFits = zone.offsetAt(local - early) === early;
  const lateFits = zone.offsetAt(local - late) === late;
  return lateFits && !earlyFits ? local - late : local - early;
}
