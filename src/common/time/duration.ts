const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Parses `2m,4m,30s,500ms` into milliseconds. */
export function parseDurationList(value: string): number[] {
  return value.split(',').map((part) => {
    const match = /^(\d+)(ms|s|m|h)$/.exec(part.trim());
    if (!match) throw new Error(`Invalid duration '${part}'`);
    return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  });
}
