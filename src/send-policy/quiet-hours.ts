/**
 * Quiet hours (API.md §13): a daily window of wall-clock time in the contact's zone during which
 * marketing sends and calls wait. `start` after `end` spans midnight (21:00-09:00).
 */

/** What quiet hours hold back: marketing templates, Create Outbound IVR calls. */
export const QUIET_HOURS_SCOPES = ['Marketing', 'Calls'] as const;
export type QuietHoursScope = (typeof QUIET_HOURS_SCOPES)[number];

export interface QuietHours {
  /** `HH:MM`, 24-hour clock. */
  start: string;
  end: string;
  appliesTo: QuietHoursScope[];
}

/** `HH:MM` from 00:00 to 23:59. */
export const CLOCK_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** Minutes since midnight of an `HH:MM` time. */
export function minutesOfClock(clock: string): number {
  const match = CLOCK_TIME.exec(clock);
  if (!match) throw new Error(`Not an HH:MM time: ${clock}`);
  return Number(match[1]) * 60 + Number(match[2]);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar date and wall-clock time in `zone` at `at`, as if that wall clock were UTC (ms epoch). */
function wallClockMs(at: Date, zone: string): number {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, format);
  }
  const part = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value])) as Record<string, string>;
  const wall = Date.UTC(
    Number(part.year),
    Number(part.month) - 1,
    Number(part.day),
    Number(part.hour),
    Number(part.minute),
    Number(part.second),
  );
  return wall + (at.getTime() % 1000);
}

/**
 * The instant the wall clock of `zone` shows `wallMs` (a wall-clock time written as UTC). A time
 * skipped by a daylight-saving jump resolves to the instant just after the jump.
 */
function instantOfWallClock(wallMs: number, zone: string): Date {
  const first = wallMs - (wallClockMs(new Date(wallMs), zone) - wallMs);
  // Once more with the offset at the first guess (the two differ when a transition lies between).
  const second = wallMs - (wallClockMs(new Date(first), zone) - first);
  if (wallClockMs(new Date(second), zone) === wallMs) return new Date(second);
  // No instant shows that time (a skipped hour): the later guess is the one after the jump.
  return new Date(Math.max(first, second));
}

/**
 * When the quiet period that `at` falls in ends, in `zone`; null when `at` is outside quiet hours.
 * Quiet hours with `start` equal to `end` are refused by the policy, so never reach here.
 */
export function quietPeriodEnd(at: Date, quiet: Pick<QuietHours, 'start' | 'end'>, zone: string): Date | null {
  const start = minutesOfClock(quiet.start);
  const end = minutesOfClock(quiet.end);
  const wall = wallClockMs(at, zone);
  const midnight = Math.floor(wall / DAY_MS) * DAY_MS;
  const minute = (wall - midnight) / MINUTE_MS;
  const inside = start < end ? minute >= start && minute < end : minute >= start || minute < end;
  if (!inside) return null;
  const endDay = minute < end ? midnight : midnight + DAY_MS;
  return instantOfWallClock(endDay + end * MINUTE_MS, zone);
}
