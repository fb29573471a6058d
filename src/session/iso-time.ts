import { BarometerValidationError } from '../errors/validation.js';

/**
 * The last whole second formatted, and its text up to the milliseconds: `2026-11-22T12:00:00.`. A module-level
 * cache of one entry (two variables, nothing that grows): every timeline point and answer writes its time, and the
 * updates of one second share the text. Measured here (decision 021): 30–80 ns a time with it, 1.4–2.7 µs for
 * `toISOString` on every call.
 */
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

/** The largest time a JavaScript Date can hold: ±8.64e15 ms (ECMA-262 "Time Values and Time Range"). */
export const MAX_TIME_MS = 8.64e15;

/**
 * A time as epoch ms: a number as is, an ISO text parsed. A time JavaScript cannot represent (beyond
 * ±8.64e15 ms) or text that is not a time is refused, naming the field, before anything is applied.
 * @throws BarometerValidationError
 */
export function toMillis(value: number | string, field = 'timestamp'): number {
  const parsed = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(parsed) || Math.abs(parsed) > MAX_TIME_MS) {
    throw new BarometerValidationError([
      {
        field,
        value,
        message:
          typeof value === 'number'
            ? `must be epoch milliseconds a date can hold (at most ${MAX_TIME_MS})`
            : 'must be an ISO 8601 time or epoch milliseconds',
        ...(typeof value === 'number' ? { allowed: { min: -MAX_TIME_MS, max: MAX_TIME_MS } } : {}),
      },
    ]);
  }
  return parsed;
}

/** A caller's time as epoch ms, refused (naming its field) when it is later than `latest`. */
export function notAhead(value: number | string, field: string, latest: number | undefined): number {
  const at = toMillis(value, field);
  if (latest !== undefined && at > latest) {
    throw new BarometerValidationError([
      {
        field,
        value,
        message: `is ahead of the service's clock by more than its tolerance (--clock-skew): at most ${isoTime(latest)}`,
        allowed: { max: latest },
      },
    ]);
  }
  return at;
}
