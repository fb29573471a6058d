import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './api.js';

describe('retryDelayMs (the dashboard honours Retry-After)', () => {
  it('waits the seconds the server names', () => {
    expect(retryDelayMs('7', 0)).toBe(7000);
  });

  it('reads an HTTP date', () => {
    const now = Date.UTC(2026, 10, 22, 12, 0, 0);
    expect(retryDelayMs('Sun, 22 Nov 2026 12:00:05 GMT', 0, now)).toBe(5000);
  });

  it('backs off from one second, doubling, without the header', () => {
    expect([0, 1, 2].map((attempt) => retryDelayMs(null, attempt))).toEqual([1000, 2000, 4000]);
  });

  it('gives up on a wait longer than 30 s, so the error shows instead', () => {
    expect(retryDelayMs('60', 0)).toBeUndefined();
  });
});
