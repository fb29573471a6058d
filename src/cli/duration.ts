const DURATION_TEXT = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;
const SECONDS_PER_UNIT: Readonly<Record<string, number>> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400 };

/** `24h`, `30m`, `90s`, `500ms`, `2d` or a bare number of seconds, in seconds; undefined when it is none. */
export function durationSeconds(text: string): number | undefined {
  const match = DURATION_TEXT.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * SECONDS_PER_UNIT[match[2] ?? 's']!;
}
