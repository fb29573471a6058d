import { html } from 'htm/preact';
import { useMemo, useState } from 'preact/hooks';
import { api } from '../api.js';
import { TimelineChart } from '../components/timeline-chart.js';
import { ActionTag, ReasonList } from '../components/verdict-view.js';
import { formatBytes, formatClock, formatTokens } from '../format.js';
import { HEALTH_STYLES } from '../health.js';
import { chartModelOfReplay } from '../timeline-model.js';
import type { ReplayResult } from '../types.js';

/** The log formats `headroom replay` reads; the API detects the format when left on auto. */
const FORMATS = [
  ['auto', 'Detect automatically'],
  ['claude-code', 'Claude Code (.jsonl)'],
  ['codex', 'Codex CLI rollout (.jsonl)'],
  ['gemini-cli', 'Gemini CLI (.jsonl / .json)'],
  ['openhands', 'OpenHands trajectory (.json)'],
] as const;

type ReplayState =
  | { phase: 'idle' }
  | { phase: 'running'; fileName: string; size: number }
  | { phase: 'done'; fileName: string; size: number; result: ReplayResult }
  | { phase: 'failed'; fileName: string; message: string };

/**
 * Replay of a recorded agent log: the file goes to POST /api/v1/replay — the CLI's replay code on the
 * server — and the page draws what comes back.
 */
export function ReplayPage() {
  const [state, setState] = useState<ReplayState>({ phase: 'idle' });
  const [format, setFormat] = useState('auto');
  const [model, setModel] = useState('');
  const [contextWindow, setContextWindow] = useState('');
  const [dragging, setDragging] = useState(false);
  const [onlyActions, setOnlyActions] = useState(false);

  const run = async (file: File) => {
    setState({ phase: 'running', fileName: file.name, size: file.size });
    try {
      const text = await file.text();
      const window = Number(contextWindow);
      const result = await api.replay(text, {
        format,
        model: model.trim(),
        ...(contextWindow.trim() && Number.isFinite(window) ? { contextWindow: window } : {}),
      });
      setState({ phase: 'done', fileName: file.name, size: file.size, result });
    } catch (error) {
      setState({ phase: 'failed', fileName: file.name, message: (error as Error).message });
    }
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer?.files[0];
    if (file) void run(file);
  };

  const chart = useMemo(() => (state.phase === 'done' ? chartModelOfReplay(state.result) : null), [state]);

  return html`<section aria-labelledby="replay-title">
    <div class="page-head"><h1 id="replay-title">Replay</h1></div>
    <p class="muted lead">
      See where pressure built up in a recorded session. The log is read by the same code as
      <code>headroom replay</code>, on the server; nothing is kept after the answer.
    </p>
    <div
      class=${`dropzone${dragging ? ' dropzone-active' : ''}`}
      onDragOver=${(event: DragEvent) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave=${() => setDragging(false)}
      onDrop=${onDrop}
    >
      <p><strong>Drop a log file here</strong> or</p>
      <label class="button primary file-button">
        Choose a file…
        <input
          type="file"
          name="log"
          class="visually-hidden"
          accept=".jsonl,.json,.ndjson,.log,.txt,application/json,text/plain"
          aria-describedby="replay-formats"
          onChange=${(event: Event) => {
            const input = event.target as HTMLInputElement;
            const file = input.files?.[0];
            if (file) void run(file);
            input.value = '';
          }}
        />
      </label>
      <p id="replay-formats" class="muted">Claude Code, Codex CLI, Gemini CLI and OpenHands logs, up to 64 MiB.</p>
    </div>
    <details class="replay-options">
      <summary>Options</summary>
      <div class="options-grid">
        <label>
          Format
          <select value=${format} onChange=${(event: Event) => setFormat((event.target as HTMLSelectElement).value)}>
            ${FORMATS.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
          </select>
        </label>
        <label>
          Model <span class="muted">(when the log does not name it)</span>
          <input type="text" value=${model} placeholder="from the log" onInput=${(event: Event) => setModel((event.target as HTMLInputElement).value)} />
        </label>
        <label>
          Context window <span class="muted">(tokens)</span>
          <input
            type="text"
            inputmode="numeric"
            value=${contextWindow}
            placeholder="from the model"
            onInput=${(event: Event) => setContextWindow((event.target as HTMLInputElement).value)}
          />
        </label>
      </div>
    </details>

    <div aria-live="polite" class="replay-status">
      ${
        state.phase === 'running'
          ? html`<p class="muted">Replaying ${state.fileName} (${formatBytes(state.size)})…</p>`
          : state.phase === 'failed'
            ? html`<p class="error" role="alert">Could not replay ${state.fileName}: ${state.message}</p>`
            : null
      }
    </div>

    ${
      state.phase === 'done' && chart
        ? html`<${ReplayResultView}
          result=${state.result}
          fileName=${state.fileName}
          chart=${chart}
          onlyActions=${onlyActions}
          setOnlyActions=${setOnlyActions}
        />`
        : null
    }
  </section>`;
}

