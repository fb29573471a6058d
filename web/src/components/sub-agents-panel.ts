import { html } from 'htm/preact';
import type { SubAgentsAnswer } from '../../../src/contract/index.js';
import { formatTokens, formatUsd } from '../format.js';
import { subAgentRows } from '../sub-agents.js';

/** A session's sub-agents, each a link to its page, with what each cost. */
export function SubAgentsPanel({ answer }: { answer: SubAgentsAnswer | null }) {
  if (!answer || answer.subAgents.length === 0) return null;
  const rows = subAgentRows(answer);
  return html`<section aria-labelledby="sub-agents-title">
    <h2 id="sub-agents-title">Sub-agents (${rows.length})</h2>
    <div class="table-wrap">
      <table class="sub-agents">
        <thead>
          <tr>
            <th scope="col">Sub-agent</th>
            <th scope="col" class="num">Calls</th>
            <th scope="col" class="num">Tokens</th>
            <th scope="col" class="num">Cost</th>
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            (row) => html`<tr data-sub-agent=${row.id}>
              <th scope="row" style=${row.depth > 1 ? `padding-left: ${0.5 + (row.depth - 1) * 1.25}rem` : undefined}>
                ${row.depth > 1 ? html`<span class="muted" aria-hidden="true">↳ </span>` : null}
                <a href=${row.href} class="session-link">${row.heading}</a>
                <span class="muted model">${row.agentModel} · ${row.id}</span>
              </th>
              <td class="num">${formatTokens(row.calls)}</td>
              <td class="num">${formatTokens(row.tokens)}</td>
              <td class="num cost">${formatUsd(row.costUsd)}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}
