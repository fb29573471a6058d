import { html } from 'htm/preact';
import type { SessionView } from '../../../src/contract/index.js';
import { evictionRows, NOT_RESENT_EXPLANATION } from '../evictions.js';
import { formatClock, formatTokens } from '../format.js';

/**
 * What barometer did in a session: what its evictions removed, what that has saved so far (tokens), each eviction
 * with a link to the archived originals, and the place where the money saved will show.
 */
export function EvictionsPanel({ view }: { view: SessionView }) {
  const savings = view.evictions;
  const rows = evictionRows(view);
  if (!savings && rows.length === 0) {
    return html`<section aria-labelledby="evictions-title" class="barometer-did">
      <h2 id="evictions-title">What barometer did</h2>
      <p class="muted">
        No evictions yet. Through <code>barometer proxy</code> or <code>barometer wrap</code>, barometer replaces the
        outputs of finished sub-tasks by tombstones and keeps the originals in an archive; each eviction shows here.
      </p>
    </section>`;
  }
  return html`<section aria-labelledby="evictions-title" class="barometer-did">
    <h2 id="evictions-title">What barometer did</h2>
    ${
      savings
        ? html`<dl class="stats savings-stats">
            <div data-figure="evictions">
              <dt>Evictions</dt>
              <dd>${savings.evictions}</dd>
              <dd class="muted">${formatTokens(savings.items)} items to the archive</dd>
            </div>
            <div data-figure="tokens-freed">
              <dt>Tokens removed</dt>
              <dd>${formatTokens(savings.tokensFreed)}</dd>
              <dd class="muted">freed from the context, each counted once</dd>
            </div>
            <div data-figure="tokens-not-resent">
              <dt>Saved so far</dt>
              <dd>${formatTokens(savings.tokensNotResent)} <span class="unit">tokens</span></dd>
              <dd class="muted">not resent, at most: freed tokens × later calls</dd>
            </div>
            <div data-figure="money-saved">
              <dt>Money saved</dt>
              <dd class="muted">not measured yet</dd>
              <dd class="muted">the savings receipt (cost as sent vs as the agent sent it) comes in a later release</dd>
            </div>
          </dl>
          <p class="muted small-print">${NOT_RESENT_EXPLANATION}</p>`
        : null
    }
    <div class="table-wrap">
      <table class="evictions">
        <caption class="visually-hidden">Evictions, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Sub-task</th>
            <th scope="col" class="num">Items</th>
            <th scope="col" class="num">Tokens removed</th>
            <th scope="col" class="num">Calls since</th>
            <th scope="col">Originals</th>
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            (row) => html`<tr data-eviction=${row.subTask}>
              <td>${formatClock(row.at)} <span class="muted">after call ${row.generation}</span></td>
              <td>
                <strong>${row.subTask}</strong>
                ${row.boundary ? html`<div class="muted">ended by ${row.boundary}</div>` : null}
              </td>
              <td class="num">${formatTokens(row.items)}</td>
              <td class="num">${formatTokens(row.tokensFreed)}</td>
              <td class="num">${formatTokens(row.callsSince)}</td>
              <td>
                <a href=${row.archiveHref} class="archive-link">Open the archived originals</a>
                <div class="muted"><a href=${row.archiveApi} target="_blank" rel="noopener">as JSON</a></div>
              </td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}
