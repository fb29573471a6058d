import { html } from 'htm/preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { SessionDelta, SessionView, TimelinePoint, Verdict } from '../../../src/contract/index.js';
import { type ApiError, api, eventsUrl } from '../api.js';
import { EvictionsPanel } from '../components/evictions-panel.js';
import { HealthBadge } from '../components/health-badge.js';
import { LiveStatus } from '../components/live-status.js';
import { SessionStats } from '../components/session-stats.js';
import { SubAgentsPanel } from '../components/sub-agents-panel.js';
import { TimelineChart } from '../components/timeline-chart.js';
import { ActionTag, ReasonList, VerdictCard } from '../components/verdict-view.js';
import { WindowsPanel } from '../components/windows-panel.js';
import { describeEvent, eventTime, type LiveEvent, MODEL_EVENT_NAMES } from '../event-text.js';
import { formatAgo, formatClock, formatTokens } from '../format.js';
import { HEALTH_STYLES } from '../health.js';
import { useEventStream, useNow } from '../hooks.js';
import { proxyNote } from '../proxy-text.js';
import { sessionPath } from '../router.js';
import { sessionHeading } from '../session-heading.js';
import { applyDelta, isNewer, sessionHealth } from '../session-list.js';
import { chartModelOfSession, MARKER_LABELS } from '../timeline-model.js';
import { useSubAgents } from '../use-sub-agents.js';

/** How many generations the table lists, newest first; the chart shows the whole timeline. */
const TABLE_ROWS = 50;
const EVENT_ROWS = 30;

/** One session: its indicator, figures, timeline, verdicts and live events. */
export function SessionPage({ id }: { id: string }) {
  const [view, setView] = useState<SessionView | null>(null);
  const [missing, setMissing] = useState(false);
  const [deleted, setDeleted] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [events, setEvents] = useState<LiveEvent[]>([]);
  // The API keeps the current verdict only; verdicts seen while this page is open keep their reasons.
  const [verdicts, setVerdicts] = useState<ReadonlyMap<number, Verdict>>(new Map());
  const now = useNow();

  const accept = (next: SessionView) => {
    setView((current) => (current && !isNewer(next, current) ? current : next));
    const last = next.timeline.at(-1);
    if (next.verdict && last) {
      const verdict = next.verdict;
      setVerdicts((current) => new Map(current).set(last.index, verdict));
    }
  };

  useEffect(() => {
    setView(null);
    setMissing(false);
    setDeleted(false);
    setError(null);
    setEvents([]);
    setVerdicts(new Map());
    api.getSession(id).then(accept, (failure: ApiError) => {
      if (failure.status === 404) setMissing(true);
      else setError(failure.message);
    });
  }, [id]);

  const handlers = useMemo(() => {
    const modelEvents = Object.fromEntries(
      MODEL_EVENT_NAMES.map((name) => [
        name,
        (data: unknown) =>
          setEvents((current) =>
            [
              {
                name,
                at: eventTime(data, new Date().toISOString()),
                text: describeEvent(name, data),
              },
              ...current,
            ].slice(0, EVENT_ROWS),
          ),
      ]),
    );
    return {
      ...modelEvents,
      session: (data: unknown) => {
        setMissing(false);
        accept(data as SessionView);
      },
      // After the first view the stream sends only what changed: the summary and the points added.
      update: (data: unknown) => {
        const delta = data as SessionDelta;
        setView((current) => (current ? applyDelta(current, delta) : current));
        const last = delta.points.at(-1);
        const verdict = delta.summary.verdict;
        if (verdict && last) setVerdicts((current) => new Map(current).set(last.index, verdict));
      },
      deleted: () => setDeleted(true),
    };
  }, []);
  const status = useEventStream(missing ? null : eventsUrl(id), handlers);
  const chart = useMemo(() => (view ? chartModelOfSession(view) : null), [view]);
  const family = useSubAgents(view);

  if (missing) {
    return html`<section>
      <h1>Session not found</h1>
      <p>There is no session <code>${id}</code> on this server. <a href="/">Back to the sessions</a>.</p>
    </section>`;
  }
  if (error) return html`<p class="error" role="alert">Could not load the session: ${error}</p>`;
  if (!view || !chart) return html`<p class="muted">Loading session…</p>`;

  const level = sessionHealth(view);
  const heading = sessionHeading(view);
  const rows = view.timeline.slice(-TABLE_ROWS).reverse();

  return html`<section aria-labelledby="session-title" class="session-page">
    <p class="breadcrumb"><a href="/">Sessions</a> / <span>${heading.project ?? view.id}</span></p>
    <${SessionHead} view=${view} level=${level} status=${status} now=${now} />
    ${deleted ? html`<p class="error" role="alert">This session was deleted on the server.</p>` : null}
    <${ProxyNote} view=${view} />
    <${ReminderNote} view=${view} level=${level} />

    <${SessionStats} view=${view} level=${level} family=${family} />
    <${WindowsPanel} view=${view} />
    <${EvictionsPanel} view=${view} />
    <${SubAgentsPanel} answer=${family} />

    <h2>Timeline</h2>
    ${
      chart.points.length
        ? html`<${TimelineChart} model=${chart} title=${`Prompt tokens of ${view.id} by generation`} />`
        : html`<p class="muted">No generations yet: the chart starts with the first usage event.</p>`
    }

    <div class="two-columns">
      <section aria-labelledby="verdict-title">
        <h2 id="verdict-title">Current verdict</h2>
        <${VerdictCard} verdict=${view.verdict} />
      </section>
      <${MarkersAndEvents} view=${view} events=${events} now=${now} />
    </div>

    <h2>Verdicts by generation</h2>
    <p class="muted">
      The newest ${rows.length} of ${view.timeline.length}. Reasons are listed for the verdicts this page has seen.
    </p>
    <${GenerationsTable} rows=${rows} verdicts=${verdicts} />
  </section>`;
}

