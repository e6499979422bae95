const unitMs = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Parses `500ms`, `30s`, `15m`, `24h`, `7d` into milliseconds; null when malformed. */
export function parseDuration(text: string): number | null {
  const match = /^([0-9]+)(ms|s|m|h|d)$/.exec(text);
  if (!match) return null;
  const value = Number(match[1]) * unitMs[match[2] as keyof typeof unitMs];
  return Number.isSafeInteger(value) ? value : null;
}
