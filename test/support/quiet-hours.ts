const MINUTE = 60_000;

/** `HH:MM` on the wall clock of `zone` at `at` (computed here with Intl, independently of the service). */
export const clockIn = (at: number, zone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);

/**
 * Quiet hours around now in `zone`: from 30 minutes ago to 90 minutes ahead (whole minutes).
 * Whatever the zone, the quiet period then ends at the instant `endsAt`.
 */
export function quietAroundNow(zone: string, appliesTo = ['Marketing', 'Calls']) {
  const minute = Math.floor(Date.now() / MINUTE) * MINUTE;
  const endsAt = new Date(minute + 90 * MINUTE);
  return { quietHours: { start: clockIn(minute - 30 * MINUTE, zone), end: clockIn(endsAt.getTime(), zone), appliesTo }, endsAt };
}