function ReplayResultView({
  result,
  fileName,
  chart,
  onlyActions,
  setOnlyActions,
}: {
  result: ReplayResult;
  fileName: string;
  chart: ReturnType<typeof chartModelOfReplay>;
  onlyActions: boolean;
  setOnlyActions: (value: boolean) => void;
}) {
  const calls = onlyActions ? result.calls.filter((call) => call.action !== 'continue') : result.calls;
  const summary = result.summary;
  return html`<div class="replay-result" data-replay-format=${result.format}>
    <h2>${fileName}</h2>
    <dl class="stats">
      <div><dt>Format</dt><dd>${result.format}</dd></div>
      <div><dt>Model</dt><dd class="small">${result.model ?? '—'}</dd></div>
      <div><dt>Context window</dt><dd>${formatTokens(result.contextWindow)}</dd></div>
      <div><dt>Calls</dt><dd data-summary-calls>${summary.calls}</dd></div>
      <div><dt>Compactions</dt><dd data-summary-compactions>${summary.compactions}</dd></div>
      <div><dt>Peak prompt</dt><dd data-summary-peak>${formatTokens(summary.peakPromptTokens)}</dd></div>
      <div>
        <dt>First compress</dt>
        <dd>${summary.firstCompressCallIndex === null ? 'never' : `call #${summary.firstCompressCallIndex}`}</dd>
      </div>
    </dl>
    <h3>Timeline</h3>
    <${TimelineChart} model=${chart} title=${`Prompt tokens per call of ${fileName}`} />
    ${
      result.compactions.length
        ? html`<h3>Recorded compactions</h3>
          <ul class="markers">
            ${result.compactions.map(
              (compaction) => html`<li class="marker marker-compaction">
                <span class="marker-type">Compaction</span>
                ${compaction.beforeCallIndex !== null ? ` before call #${compaction.beforeCallIndex}` : ''}
                ${compaction.trigger ? ` · ${compaction.trigger}` : ''}
                ${compaction.preTokens !== null ? ` · ${formatTokens(compaction.preTokens)} tokens before` : ''}
                <span class="muted"> ${formatClock(compaction.timestamp)}</span>
              </li>`,
            )}
          </ul>`
        : null
    }
    <div class="table-head">
      <h3>Verdicts by call</h3>
      <label class="checkbox">
        <input type="checkbox" checked=${onlyActions} onChange=${(event: Event) => setOnlyActions((event.target as HTMLInputElement).checked)} />
        Only calls whose verdict is not “continue”
      </label>
    </div>
    <div class="table-wrap tall">
      <table class="generations" data-replay-calls>
        <thead>
          <tr>
            <th scope="col" class="num">Call</th>
            <th scope="col">Time</th>
            <th scope="col" class="num">Prompt</th>
            <th scope="col" class="num">Completion</th>
            <th scope="col">Health</th>
            <th scope="col">Regulator</th>
            <th scope="col">Verdict and reasons</th>
          </tr>
        </thead>
        <tbody>
          ${calls.map(
            (call) => html`<tr key=${call.index}>
              <td class="num">${call.index}</td>
              <td>${formatClock(call.timestamp)}</td>
              <td class="num">${formatTokens(call.promptTokens)}</td>
              <td class="num">${formatTokens(call.completionTokens)}</td>
              <td>
                <span class=${`dot-label health-text-${call.health}`}
                  ><span class="health-dot" aria-hidden="true"></span>${(HEALTH_STYLES[call.health] ?? HEALTH_STYLES.unknown).label}</span
                >
              </td>
              <td>${call.regulatorLevel ?? '—'}</td>
              <td>
                <details>
                  <summary><${ActionTag} action=${call.action} /></summary>
                  <${ReasonList} reasons=${call.reasons} />
                </details>
              </td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </div>`;
}
