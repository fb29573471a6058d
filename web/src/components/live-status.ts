import { html } from 'htm/preact';
import type { StreamStatus } from '../hooks.js';

const TEXT: Readonly<Record<StreamStatus, string>> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  closed: 'Not live: reload to retry',
};

/** Whether live updates are flowing, so that a stale page never passes for a current one. */
export function LiveStatus({ status }: { status: StreamStatus }) {
  return html`<span class=${`live live-${status}`} role="status" data-stream=${status}
    ><span class="live-dot" aria-hidden="true"></span>${TEXT[status]}</span
  >`;
}
