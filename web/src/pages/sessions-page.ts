import { html } from 'htm/preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { SessionView } from '../../../src/contract/index.js';
import { api, eventsUrl } from '../api.js';
import { EmptyState } from '../components/empty-state.js';
import { EstimateMark } from '../components/estimate-mark.js';
import { HealthBadge } from '../components/health-badge.js';
import { LiveStatus } from '../components/live-status.js';
import { ActionTag } from '../components/verdict-view.js';
import { AccountWindows } from '../components/windows-panel.js';
import { estimateMarks } from '../estimates.js';
import { formatAgo, formatPercent, formatTokens, formatUsd } from '../format.js';
import { HEALTH_STYLES, REGULATOR_LEVEL_CLASS } from '../health.js';
import { useEventStream, useNow } from '../hooks.js';
import { type KvFigures, kvListText } from '../kv-text.js';
import { sessionPath } from '../router.js';
import { sessionHeading } from '../session-heading.js';
import { countByHealth, nestSessions, removeSession, sessionHealth, upsertSession } from '../session-list.js';

/** Every session at a glance, kept current by the `/api/v1/events` stream. */
export function SessionsPage() {
  const [sessions, setSessions] = useState<ReadonlyMap<string, SessionView>>(new Map());
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Where the next page of the list starts (the service lists 100 at a time); null once every page is here.
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const now = useNow();

  const onSession = useCallback((data: unknown) => {
    setSessions((current) => upsertSession(current, data as SessionView));
  }, []);
  const onDeleted = useCallback((data: unknown) => {
    const id = (data as { id?: string; sessionId?: string }).id ?? (data as { sessionId?: string }).sessionId;
    if (id !== undefined) setSessions((current) => removeSession(current, id));
  }, []);
  // The stream may open with a snapshot of every session; it counts as the list.
  const onSnapshot = useCallback((data: unknown) => {
    const views = (data as { sessions?: SessionView[] }).sessions;
    if (!Array.isArray(views)) return;
    setSessions((current) => views.reduce(upsertSession, current));
    setLoaded(true);
  }, []);
  // Subscribe before listing, so that an update between the two is not lost; the newer view wins.
  const status = useEventStream(eventsUrl(), {
    session: onSession,
    deleted: onDeleted,
    sessions: onSnapshot,
  });

  const loadPage = useCallback((cursor: string | null) => {
    setLoadingMore(true);
    api.listSessions(cursor).then(
      (page) => {
        setSessions((current) => page.sessions.reduce(upsertSession, current));
        setNextCursor(page.nextCursor);
        setLoaded(true);
        setLoadingMore(false);
      },
      (failure: Error) => {
        setError(failure.message);
        setLoaded(true);
        setLoadingMore(false);
      },
    );
  }, []);
  useEffect(() => {
    loadPage(null);
  }, [loadPage]);

  const rows = nestSessions(sessions.values());
  const list = rows.map((row) => row.view);
  const counts = countByHealth(list);

  return html`<section aria-labelledby="sessions-title">
    <div class="page-head">
      <h1 id="sessions-title">Sessions</h1>
      <${LiveStatus} status=${status} />
    </div>
    ${error ? html`<p class="error" role="alert">Could not list the sessions: ${error}</p>` : null}
    ${
      !loaded
        ? html`<p class="muted">Loading sessions…</p>`
        : list.length === 0
          ? html`<${EmptyState} />`
          : html`
            <p class="summary" aria-live="polite">
              ${`${list.length} ${list.length === 1 ? 'session' : 'sessions'}: `}
              ${(['critical', 'caution', 'healthy', 'unknown'] as const)
                .filter((level) => counts[level] > 0)
                .map((level) => `${counts[level]} ${HEALTH_STYLES[level].label.toLowerCase()}`)
                .join(', ')}
            </p>
            <${AccountWindows} views=${list} />
            <div class="table-wrap">
              <table class="sessions">
                <caption class="visually-hidden">
                  Sessions, the ones needing attention first: critical, caution, healthy, unknown
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Session</th>
                    <th scope="col">Health</th>
                    <th scope="col" class="num">Prompt tokens</th>
                    <th scope="col" class="num">Of window</th>
                    <th scope="col" class="num" title="A local model's KV cache: cells in use of n_ctx, critical below the crash floor">KV cells</th>
                    <th scope="col">Regulator</th>
                    <th scope="col">Verdict</th>
                    <th scope="col" class="num">Cost</th>
                    <th scope="col" class="num" title="Share of prompt tokens read from the provider's cache">Cache</th>
                    <th scope="col" class="num" title="Share of the 5-hour subscription window this session burnt">5h window</th>
                    <th scope="col">Updated</th>
                  </tr>
                </thead>
                <tbody>
                  ${rows.map(
                    (row) =>
                      html`<${SessionRow} key=${row.view.id} view=${row.view} depth=${row.depth} now=${now} />`,
                  )}
                </tbody>
              </table>
            </div>
            ${
              nextCursor === null
                ? null
                : html`<p>
                    <button type="button" class="more" disabled=${loadingMore} onClick=${() => loadPage(nextCursor)}>
                      ${loadingMore ? 'Loading…' : 'Show more sessions'}
                    </button>
                  </p>`
            }
            <${EmptyState} compact=${true} />
          `
    }
  </section>`;
}

