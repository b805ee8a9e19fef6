/**
 * The three timestamp formats of API.md §1, all UTC. Each DTO says which one it uses
 * by calling one of these when it maps an entity.
 */
export const TimestampFormat = {
  /** `2026-03-01T14:47:18.501`: contacts, notes, property definitions, history, channels. */
  noOffset: (d: Date): string => d.toISOString().slice(0, -1),
  /** `2026-03-01T14:47:18.501+00:00`: outbound IVR records and their webhook payloads. */
  withOffset: (d: Date): string => `${d.toISOString().slice(0, -1)}+00:00`,
  /** `2026-03-01T14:47:18.501Z`: everything else. */
  utc: (d: Date): string => d.toISOString(),
} as const;

type Formatter = (d: Date) => string;

/** Formats a nullable date with one of {@link TimestampFormat}; `null` stays `null`. */
export function formatTimestamp(value: Date | null | undefined, format: Formatter): string | null {
  return value ? format(value) : null;
}
