/** The last whole second formatted, and its text up to the milliseconds: `2026-11-22T12:00:00.`. */
let cachedSecond = Number.NaN;
let cachedPrefix = '';

/** Epoch ms from 0000-01-01 to 9999-12-31: where `toISOString` writes four-digit years. */
const FIRST_MS = -62_167_219_200_000;
const LAST_MS = 253_402_300_799_999;

/**
 * `new Date(ms).toISOString()`, with the date and time up to the second formatted once per second: formatting a
 * date was the costliest step of a timeline point, and the updates of one second share it. Times outside
 * years 0000-9999, fractions of a millisecond and invalid times go through `toISOString` itself (which throws
 * the same RangeError for an invalid time).
 */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < FIRST_MS || ms > LAST_MS) return new Date(ms).toISOString();
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 20);
    cachedSecond = second;
  }
  const milliseconds = ms - second * 1000;
  return `${cachedPrefix}${milliseconds < 10 ? '00' : milliseconds < 100 ? '0' : ''}${milliseconds}Z`;
}