/** One session's row; a sub-agent's is indented under its parent's and says whose it is. */
function SessionRow({ view, depth, now }: { view: SessionView; depth: number; now: number }) {
  const level = sessionHealth(view);
  const heading = sessionHeading(view);
  const regulatorLevel = view.regulator?.level ?? null;
  return html`<tr data-row-session=${view.id} data-parent=${view.parentId ?? undefined} data-depth=${depth}>
    <th scope="row" class=${depth > 0 ? 'child' : undefined} style=${depth > 0 ? `padding-left: ${0.5 + depth * 1.25}rem` : undefined}>
      <div class="session-name">
      ${depth > 0 ? html`<span class="muted sub-agent" aria-label=${`sub-agent of ${view.parentId}`}>↳</span>` : null}
      <a href=${sessionPath(view.id)} class="session-link">
        ${heading.project ? html`<span class="project">${heading.project}</span>` : null}
        ${heading.request ? html`<span class="request">${heading.request}</span>` : null}
        ${heading.named ? null : view.id}
      </a>
      </div>
      <span class="muted model">
        ${heading.agentModel}${heading.named ? ` · ${view.id}` : ''}${
          view.subAgents.length > 0
            ? ` · ${view.subAgents.length} ${view.subAgents.length === 1 ? 'sub-agent' : 'sub-agents'}`
            : ''
        }
      </span>
    </th>
    <td><${HealthBadge} level=${level} sessionId=${view.id} /></td>
    <td class="num">${formatTokens(view.signals.lastPromptTokens ?? view.health.promptTokens)}</td>
    <td class="num">${formatPercent(view.signals.percentOfWindow)}</td>
    <${KvCell} kv=${view.signals.kv} />
    <td>
      ${
        regulatorLevel
          ? html`<span class=${`level ${REGULATOR_LEVEL_CLASS[regulatorLevel] ?? ''}`}>${regulatorLevel}</span>
            <span class="muted"> ${view.regulator?.sessionViability ?? ''}</span>`
          : html`<span class="muted">—</span>`
      }
    </td>
    <td><${ActionTag} action=${view.verdict?.action ?? null} priority=${view.verdict?.priority ?? null} /></td>
    <td class="num cost" title=${view.signals.costUsd === null ? 'no price known for this model' : ''}>${formatUsd(view.signals.costUsd)}<${EstimateMark} mark=${estimateMarks(view).cost} /><${ReceiptMark} receipt=${view.receipt} /></td>
    <td class="num">${formatPercent(view.signals.cacheHitPercent)}</td>
    <td class="num" data-window-share>${fiveHourShare(view)}</td>
    <td class="updated" title=${view.updatedAt ?? 'no usage yet'}>${formatAgo(view.updatedAt, now)}</td>
  </tr>`;
}

/** A local session's KV cache (the session page's KV card, in short): cells of n_ctx, a tag when critical; — without. */
function KvCell({ kv }: { kv: KvFigures | undefined }) {
  if (!kv) return html`<td class="num muted" data-kv-cells>—</td>`;
  const text = kvListText(kv);
  return html`<td class="num" data-kv-cells data-kv-critical=${String(text.critical)} data-kv-source=${kv.source} title=${text.title}>
    <span data-kv="cells">${text.cells}</span>${text.critical ? html` <span class="tag tag-critical">critical</span>` : null}
  </td>`;
}

/** The session's share of its 5-hour window (`26%`), with the window's own use: `26% of 60%`; — without one. */
function fiveHourShare(view: SessionView): string {
  const window = (view.signals.windows ?? []).find((one) => one.windowMinutes === 300);
  return window ? `${window.sessionPercent}% of ${Math.round(window.usedPercent)}%` : '—';
}

/** The proxy's measured saving under a session's cost: what its receipts say, a dearer session said so. */
function ReceiptMark({ receipt }: { receipt: SessionView['receipt'] }) {
  if (!receipt) return null;
  const dearer = receipt.savedUsd < 0;
  return html`<div class="muted receipt-mark" data-receipt-saved title="measured by the proxy on ${receipt.calls} requests: ${formatUsd(receipt.wouldHaveCostUsd)} as the agent sent them">
    ${dearer ? 'cost more by' : 'saved'} ${formatUsd(Math.abs(receipt.savedUsd))}
  </div>`;
}
