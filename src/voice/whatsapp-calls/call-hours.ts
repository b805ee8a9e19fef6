import type { CallHours, WhatsAppCallingSettings } from '../../channels/channel.entity.js';

/** The local date (`YYYY-MM-DD`), weekday (`MONDAY`…) and time (`HHMM`) of `at` in `timeZone`. */
function localNow(at: Date, timeZone: string): { date: string; day: string; time: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      weekday: 'long',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, day: parts.weekday.toUpperCase(), time: `${parts.hour}${parts.minute}` };
}

/**
 * Whether `at` falls in the number's call hours (Meta's `call_hours`: weekly opening times in the
 * number's time zone, less the holidays' closed stretches). No hours: always open.
 */
export function isWithinCallHours(hours: CallHours | null, at: Date): boolean {
  if (!hours) return true;
  const now = localNow(at, hours.timezoneId);
  const closedForHoliday = hours.holidaySchedule.some((h) => h.date === now.date && h.startTime <= now.time && now.time < h.endTime);
  if (closedForHoliday) return false;
  return hours.weeklyOperatingHours.some((d) => d.dayOfWeek === now.day && d.openTime <= now.time && now.time < d.closeTime);
}

/** The flow that answers a user's call now: the inbound flow in call hours, the after-hours flow outside them; null: none. */
export function flowForUserCall(calling: WhatsAppCallingSettings | null, at: Date): string | null {
  if (!calling?.enabled) return null;
  return isWithinCallHours(calling.callHours, at) ? calling.inboundFlowId : calling.afterHoursFlowId;
}
