import { html } from 'htm/preact';
import type { HealthLevel } from '../../../src/contract/index.js';
import { HEALTH_STYLES } from '../health.js';

/**
 * The context-health indicator: a coloured pill that always carries its text label. Tools read it through
 * `data-session-id` and `data-health`.
 */
export function HealthBadge({
  level,
  sessionId,
  large = false,
}: {
  level: HealthLevel;
  sessionId?: string;
  large?: boolean;
}) {
  const style = HEALTH_STYLES[level];
  return html`<span
    class=${`health health-${level}${large ? ' health-large' : ''}`}
    data-session-id=${sessionId}
    data-health=${level}
    title=${`Context health: ${style.label} — ${style.description}`}
    ><span class="health-dot" aria-hidden="true"></span
    ><span class="health-label">${style.label}</span></span
  >`;
}
