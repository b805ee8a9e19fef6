const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration as configured: a whole number and a unit (`500ms`, `30s`, `10m`, `2h`, `7d`). */
export const DURATION_PATTERN = /^(\d+)(ms|s|m|h|d)$/;

/** Parses one duration (`7d`, `30s`) into milliseconds. */
export function parseDuration(value: string): number {
  const match = DURATION_PATTERN.exec(value.trim());
  if (!match) throw new Error(`Invalid duration '${value}'`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** Parses `2m,4m,30s,500ms` (or `5d`) into milliseconds. */
export function parseDurationList(value: string): number[] {
  return value.split(',').map(parseDuration);
}
