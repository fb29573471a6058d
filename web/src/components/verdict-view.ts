import { html } from 'htm/preact';
import type { Verdict, VerdictReason } from '../../../src/contract/index.js';

/** The action of a verdict as a tag whose colour follows its severity, always with the word. */
export function ActionTag({ action, priority }: { action: string | null; priority?: string | null }) {
  if (!action) return html`<span class="muted">—</span>`;
  return html`<span class=${`action action-${action}`}
    >${action}${priority ? html`<span class="action-priority"> · ${priority}</span>` : null}</span
  >`;
}

/** A reason from the API, which is either structured (sessions) or plain text (older replays). */
export function reasonParts(reason: VerdictReason | string): {
  model: string | null;
  text: string;
  action: string | null;
} {
  return typeof reason === 'string'
    ? { model: null, text: reason, action: null }
    : { model: reason.model, text: reason.reason, action: reason.action };
}

/** Every model's reason, including those that said "continue". */
export function ReasonList({ reasons }: { reasons: ReadonlyArray<VerdictReason | string> }) {
  if (reasons.length === 0) return html`<p class="muted">No reasons given.</p>`;
  return html`<ul class="reasons">
    ${reasons.map((reason) => {
      const parts = reasonParts(reason);
      return html`<li>
        ${parts.model ? html`<span class="reason-model">${parts.model}</span>` : null}
        ${parts.action ? html`<${ActionTag} action=${parts.action} />` : null}
        <span class="reason-text">${parts.text}</span>
      </li>`;
    })}
  </ul>`;
}

/** The current verdict: the winning action and the reasons of every model. */
export function VerdictCard({ verdict }: { verdict: Verdict | null }) {
  if (!verdict) return html`<p class="muted">No verdict yet: post a usage event to get one.</p>`;
  return html`<div class="verdict">
    <p class="verdict-action">
      Verdict: <${ActionTag} action=${verdict.action} priority=${verdict.priority} />
      ${verdict.action === 'wait' && verdict.waitSeconds !== null ? html`<span class="muted"> for ${verdict.waitSeconds} s (a rate limit refills)</span>` : null}
    </p>
    <${ReasonList} reasons=${verdict.reasons} />
  </div>`;
}
