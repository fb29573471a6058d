import { describe, expect, it } from 'vitest';
import {
  formatAgo,
  formatBytes,
  formatCompactTokens,
  formatPercent,
  formatSaving,
  formatTokens,
  formatUsd,
} from './format.js';

const NOW = Date.UTC(2026, 10, 3, 12, 0, 0);
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString();

describe('formatAgo', () => {
  it('counts seconds under a minute', () => {
    expect(formatAgo(ago(5), NOW)).toBe('5s ago');
    expect(formatAgo(ago(59), NOW)).toBe('59s ago');
  });

  it('switches to minutes, hours and days', () => {
    expect(formatAgo(ago(60), NOW)).toBe('1m ago');
    expect(formatAgo(ago(3599), NOW)).toBe('59m ago');
    expect(formatAgo(ago(3600), NOW)).toBe('1h ago');
    expect(formatAgo(ago(47 * 3600), NOW)).toBe('47h ago');
    expect(formatAgo(ago(72 * 3600), NOW)).toBe('3d ago');
  });

  it('reads "just now" for the current second and a clock slightly ahead', () => {
    expect(formatAgo(ago(0), NOW)).toBe('just now');
    expect(formatAgo(ago(-3), NOW)).toBe('just now');
  });

  it('reads "never" without a time or with a bad one', () => {
    expect(formatAgo(null, NOW)).toBe('never');
    expect(formatAgo('not a date', NOW)).toBe('never');
  });
});

describe('token and percent figures', () => {
  it('groups thousands and shows a dash for a missing figure', () => {
    expect(formatTokens(123000)).toBe('123,000');
    expect(formatTokens(0)).toBe('0');
    expect(formatTokens(null)).toBe('—');
    expect(formatTokens(undefined)).toBe('—');
  });

  it('shortens axis labels', () => {
    expect(formatCompactTokens(950)).toBe('950');
    expect(formatCompactTokens(12_500)).toBe('12.5K');
    expect(formatCompactTokens(180_000)).toBe('180K');
    expect(formatCompactTokens(1_250_000)).toBe('1.25M');
  });

  it('shows a percent with at most one decimal', () => {
    expect(formatPercent(61.5)).toBe('61.5%');
    expect(formatPercent(61.54)).toBe('61.5%');
    expect(formatPercent(60)).toBe('60%');
    expect(formatPercent(null)).toBe('—');
  });

  it('shows file sizes in binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(3.5 * 1024 * 1024)).toBe('3.5 MiB');
  });
});

describe('formatUsd', () => {
  it.each([
    [9.52615, '$9.53'],
    [0.0855, '$0.086'],
    [0.004, '<$0.01'],
    [0, '$0'],
    [null, '—'],
  ] as const)('%s reads %s', (value, text) => {
    expect(formatUsd(value)).toBe(text);
  });
});

describe('formatSaving', () => {
  it('shows a saving as a fall and a what-if that costs more as a rise, never "−-"', () => {
    expect(formatSaving(12.34)).toBe('−12.3%');
    expect(formatSaving(0)).toBe('−0%');
    expect(formatSaving(-2.1)).toBe('+2.1%');
  });
});
