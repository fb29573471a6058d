import { html } from 'htm/preact';
import type { SessionView } from '../../../src/contract/index.js';
import { accountWindows, windowLine, windowPace, windowShare } from '../window-text.js';

/** The session's subscription windows: each with its forecast and the share this session burnt. */
export function WindowsPanel({ view }: { view: SessionView }) {
  const windows = view.signals.windows ?? [];
  if (windows.length === 0) return null;
  const wait = view.verdict?.windowWait ?? null;
  return html`<section aria-labelledby="windows-title" class="windows">
    <h2 id="windows-title">Subscription windows</h2>
    <ul class="windows-list">
      ${windows.map(
        (
          window,
        ) => html`<li data-window=${window.id} class=${window.bindsBeforeReset ? 'window-binds' : undefined}>
          <strong>${windowLine(window)}</strong>
          <div class="muted">${windowPace(window)} · ${windowShare(window)} · read from ${window.source === 'log' ? 'the log' : window.source === 'statusline' ? 'the status line' : 'the provider’s headers'}</div>
        </li>`,
      )}
    </ul>
    ${
      wait
        ? html`<p class="window-wait" role="status" data-window-wait>
            The ${windows.find((window) => window.id === wait.window)?.label ?? wait.window} window runs out before it resets at this pace: a pause of ${Math.round(wait.seconds / 60)} min now makes what is left last until then.
          </p>`
        : null
    }
  </section>`;
}

/** Above the list: the account's windows as the newest figure shows them, and who burnt them. */
export function AccountWindows({ views }: { views: Iterable<SessionView> }) {
  const windows = accountWindows(views);
  if (windows.length === 0) return null;
  return html`<ul class="account-windows" aria-label="Subscription windows">
    ${windows.map(
      ({
        window,
        shares,
      }) => html`<li data-account-window=${window.id} class=${window.bindsBeforeReset ? 'window-binds' : undefined}>
        <strong>${windowLine(window)}</strong>
        ${shares.length ? html`<span class="muted"> · ${shares.map((share) => `${share.id} ${share.percent}%`).join(', ')}</span>` : null}
      </li>`,
    )}
  </ul>`;
}
