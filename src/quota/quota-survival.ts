import type { QuotaDimension, QuotaStanding } from './quota-standings.js';

/** How each quota dimension is named in a reason. */
export const QUOTA_LABELS: Readonly<Record<QuotaDimension, string>> = {
  requests: 'requests per minute',
  input: 'input tokens per minute',
  output: 'output tokens per minute',
  tokens: 'tokens per minute',
};

/** One quota as seed 004's survival rule judged it: the next request, with the margin, against what is left. */
export interface SurvivalCheck {
  standing: QuotaStanding;
  margin: number;
  /** `need × margin`, rounded to 2 decimals. */
  needed: number;
  /** `needed > left`: this quota cannot take the next request. */
  over: boolean;
}

/** Seed 004's survival rule over every quota a session knows: it fires when some quota cannot take the next request. */
export interface QuotaSurvival {
  fires: boolean;
  checks: SurvivalCheck[];
}

/**
 * Seed 004's survival rule over every quota: it fires when the next request, with the margin, needs more than
 * some quota has left. Without any limit known, it is not evaluated (undefined).
 */
export function quotaSurvival(quotas: readonly QuotaStanding[], margin: number): QuotaSurvival | undefined {
  if (quotas.length === 0) return undefined;
  const checks: SurvivalCheck[] = [];
  let fires = false;
  for (const standing of quotas) {
    const needed = Math.round(standing.need * margin * 100) / 100;
    const over = needed > standing.left;
    fires ||= over;
    checks.push({ standing, margin, needed, over });
  }
  return { fires, checks };
}

/** The survival rule's line, as the triggers' trail shows it. Plain ASCII, as every trigger line. */
export function survivalText(survival: QuotaSurvival): string {
  const parts: string[] = [];
  for (const { standing, margin, needed, over } of survival.checks) {
    parts.push(
      `${QUOTA_LABELS[standing.dimension]}: next request ${standing.need} x ${margin} = ${needed} ${over ? '>' : '<='} ${standing.left} left (${standing.limit} - ${standing.used} ${standing.source === 'headers' ? "as the provider's headers report" : 'used in the last 60 s'})`,
    );
  }
  // Joined: one flat string, which the answer's writer reads whole (a chain of `+=` would be flattened there).
  return `survival: ${parts.join('; ')}${survival.fires ? ': fires, overriding every other gate' : ''}`;
}

/** Seconds until the next request fits every quota: null when it fits now, when no quota is known, or never. */
export function quotaWaitSeconds(quotas: readonly QuotaStanding[]): number | null {
  let wait = 0;
  for (const quota of quotas) {
    if (quota.waitSeconds === null) return null;
    wait = Math.max(wait, quota.waitSeconds);
  }
  return wait > 0 ? wait : null;
}

/** The token quota (not requests) with the smallest share of its limit left, or undefined when none has a limit. */
export function tightestTokenQuota(quotas: readonly QuotaStanding[]): QuotaStanding | undefined {
  let tightest: QuotaStanding | undefined;
  for (const quota of quotas) {
    if (quota.dimension === 'requests' || quota.limit <= 0) continue;
    if (tightest === undefined || quota.left / quota.limit < tightest.left / tightest.limit) tightest = quota;
  }
  return tightest;
}
