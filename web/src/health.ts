import type { HealthLevel } from '../../src/contract/index.js';

/**
 * The health levels, in order of severity, for the page's own lists (the web imports only types from src: this is
 * the contract's HealthLevelSchema's list, and the compiler checks that the two agree both ways).
 */
export const HEALTH_LEVELS = [
  'healthy',
  'caution',
  'critical',
  'unknown',
] as const satisfies readonly HealthLevel[];
const everyLevelListed: HealthLevel extends (typeof HEALTH_LEVELS)[number] ? true : never = true;
void everyLevelListed;

/** How a health level looks: a text label always goes with the colour, so colour is never the only cue. */
export interface HealthStyle {
  label: string;
  /** CSS colour of the indicator; the same values are declared in styles.css. */
  color: string;
  /** A sentence for screen readers and the tooltip. */
  description: string;
}

/** Green healthy, yellow caution, red critical, gray unknown (seed 003's suggested visual states). */
export const HEALTH_STYLES: Readonly<Record<HealthLevel, HealthStyle>> = {
  healthy: {
    label: 'Healthy',
    color: '#1a7f37',
    description: 'prompt at or below the optimal size',
  },
  caution: {
    label: 'Caution',
    color: '#d4a72c',
    description: 'prompt above the optimal size',
  },
  critical: {
    label: 'Critical',
    color: '#cf222e',
    description: 'prompt above the critical size',
  },
  unknown: {
    label: 'Unknown',
    color: '#6e7781',
    description: 'usage unavailable',
  },
};

/** A level from the API, or `unknown` for anything else (a missing health or a value this build does not know). */
export function healthLevelOf(value: unknown): HealthLevel {
  return HEALTH_LEVELS.includes(value as HealthLevel) ? (value as HealthLevel) : 'unknown';
}

/** Colour of the regulator's levels, as the CLI paints them (src/cli/format-pressure.ts). */
export const REGULATOR_LEVEL_CLASS: Readonly<Record<string, string>> = {
  LOW: 'level-low',
  MODERATE: 'level-moderate',
  HIGH: 'level-high',
  CRITICAL: 'level-critical',
};
