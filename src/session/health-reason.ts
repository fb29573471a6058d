import type { HealthLevel } from '../health/health-level.js';
import type { UsageRecord } from '../usage/usage-record.js';
import type { VerdictReason } from './session-schemas.js';
import type { SessionState } from './session-state.js';

/**
 * The health model's say (seed 003; DESIGN.md's verdict table): healthy and unknown continue, caution is
 * compress at normal priority, critical is compress, urgent (the countdown and the forced new round are events).
 */
export function healthReason(state: SessionState, level: HealthLevel, usage: UsageRecord): VerdictReason {
  const t = state.thresholds;
  const prompt = state.lastPrompt;
  switch (level) {
    case 'unknown':
      return {
        model: 'health',
        action: 'continue',
        priority: 'low',
        reason: usage.available
          ? 'context health unknown: no window known'
          : `usage unavailable (${usage.reason})`,
      };
    case 'healthy':
      return {
        model: 'health',
        action: 'continue',
        priority: 'low',
        reason: `healthy: ${prompt} prompt tokens <= optimal ${t.optimal}`,
      };
    case 'caution':
      return {
        model: 'health',
        action: 'compress',
        priority: 'normal',
        reason: `caution: ${prompt} prompt tokens > optimal ${t.optimal}${t.critical === null ? '' : ` (critical at ${t.critical})`}`,
      };
    case 'critical':
      return {
        model: 'health',
        action: 'compress',
        priority: 'urgent',
        reason:
          state.health.countdown === 0
            ? `critical: ${prompt} prompt tokens > critical ${t.critical}; a new round is due (restart with the carried-over state, or compact)`
            : `critical: ${prompt} prompt tokens > critical ${t.critical}; new round in ${state.health.countdown ?? 0} generations`,
      };
  }
}
