import { describe, expect, it } from 'vitest';
import { HEALTH_LEVELS, HEALTH_STYLES, healthLevelOf } from './health.js';

/** The dominant channel of a #rrggbb colour, to check "green", "yellow", "red", "gray" without exact values. */
function hue(hex: string): 'green' | 'yellow' | 'red' | 'gray' {
  const [r, g, b] = [1, 3, 5].map((start) => Number.parseInt(hex.slice(start, start + 2), 16)) as [
    number,
    number,
    number,
  ];
  if (Math.max(r, g, b) - Math.min(r, g, b) < 24) return 'gray';
  if (r > 150 && g > 120 && b < 100) return 'yellow';
  if (g > r && g > b) return 'green';
  return 'red';
}

describe('health styles', () => {
  it('paints healthy green, caution yellow, critical red and unknown gray (seed 003)', () => {
    expect(hue(HEALTH_STYLES.healthy.color)).toBe('green');
    expect(hue(HEALTH_STYLES.caution.color)).toBe('yellow');
    expect(hue(HEALTH_STYLES.critical.color)).toBe('red');
    expect(hue(HEALTH_STYLES.unknown.color)).toBe('gray');
  });

  it('gives every level a distinct text label, so colour is never the only cue', () => {
    const labels = HEALTH_LEVELS.map((level) => HEALTH_STYLES[level].label);
    expect(new Set(labels).size).toBe(4);
    expect(labels).toEqual(['Healthy', 'Caution', 'Critical', 'Unknown']);
  });

  it('declares the same colours in the stylesheet', async () => {
    const { readFileSync } = await import('node:fs');
    const css = readFileSync(new URL('./styles.css', import.meta.url), 'utf8');
    for (const level of HEALTH_LEVELS) {
      expect(css).toContain(`--${level}: ${HEALTH_STYLES[level].color};`);
    }
  });
});

describe('healthLevelOf', () => {
  it('keeps the four levels and reads anything else as unknown', () => {
    for (const level of HEALTH_LEVELS) expect(healthLevelOf(level)).toBe(level);
    expect(healthLevelOf(undefined)).toBe('unknown');
    expect(healthLevelOf('green')).toBe('unknown');
  });
});
