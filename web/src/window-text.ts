import type { SessionView } from '../../src/contract/index.js';

/** One subscription window as a session's signals show it (`signals.windows`). */
export type WindowView = NonNullable<SessionView['signals']['windows']>[number];

/** `13:55` on the reader's clock. */
function clock(iso: string): string {
  const time = new Date(iso);
  return `${String(time.getHours()).padStart(2, '0')}:${String(time.getMinutes()).padStart(2, '0')}`;
}

/**
 * A window in one line, as the status line says it: `5h 62% · runs out 13:55 · resets 14:30` when it runs out
 * before its reset at the measured pace, else `5h 62% · lasts until its reset at 14:30`.
 */
export function windowLine(window: WindowView): string {
  const parts = [`${window.label} ${Math.round(window.usedPercent)}%`];
  if (window.exhausted) parts.push('spent');
  else if (window.bindsBeforeReset && window.runsOutAt !== null)
    parts.push(`runs out ${clock(window.runsOutAt)}`);
  if (window.resetsAt !== null)
    parts.push(
      window.bindsBeforeReset || window.exhausted
        ? `resets ${clock(window.resetsAt)}`
        : `lasts until its reset at ${clock(window.resetsAt)}`,
    );
  return parts.join(' · ');
}

/** The pace: `30%/h recently`, `16%/h since the window began`, or that nothing measures it yet. */
export function windowPace(window: WindowView): string {
  if (window.burnPercentPerHour === null) return 'pace not measured yet';
  return `${window.burnPercentPerHour}%/h ${window.burnBasis === 'window' ? 'since the window began' : 'recently'}`;
}

/**
 * The session's own share of the window, with its sub-agents' where the proxy told them apart: `this session burnt
 * 26% of the 5h window (sub-agent agent-explore 15%, agent-review 8%)`.
 */
export function windowShare(window: WindowView, who = 'this session'): string {
  const agents = window.subAgentPercents ?? [];
  const of =
    agents.length === 0
      ? ''
      : ` (${agents.map((agent, index) => `${index === 0 ? 'sub-agent ' : ''}${agent.agentId} ${agent.percent}%`).join(', ')})`;
  return `${who} burnt ${window.sessionPercent}% of the ${window.label} window${of}`;
}

/**
 * The account's windows over the sessions listed: each window as the newest figure of any session shows it, with
 * every session's share of it (largest first). A window's period is its reset: an older period's figures are left.
 */
export function accountWindows(
  views: Iterable<SessionView>,
): Array<{ window: WindowView; shares: Array<{ id: string; percent: number }> }> {
  const latest = new Map<string, WindowView>();
  const all: Array<{ id: string; window: WindowView }> = [];
  for (const view of views)
    for (const window of view.signals.windows ?? []) {
      all.push({ id: view.id, window });
      const known = latest.get(window.id);
      if (known === undefined || Date.parse(window.at) > Date.parse(known.at)) latest.set(window.id, window);
    }
  return [...latest.values()]
    .sort((a, b) => (a.windowMinutes ?? 0) - (b.windowMinutes ?? 0))
    .map((window) => ({
      window,
      shares: all
        .filter((entry) => entry.window.id === window.id && entry.window.resetsAt === window.resetsAt)
        .filter((entry) => entry.window.sessionPercent > 0)
        .map((entry) => ({ id: entry.id, percent: entry.window.sessionPercent }))
        .sort((a, b) => b.percent - a.percent || a.id.localeCompare(b.id)),
    }));
}
