import * as z from 'zod';
import type { HealthThresholds } from './health-thresholds.js';

/** Context health: green, yellow, red, or gray when the provider reported no usage. */
export const HealthLevelSchema = z.enum(['healthy', 'caution', 'critical', 'unknown']);
export type HealthLevel = z.infer<typeof HealthLevelSchema>;

/**
 * The health level of one generation's prompt (seed 003): critical if the prompt is over the critical threshold,
 * caution if over the optimal one, else healthy. Without a usable figure the level is unknown: never zeros,
 * never a local estimate.
 *
 * @param promptTokens the provider-reported prompt tokens, or undefined when usage is unavailable.
 * @example healthLevel(210_000, { limit: 272_000, optimal: 200_000, critical: 244_800 }) // 'caution'
 */
export function healthLevel(promptTokens: number | undefined, thresholds: HealthThresholds): HealthLevel {
  // A negative or non-finite count is not usage; calling it healthy would be the guess the seed forbids.
  if (promptTokens === undefined || !Number.isFinite(promptTokens) || promptTokens < 0) return 'unknown';
  if (thresholds.critical !== undefined && promptTokens > thresholds.critical) return 'critical';
  if (promptTokens > thresholds.optimal) return 'caution';
  return 'healthy';
}
