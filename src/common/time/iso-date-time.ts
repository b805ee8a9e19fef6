import { ValidateBy, buildMessage, type ValidationOptions } from 'class-validator';

/** Calendar date, optionally a time to the minute, second or fraction, optionally `Z` or an offset. */
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Reads an ISO 8601 calendar date or date-time (`2026-03-01`, `2026-03-01T14:47`,
 * `2026-03-01T14:47:18.501+03:00`); without an offset it is UTC. Everything else is `undefined`:
 * week and ordinal dates (`2026-W01-1`, `2026-060`) and basic formats, which validator.js's
 * `isISO8601` accepts but `new Date()` cannot read, and dates that do not exist (`2026-02-30`,
 * `T24:00`, year 0), which `new Date()` would roll over or PostgreSQL refuse.
 */
export function parseIsoDateTime(input: string): Date | undefined {
  const text = input.trim();
  const match = ISO_DATE_TIME.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0));
  // Date.UTC reads years 0-99 as 1900-1999, which have the same leap years as 1-99 (0 is refused).
  const calendar = new Date(Date.UTC(year, month - 1, day));
  const exists =
    year >= 1 && calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day && hour < 24 && minute < 60 && second < 60;
  if (!exists) return undefined;
  const hasTime = match[4] !== undefined;
  const date = new Date(match[7] ? text : `${text}${hasTime ? '' : 'T00:00:00'}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A request field holding a date or date-time {@link parseIsoDateTime} can read. */
export function IsIsoDateTime(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isIsoDateTime',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && parseIsoDateTime(value) !== undefined,
        defaultMessage: buildMessage(
          (eachPrefix) => `${eachPrefix}$property must be an ISO 8601 date or date-time, e.g. 2026-03-01T14:47:18Z`,
          options,
        ),
      },
    },
    options,
  );
}
