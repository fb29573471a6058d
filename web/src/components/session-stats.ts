import { html } from 'htm/preact';
import type { HealthLevel, SessionView, SubAgentsAnswer } from '../../../src/contract/index.js';
import { estimateMarks } from '../estimates.js';
import { formatPercent, formatTokens, formatUsd } from '../format.js';
import { REGULATOR_LEVEL_CLASS } from '../health.js';
import { type KvFigures, kvText } from '../kv-text.js';
import { EstimateMark } from './estimate-mark.js';

function countdownText(countdown: number | null, level: HealthLevel): string {
  if (countdown != null) return 'generations to a forced new round';
  return level === 'critical' ? 'no countdown running' : 'not critical';
}

/** What the calls added up to, and with the sub-agents' when the session has any. */
function TotalsCard({ view, family }: { view: SessionView; family: SubAgentsAnswer | null }) {
  const own = view.totals;
  const all = family && family.subAgents.length > 0 ? family.withSubAgents : null;
  return html`<div data-figure="totals">
    <dt>Calls · tokens</dt>
    <dd>${formatTokens(own.calls)} <span class="unit">calls</span></dd>
    <dd class="muted">${formatTokens(own.tokens)} tokens sent and received</dd>
    ${
      all
        ? html`<dd class="muted with-sub-agents">
            with sub-agents: ${formatTokens(all.calls)} calls, ${formatTokens(all.tokens)} tokens
          </dd>`
        : null
    }
  </div>`;
}

function CostCard({ view, family }: { view: SessionView; family: SubAgentsAnswer | null }) {
  const signals = view.signals;
  const all = family && family.subAgents.length > 0 ? family.withSubAgents : null;
  const marks = estimateMarks(view);
  const count = family?.subAgents.length ?? 0;
  return html`<div data-figure="cost">
    <dt>Cost${all ? ' with sub-agents' : ''}</dt>
    <dd class="cost">${formatUsd(all ? all.costUsd : signals.costUsd)}<${EstimateMark} mark=${marks.cost} /></dd>
    ${
      all
        ? html`<dd class="muted own-cost">${`this session alone ${formatUsd(signals.costUsd)}, its ${count} ${
            count === 1 ? 'sub-agent' : 'sub-agents'
          } ${formatUsd(all.costUsd === null ? null : Math.max(0, all.costUsd - (signals.costUsd ?? 0)))}`}</dd>`
        : null
    }
    <dd class="muted">
      ${signals.costUsd === null ? 'no price known for this model' : `cache hits ${formatPercent(signals.cacheHitPercent)} of prompt tokens`}
    </dd>
  </div>`;
}

/** A local model's KV cache (seed 001): cells in use, free and headroom, the crash floor, critical. */
function KvCard({ kv }: { kv: KvFigures }) {
  const text = kvText(kv);
  return html`<div data-figure="kv" data-kv-critical=${String(text.critical)} data-kv-source=${kv.source}>
    <dt>KV cells${text.critical ? html` <span class="level level-critical">critical</span>` : null}</dt>
    <dd><span data-kv="cells">${text.cells}</span> <span class="unit">${text.of}</span></dd>
    <dd class="muted" data-kv="headroom">${text.headroom}</dd>
    <dd class="muted" data-kv="floor">${text.floor}</dd>
    <dd class="muted small">${text.source}</dd>
  </div>`;
}

/** The session's figures: prompt and window, thresholds, regulator, burn, countdown, KV cells, totals, cost, budget. */
export function SessionStats(props: {
  view: SessionView;
  level: HealthLevel;
  family: SubAgentsAnswer | null;
}) {
  const { view, level, family } = props;
  const { health, signals, regulator } = view;
  const marks = estimateMarks(view);
  return html`<dl class="stats">
    <div data-figure="prompt">
      <dt>Prompt tokens</dt>
      <dd>${formatTokens(signals.lastPromptTokens ?? health.promptTokens)}</dd>
      <dd class="muted">
        ${formatPercent(signals.percentOfWindow)} of ${formatTokens(view.profile.contextWindow)}<${EstimateMark} mark=${marks.window} />
      </dd>
    </div>
    <div>
      <dt>Optimal · critical</dt>
      <dd>${formatTokens(health.optimal)}</dd>
      <dd class="muted">critical above ${formatTokens(health.critical ?? view.profile.criticalMaxTokens)}</dd>
    </div>
    <div>
      <dt>Regulator</dt>
      <dd>
        ${regulator ? html`<span class=${`level ${REGULATOR_LEVEL_CLASS[regulator.level] ?? ''}`}>${regulator.level}</span>` : '—'}
      </dd>
      <dd class="muted">viability ${regulator ? `${regulator.sessionViability}/100` : '—'}</dd>
    </div>
    <div>
      <dt>Burn rate</dt>
      <dd>${formatTokens(signals.burnRateTokensPerMin)} <span class="unit">tokens/min</span></dd>
      <dd class="muted">
        ${regulator ? `${regulator.tokenBurnRate} on the regulator's scale` : ''}
        ${signals.tpmLimit ? ` · limit ${formatTokens(signals.tpmLimit)}/min` : ''}
      </dd>
    </div>
    <div>
      <dt>Countdown</dt>
      <dd>${health.countdown ?? '—'}</dd>
      <dd class="muted">${countdownText(health.countdown, level)}</dd>
    </div>
    ${signals.kv ? html`<${KvCard} kv=${signals.kv} />` : null}
    <${TotalsCard} view=${view} family=${family} />
    <${CostCard} view=${view} family=${family} />
    ${
      view.profile.tokenBudget !== null
        ? html`<div>
          <dt>Token budget</dt>
          <dd>${formatTokens(signals.budgetRemaining)}</dd>
          <dd class="muted">left of ${formatTokens(view.profile.tokenBudget)}</dd>
        </div>`
        : null
    }
  </dl>`;
}