/** The page's head: the session's heading, who and what it runs, where, and its indicator and stream status. */
function SessionHead({
  view,
  level,
  status,
  now,
}: {
  view: SessionView;
  level: ReturnType<typeof sessionHealth>;
  status: ReturnType<typeof useEventStream>;
  now: number;
}) {
  const heading = sessionHeading(view);
  return html`<div class="page-head">
    <div>
      <h1 id="session-title">${heading.heading}</h1>
      <p class="muted session-meta">
        ${`${heading.agentModel} · ${view.generations} ${
          view.generations === 1 ? 'generation' : 'generations'
        } · updated `}<span class="updated">${formatAgo(view.updatedAt, now)}</span>
      </p>
      <p class="muted session-id">
        ${heading.named ? html`session <code>${view.id}</code>` : null}
        ${view.workingDirectory ? html` in <code>${view.workingDirectory}</code>` : null}
        ${
          view.parentId
            ? html` · sub-agent of <a href=${sessionPath(view.parentId)}>${view.parentId}</a>`
            : null
        }
      </p>
    </div>
    <div class="head-right">
      <div aria-live="polite" class="indicator">
        <span class="visually-hidden">Context health: </span>
        <${HealthBadge} level=${level} sessionId=${view.id} large=${true} />
      </div>
      <${LiveStatus} status=${status} />
    </div>
  </div>`;
}

/** What the proxy says of the session (its edits, or a warning), when the session runs behind it. */
function ProxyNote({ view }: { view: SessionView }) {
  const proxy = proxyNote(view.proxy);
  return proxy
    ? html`<p class=${proxy.warning ? 'proxy-note proxy-note-warning' : 'proxy-note muted'} role=${proxy.warning ? 'status' : undefined}>${proxy.text}</p>`
    : null;
}

/** The context-health reminder in force, with the countdown to a new round. */
function ReminderNote({ view, level }: { view: SessionView; level: ReturnType<typeof sessionHealth> }) {
  const health = view.health;
  return health.reminder
    ? html`<aside class=${`reminder reminder-${level}`} aria-label="Context health reminder">
        <strong>Reminder${health.countdown !== null ? ` · new round in ${health.countdown}` : ''}</strong>
        <p>${health.reminder.text}</p>
      </aside>`
    : null;
}

/** The session's markers, newest first, and the model events received while the page is open. */
function MarkersAndEvents({ view, events, now }: { view: SessionView; events: LiveEvent[]; now: number }) {
  return html`<section aria-labelledby="events-title">
    <h2 id="events-title">Markers and live events</h2>
    ${
      view.markers.length
        ? html`<ul class="markers">
          ${[...view.markers].reverse().map(
            (marker) => html`<li class=${`marker marker-${marker.type}`}>
              <span class="marker-type">${MARKER_LABELS[marker.type]}</span> at generation #${marker.index}
              <span class="muted"> ${formatClock(marker.timestamp)}</span>
              ${marker.detail ? html`<div class="muted">${marker.detail}</div>` : null}
            </li>`,
          )}
        </ul>`
        : html`<p class="muted">No compactions, forced new rounds or reminders yet.</p>`
    }
    ${
      events.length
        ? html`<h3>Received while this page is open</h3>
          <ul class="events" aria-live="polite">
            ${events.map(
              (event) => html`<li><span class="muted">${formatAgo(event.at, now)}</span> ${event.text}</li>`,
            )}
          </ul>`
        : null
    }
  </section>`;
}

/** The newest generations, one row each with its verdict (and its reasons when the page saw it). */
function GenerationsTable({
  rows,
  verdicts,
}: {
  rows: TimelinePoint[];
  verdicts: ReadonlyMap<number, Verdict>;
}) {
  return html`<div class="table-wrap tall">
    <table class="generations">
      <thead>
        <tr>
          <th scope="col" class="num">#</th>
          <th scope="col">Time</th>
          <th scope="col" class="num">Prompt</th>
          <th scope="col">Health</th>
          <th scope="col">Regulator</th>
          <th scope="col" class="num">Viability</th>
          <th scope="col" class="num">Burn/min</th>
          <th scope="col">Verdict and reasons</th>
        </tr>
      </thead>
      <tbody>
        ${rows.map((point) => html`<${GenerationRow} key=${point.index} point=${point} verdict=${verdicts.get(point.index)} />`)}
      </tbody>
    </table>
  </div>`;
}

function GenerationRow({ point, verdict }: { point: TimelinePoint; verdict: Verdict | undefined }) {
  const style = HEALTH_STYLES[point.health] ?? HEALTH_STYLES.unknown;
  return html`<tr>
    <td class="num">${point.index}</td>
    <td>${formatClock(point.timestamp)}</td>
    <td class="num">${formatTokens(point.promptTokens)}</td>
    <td>
      <span class=${`dot-label health-text-${point.health}`}><span class="health-dot" aria-hidden="true"></span>${style.label}</span>
      ${point.countdown !== null ? html` <span class="tag tag-critical">countdown ${point.countdown}</span>` : null}
      ${point.reminder ? html` <span class="tag">reminder</span>` : null}
    </td>
    <td>${point.regulatorLevel ?? '—'}</td>
    <td class="num">${point.viability ?? '—'}</td>
    <td class="num">${formatTokens(point.burnRate)}</td>
    <td>
      ${
        verdict
          ? html`<details>
            <summary><${ActionTag} action=${verdict.action} priority=${verdict.priority} /></summary>
            <${ReasonList} reasons=${verdict.reasons} />
          </details>`
          : html`<${ActionTag} action=${point.action} />`
      }
    </td>
  </tr>`;
}
