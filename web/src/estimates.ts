import type { SessionSummary } from '../../src/contract/index.js';

/**
 * Where a profile figure came from, as the API may say (`windowSource`, `priceSource`: registry, family-estimate,
 * agent-reported, config, session) with the model it was estimated from. Absent from services that do not say:
 * then nothing is marked.
 */
interface ProfileSources {
  source?: unknown;
  windowSource?: unknown;
  priceSource?: unknown;
  estimatedFrom?: unknown;
}

/** The mark beside a figure: `estimated` with why, when its source is a family estimate; null otherwise. */
export interface EstimateMark {
  label: 'estimated';
  /** For the tooltip: `estimated from claude-opus-4-6 (same family)`. */
  title: string;
}

function markOf(source: unknown, estimatedFrom: unknown, what: string): EstimateMark | null {
  if (source !== 'family-estimate') return null;
  const from = typeof estimatedFrom === 'string' && estimatedFrom !== '' ? ` from ${estimatedFrom}` : '';
  return {
    label: 'estimated',
    title: `The model is not in barometer's registry: its ${what} is estimated${from}, a model of the same family.`,
  };
}

/** The marks of a session's window and cost. */
export function estimateMarks(view: Pick<SessionSummary, 'profile'>): {
  window: EstimateMark | null;
  cost: EstimateMark | null;
} {
  const profile = view.profile as SessionSummary['profile'] & ProfileSources;
  return {
    window: markOf(profile.windowSource ?? profile.source, profile.estimatedFrom, 'window'),
    cost: markOf(profile.priceSource ?? profile.source, profile.estimatedFrom, 'price'),
  };
}
