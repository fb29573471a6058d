import type { ProxyStatus } from '../../src/contract/index.js';
import { formatClock } from './format.js';

/** What a session's page says of barometer's proxy: a line, and whether it is a warning. */
export interface ProxyNote {
  warning: boolean;
  text: string;
}

const STAGE_TEXT: Readonly<Record<NonNullable<ProxyStatus['pause']>['stage'], string>> = {
  session: 'creating the session',
  record: 'recording an answer',
};

function reason(pause: NonNullable<ProxyStatus['pause']>): string {
  return `${STAGE_TEXT[pause.stage]} failed (${pause.code ? `${pause.code}: ` : ''}${pause.message})`;
}

/**
 * The proxy's standing in words: observed (forwarded as sent), acting (completed sub-tasks evicted), or passing the
 * requests on with no new edits while recording fails, and when it last did. Null for a session no proxy has seen.
 */
export function proxyNote(status: ProxyStatus | null | undefined): ProxyNote | null {
  if (!status) return null;
  if (status.mode === 'observe')
    return {
      warning: false,
      text: "Observed through barometer's proxy: every request goes to the provider as the agent sent it.",
    };
  const pause = status.pause;
  if (!status.acting && pause)
    return {
      warning: true,
      text: `barometer's proxy sends this session's requests with no new edits since ${formatClock(pause.since)}: ${reason(pause)}. It acts again once recording works.`,
    };
  const acting =
    "barometer's proxy acts on this session: completed sub-tasks' tool output is evicted to the archive.";
  if (!pause?.until) return { warning: false, text: acting };
  return {
    warning: false,
    text: `${acting} From ${formatClock(pause.since)} to ${formatClock(pause.until)} it sent the requests with no new edits: ${reason(pause)}.`,
  };
}
