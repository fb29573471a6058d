import { html } from 'htm/preact';
import type { SessionView } from '../../../src/contract/index.js';
import { evictionRows, NOT_RESENT_EXPLANATION } from '../evictions.js';
import { formatClock, formatSaving, formatTokens, formatUsd } from '../format.js';

/**
 * What barometer did in a session: what its evictions removed, what that has saved so far (tokens), each eviction
 * with a link to the archived originals, and the place where the money saved will show.
 */
export function EvictionsPanel({ view }: { view: SessionView }) {
  const savings = view.evictions;
  const rows = evictionRows(view);
  if (!savings && !view.receipt && rows.length === 0) {
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
    <dl class="stats savings-stats">
      ${
        savings
          ? html`<div data-figure="evictions">
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
              </div>`
          : null
      }
      <${MoneySaved} receipt=${view.receipt} />
    </dl>
    ${savings ? html`<p class="muted small-print">${NOT_RESENT_EXPLANATION}</p>` : null}
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

/**
 * What the proxy's receipts measured: each request it forwarded acting, priced by the provider's cache model as the
 * agent sent it and by the provider's usage as it was sent; the difference is net of the cache writes barometer's
 * edits caused. A session that cost more says so.
 */
function MoneySaved({ receipt }: { receipt: SessionView['receipt'] }) {
  if (!receipt) {
    return html`<div data-figure="money-saved">
      <dt>Money saved</dt>
      <dd class="muted">not measured</dd>
      <dd class="muted">measured per request the proxy forwards acting (not through <code>/observe</code>)</dd>
    </div>`;
  }
  const dearer = receipt.savedUsd < 0;
  const percent = receipt.savedPercent === null ? '' : ` (${formatSaving(receipt.savedPercent)})`;
  return html`<div data-figure="money-saved">
    <dt>${dearer ? 'Cost more by' : 'Money saved'}</dt>
    <dd data-receipt-saved>${formatUsd(Math.abs(receipt.savedUsd))}${percent}</dd>
    <dd class="muted" data-receipt-detail>
      ${formatUsd(receipt.wouldHaveCostUsd)} as the agent sent its requests, ${formatUsd(receipt.costUsd)} by the
      provider's usage, over ${formatTokens(receipt.calls)} ${receipt.calls === 1 ? 'request' : 'requests'}
      ${receipt.unpricedCalls > 0 ? `(${formatTokens(receipt.unpricedCalls)} unpriced)` : ''}
    </dd>
    <dd class="muted" data-receipt-departures>
      ${
        receipt.departures === 0
          ? "the provider's cache reads matched the cache model on every request"
          : `${formatTokens(receipt.departures)} ${receipt.departures === 1 ? 'request' : 'requests'} where the provider's cache reads departed from the model`
      }
    </dd>
  </div>`;
}
