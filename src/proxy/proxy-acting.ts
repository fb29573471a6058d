import { BarometerError } from '../errors/barometer-error.js';
import type { WindowLever } from '../quota/windows/window-lever-names.js';
import { WINDOW_LOWERED_BUDGET_TOKENS } from '../quota/windows/window-levers.js';
import type { ProxyPauseStage, ProxyState } from '../session/proxy-status.js';
import type { ProxySession } from './proxy-session.js';

/**
 * Whether the proxy acts on a session: never on one seen in observe, and not while recording it fails (paused).
 * Pure functions of the session's entry; the time is a parameter.
 */
export function isActing(entry: ProxySession): boolean {
  return !entry.observed && (entry.pause === null || entry.pause.until !== null);
}

/** The longest error message kept in a pause (the session's answers show it). */
const PAUSE_MESSAGE_CHARS = 300;

/** An error as a pause shows it: its catalogue code, and its message (never the request's content or keys). */
function reasonOf(error: unknown): { code: string | null; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: error instanceof BarometerError ? error.code : null,
    message:
      message.length > PAUSE_MESSAGE_CHARS ? `${message.slice(0, PAUSE_MESSAGE_CHARS - 3)}...` : message,
  };
}

/**
 * Pauses the session: recording it failed at `stage`. True when a pause began; false when one already lasts (its
 * first failure's reason stays until recording works again).
 */
export function pauseSession(
  entry: ProxySession,
  stage: ProxyPauseStage,
  error: unknown,
  now: number,
): boolean {
  if (entry.pause !== null && entry.pause.until === null) return false;
  entry.pause = { stage, ...reasonOf(error), since: now, until: null };
  return true;
}

/** Ends the session's pause, if one lasts: recording works again. */
export function resumeSession(entry: ProxySession, now: number): void {
  if (entry.pause !== null && entry.pause.until === null) entry.pause = { ...entry.pause, until: now };
}

/**
 * What the session's answers show of the proxy (`SessionMonitor.setProxyStatus`): its mode, its pause, and, when a
 * window lever is on or acted, what the window policy did.
 */
export function proxyStateOf(entry: ProxySession, levers: readonly WindowLever[] = []): ProxyState {
  const state: ProxyState = { mode: entry.observed ? 'observe' : 'act', pause: entry.pause };
  const tally = entry.windowPolicy;
  if (levers.length > 0 || tally.requestsLowered > 0 || tally.requestsHeld > 0)
    state.windowPolicy = {
      levers: [...levers],
      budgetTokens: WINDOW_LOWERED_BUDGET_TOKENS,
      conversationsLowered: tally.conversationsLowered,
      requestsLowered: tally.requestsLowered,
      requestsHeld: tally.requestsHeld,
      heldSeconds: Math.round(tally.heldMs / 100) / 10,
    };
  return state;
}

/** How many sessions the proxy acts on, observes, or passes through unedited (recording failed). */
export interface ProxyStanding {
  acting: number;
  observed: number;
  paused: number;
}

export function standingOf(entries: Iterable<ProxySession>): ProxyStanding {
  const standing: ProxyStanding = { acting: 0, observed: 0, paused: 0 };
  for (const entry of entries) {
    if (entry.observed) standing.observed++;
    else if (isActing(entry)) standing.acting++;
    else standing.paused++;
  }
  return standing;
}
