import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { ArchiveAnswer } from '../../../src/contract/index.js';
import { type ApiError, api } from '../api.js';
import { archiveRows } from '../archive-view.js';
import { formatBytes, formatClock } from '../format.js';
import { sessionPath } from '../router.js';

/** The originals one eviction archived (`GET /api/v1/archives/:session/:task`), each record as it was. */
export function ArchivePage({ sessionId, taskId }: { sessionId: string; taskId: string }) {
  const [answer, setAnswer] = useState<ArchiveAnswer | null>(null);
  const [error, setError] = useState<{ status: number; message: string } | null>(null);

  useEffect(() => {
    setAnswer(null);
    setError(null);
    api
      .getArchive(sessionId, taskId)
      .then(setAnswer, (failure: ApiError) => setError({ status: failure.status, message: failure.message }));
  }, [sessionId, taskId]);

  const back = html`<p class="breadcrumb">
    <a href="/">Sessions</a> / <a href=${sessionPath(sessionId)}>${sessionId}</a> / <span>${taskId}</span>
  </p>`;
  if (error) {
    return html`<section>
      ${back}
      <h1>Archive not found</h1>
      <p class="error" role="alert">
        ${error.status === 404 ? `No archive ${taskId} for session ${sessionId} on this server.` : error.message}
      </p>
    </section>`;
  }
  if (!answer) return html`<section>${back}<p class="muted">Loading the archive…</p></section>`;
  const { rows, skippedBytes } = archiveRows(answer);
  return html`<section aria-labelledby="archive-title" class="archive-page">
    ${back}
    <h1 id="archive-title">Archived originals of ${taskId}</h1>
    <p class="muted">
      What barometer took out of the context of session <code>${sessionId}</code>, byte for byte as the agent had
      it. The agent read tombstones in their place; each names its record below.
      ${skippedBytes > 0 ? ` ${formatBytes(skippedBytes)} of the file could not be read as whole records.` : ''}
    </p>
    ${rows.length === 0 ? html`<p class="muted">This archive holds no records.</p>` : null}
    <ol class="archive-records">
      ${rows.map(
        (row) => html`<li data-record=${row.itemId}>
          <h2 class="record-head">
            ${row.label} <code>${row.itemId}</code>
            <span class="muted"> ${row.lines} ${row.lines === 1 ? 'line' : 'lines'} · archived ${formatClock(row.archivedAt)}</span>
          </h2>
          <pre class="archive-content">${row.pretty}</pre>
        </li>`,
      )}
    </ol>
  </section>`;
}
