import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { ReportResult, ReportRowAnswer } from '../../../src/contract/index.js';
import { api } from '../api.js';
import { formatCompactTokens, formatPercent, formatTokens, formatUsd } from '../format.js';
import { costBars } from '../report-chart.js';

const VIEWS = [
  ['session', 'Session'],
  ['daily', 'Day'],
  ['project', 'Project'],
  ['model', 'Model'],
  ['blocks', '5-hour block'],
] as const;

type ReportState =
  | { phase: 'loading' }
  | { phase: 'done'; table: ReportResult; daily: ReportResult }
  | { phase: 'failed'; message: string };

const CHART = { width: 640, height: 200, left: 48, bottom: 24, top: 8 };

/** Cost per day as bars, each with the what-if's cost beside it (SVG: a few dozen bars need no chart library). */
function CostChart({ daily }: { daily: ReportResult }) {
  const { bars, maxUsd } = costBars(daily.rows);
  if (bars.length === 0) return html`<p class="muted">No calls in this range.</p>`;
  const plotWidth = CHART.width - CHART.left;
  const plotHeight = CHART.height - CHART.bottom - CHART.top;
  const slot = plotWidth / bars.length;
  const barWidth = Math.max(1, Math.min(18, slot / 2 - 1));
  const y = (usd: number) => CHART.top + plotHeight - (maxUsd === 0 ? 0 : (usd / maxUsd) * plotHeight);
  const labelEvery = Math.ceil(bars.length / 8);
  return html`<figure class="cost-chart" data-cost-chart>
    <svg viewBox=${`0 0 ${CHART.width} ${CHART.height}`} role="img" aria-label=${`Cost per day over ${bars.length} days, with the what-if's cost beside each day`}>
      <text x="0" y=${CHART.top + 10} class="axis">${formatUsd(maxUsd)}</text>
      <text x="0" y=${CHART.top + plotHeight} class="axis">$0</text>
      <line x1=${CHART.left} x2=${CHART.width} y1=${CHART.top + plotHeight} y2=${CHART.top + plotHeight} class="baseline" />
      ${bars.map((bar, index) => {
        const x = CHART.left + index * slot + slot / 2;
        return html`<g data-day=${bar.day}>
          <rect class="bar-cost" x=${x - barWidth} y=${y(bar.costUsd)} width=${barWidth} height=${CHART.top + plotHeight - y(bar.costUsd)}>
            <title>${bar.day}: ${formatUsd(bar.costUsd)}</title>
          </rect>
          <rect class="bar-whatif" x=${x} y=${y(bar.whatIfCostUsd)} width=${barWidth} height=${CHART.top + plotHeight - y(bar.whatIfCostUsd)}>
            <title>${bar.day} with barometer: ${formatUsd(bar.whatIfCostUsd)}</title>
          </rect>
          ${index % labelEvery === 0 ? html`<text x=${x} y=${CHART.height - 6} class="axis" text-anchor="middle">${bar.day.slice(5)}</text>` : null}
        </g>`;
      })}
    </svg>
    <figcaption class="muted"><span class="swatch bar-cost"></span> cost <span class="swatch bar-whatif"></span> with barometer's what-if</figcaption>
  </figure>`;
}

function WhatIfPanel({ total }: { total: ReportRowAnswer }) {
  const whatIf = total.whatIf;
  // A what-if that costs more is said so, never shown as a negative saving.
  const costlier = (whatIf.savedCostUsd ?? 0) < 0;
  return html`<dl class="stats report-whatif" data-report-whatif>
    <div><dt>Cost</dt><dd data-report-cost>${formatUsd(total.costUsd)}</dd></div>
    <div><dt>Calls</dt><dd data-report-calls>${formatTokens(total.calls)}</dd></div>
    <div><dt data-report-saved-label>${costlier ? 'barometer would have cost more by' : 'barometer would have saved'}</dt><dd data-report-saved>${whatIf.sessions === 0 ? '—' : formatUsd(costlier ? -(whatIf.savedCostUsd ?? 0) : whatIf.savedCostUsd)}</dd></div>
    <div><dt>Prompt tokens saved</dt><dd>${whatIf.sessions === 0 ? '—' : formatCompactTokens(whatIf.savedPromptTokens)}</dd></div>
    <div><dt>Compactions avoided</dt><dd>${whatIf.sessions === 0 ? '—' : whatIf.compactionsAvoided}</dd></div>
    <div><dt>Sessions with a what-if</dt><dd>${whatIf.sessions}</dd></div>
    ${total.proxy.sessions === 0 ? null : html`<div><dt title="measured: the receipts of the requests barometer's proxy forwarded">Saved by the proxy (${total.proxy.sessions} sessions)</dt><dd data-report-proxy-saved>${formatUsd(total.proxy.savedUsd)}</dd></div>`}
  </dl>`;
}

function ReportTable({ result }: { result: ReportResult }) {
  const keyHeader = VIEWS.find(([value]) => value === result.view)?.[1] ?? 'Key';
  const row = (entry: ReportRowAnswer, total = false) => html`<tr class=${total ? 'total' : undefined}>
    <th scope="row">${total ? 'Total' : entry.key}</th>
    ${result.view === 'session' ? html`<td>${total ? '' : entry.agents.join(', ')}</td><td>${total ? '' : entry.projects.join(', ')}</td>` : null}
    <td class="num">${formatTokens(entry.calls)}</td>
    <td class="num">${formatCompactTokens(entry.inputTokens)}</td>
    <td class="num">${formatCompactTokens(entry.outputTokens)}</td>
    <td class="num">${formatCompactTokens(entry.cacheReadTokens)}</td>
    <td class="num">${formatCompactTokens(entry.cacheWriteTokens)}</td>
    <td class="num" data-cost>${formatUsd(entry.costUsd)}${entry.unpricedCalls > 0 ? '*' : ''}</td>
    <td class="num">${entry.autoCompactions}/${entry.manualCompactions}</td>
    <td class="num">${entry.peakPromptTokens === null ? '—' : formatCompactTokens(entry.peakPromptTokens)}</td>
    <td class="num">${formatPercent(entry.cautionPercent)}</td>
    <td class="num">${formatPercent(entry.criticalPercent)}</td>
    <td class="num">${entry.whatIf.sessions === 0 ? '—' : formatCompactTokens(entry.whatIf.savedPromptTokens)}</td>
    <td class="num">${entry.whatIf.sessions === 0 ? '—' : formatUsd(entry.whatIf.savedCostUsd)}</td>
    <td class="num">${entry.whatIf.sessions === 0 ? '—' : entry.whatIf.compactionsAvoided}</td>
    <td class="num" data-proxy-saved>${entry.proxy.sessions === 0 ? '—' : formatUsd(entry.proxy.savedUsd)}</td>
  </tr>`;
  return html`<div class="table-wrap tall">
    <table class="report" data-report-rows=${result.rows.length}>
      <thead>
        <tr>
          <th scope="col">${keyHeader}</th>
          ${result.view === 'session' ? html`<th scope="col">Agent</th><th scope="col">Project</th>` : null}
          <th scope="col" class="num">Calls</th>
          <th scope="col" class="num">Input</th>
          <th scope="col" class="num">Output</th>
          <th scope="col" class="num">Cache read</th>
          <th scope="col" class="num">Cache write</th>
          <th scope="col" class="num">Cost</th>
          <th scope="col" class="num" title="the agent's own / manual">Compactions</th>
          <th scope="col" class="num">Peak prompt</th>
          <th scope="col" class="num">Caution</th>
          <th scope="col" class="num">Critical</th>
          <th scope="col" class="num">What-if: tokens saved</th>
          <th scope="col" class="num">$ saved</th>
          <th scope="col" class="num">Compactions avoided</th>
          <th scope="col" class="num" title="measured by barometer's proxy on the sessions it forwarded: its receipts">Proxy: $ saved</th>
        </tr>
      </thead>
      <tbody>${result.rows.map((entry) => row(entry))}</tbody>
      <tfoot>${row(result.total, true)}</tfoot>
    </table>
  </div>`;
}

/**
 * What the agents on the service's machine cost: GET /api/v1/report (the code of `barometer report`), a cost-per-day
 * chart with the what-if beside it, and the table of the chosen view.
 */
export function ReportPage() {
  const [view, setView] = useState<string>('session');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [state, setState] = useState<ReportState>({ phase: 'loading' });

  useEffect(() => {
    let current = true;
    setState({ phase: 'loading' });
    const range = { ...(since ? { since } : {}), ...(until ? { until } : {}) };
    // The daily view feeds the chart; the table shows the chosen view (the second read is answered from the cache).
    api
      .report({ view: 'daily', ...range })
      .then(async (daily) => {
        const table = view === 'daily' ? daily : await api.report({ view, ...range });
        if (current) setState({ phase: 'done', table, daily });
      })
      .catch((error: Error) => current && setState({ phase: 'failed', message: error.message }));
    return () => {
      current = false;
    };
  }, [view, since, until]);

  return html`<section aria-labelledby="report-title">
    <div class="page-head"><h1 id="report-title">Report</h1></div>
    <p class="muted lead">
      What the agents on this machine cost, from their logs (Claude Code, Codex, pi, Gemini CLI), with what
      barometer's policy would have saved: the same figures as <code>barometer report</code>.
    </p>
    <form class="report-filters" onSubmit=${(event: Event) => event.preventDefault()}>
      <label>
        View
        <select name="view" value=${view} onChange=${(event: Event) => setView((event.target as HTMLSelectElement).value)}>
          ${VIEWS.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
        </select>
      </label>
      <label>Since <input type="date" name="since" value=${since} onChange=${(event: Event) => setSince((event.target as HTMLInputElement).value)} /></label>
      <label>Until <input type="date" name="until" value=${until} onChange=${(event: Event) => setUntil((event.target as HTMLInputElement).value)} /></label>
    </form>
    <div aria-live="polite">
      ${
        state.phase === 'loading'
          ? html`<p class="muted">Reading the logs…</p>`
          : state.phase === 'failed'
            ? html`<p class="error" role="alert">Could not build the report: ${state.message}</p>`
            : null
      }
    </div>
    ${
      state.phase === 'done'
        ? html`<div class="report-top" data-report-view=${state.table.view}>
            <${CostChart} daily=${state.daily} />
            <${WhatIfPanel} total=${state.table.total} />
          </div>
          <${ReportTable} result=${state.table} />
          <ol class="footnotes muted">${state.table.footnotes.map((note) => html`<li>${note}</li>`)}</ol>
          <p class="muted">
            ${state.table.files.found} log files (${state.table.files.cached} from the cache); days in ${state.table.timeZone}.
          </p>`
        : null
    }
  </section>`;
}
