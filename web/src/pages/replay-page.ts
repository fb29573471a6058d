import { html } from 'htm/preact';
import { useMemo, useState } from 'preact/hooks';
import type { ReplayResult, WhatIfSummary } from '../../../src/contract/index.js';
import { ApiError, api } from '../api.js';
import { TimelineChart } from '../components/timeline-chart.js';
import { ActionTag, ReasonList } from '../components/verdict-view.js';
import { formatBytes, formatClock, formatPercent, formatSaving, formatTokens, formatUsd } from '../format.js';
import { HEALTH_STYLES } from '../health.js';
import { chartModelOfReplay } from '../timeline-model.js';
import { savingsSentence } from '../what-if-text.js';

/** The log formats `barometer replay` reads; the API detects the format when left on auto. */
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
  | { phase: 'done'; fileName: string; size: number; result: ReplayResult; note?: string }
  | { phase: 'failed'; fileName: string; message: string };

/** Whether the API refused the what-if because the log does not hold its messages (Gemini CLI, OpenHands). */
function whatIfRefused(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.status === 400 &&
    Boolean(error.problem?.issues?.some((issue) => issue.field === 'whatIf'))
  );
}

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
  const [whatIf, setWhatIf] = useState(true);
  const [policy, setPolicy] = useState('');

  const run = async (file: File) => {
    setState({ phase: 'running', fileName: file.name, size: file.size });
    try {
      const text = await file.text();
      const window = Number(contextWindow);
      const options = {
        format,
        model: model.trim(),
        ...(contextWindow.trim() && Number.isFinite(window) ? { contextWindow: window } : {}),
      };
      let note: string | undefined;
      let result: ReplayResult;
      try {
        result = await api.replay(text, { ...options, whatIf, policy: policy.trim() });
      } catch (error) {
        // A log without its messages still has a timeline: replay it without the what-if, and say why.
        if (!whatIf || !whatIfRefused(error)) throw error;
        result = await api.replay(text, options);
        note = 'No what-if for this log: only Claude Code and Codex logs hold the messages it replays.';
      }
      setState({ phase: 'done', fileName: file.name, size: file.size, result, ...(note ? { note } : {}) });
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
      <code>barometer replay</code>, on the server; nothing is kept after the answer.
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
    <label class="checkbox what-if-toggle">
      <input
        type="checkbox"
        name="whatIf"
        checked=${whatIf}
        onChange=${(event: Event) => setWhatIf((event.target as HTMLInputElement).checked)}
      />
      What if barometer had managed it: replay its eviction policy on the same calls (Claude Code and Codex logs)
    </label>
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
        <label>
          Eviction policy <span class="muted">(JSON options, for the what-if)</span>
          <input
            type="text"
            name="policy"
            value=${policy}
            placeholder='{"minFreedTokens": 4000}'
            onInput=${(event: Event) => setPolicy((event.target as HTMLInputElement).value)}
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
        ? html`${state.note ? html`<p class="muted" data-whatif-note>${state.note}</p>` : null}<${ReplayResultView}
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
    ${result.whatIf ? html`<${WhatIfView} whatIf=${result.whatIf} />` : null}
    <h3>Timeline</h3>
    <${TimelineChart} model=${chart} title=${`Prompt tokens per call of ${fileName}`} />
    ${
      result.whatIf && result.whatIf.evictions.length > 0
        ? html`<h3>What-if evictions</h3>
          <ul class="markers" data-whatif-evictions>
            ${result.whatIf.evictions.map(
              (eviction) => html`<li class="marker marker-eviction">
                <span class="marker-type">Eviction</span>
                ${` before call #${eviction.beforeCallIndex} · ${eviction.taskId} · ${eviction.items} items, ${formatTokens(eviction.tokensFreed)} tokens · `}
                <span class="muted">${eviction.boundary}${eviction.detail ? `: ${eviction.detail.replace(/\s+/g, ' ').slice(0, 80)}` : ''}</span>
              </li>`,
            )}
          </ul>`
        : null
    }
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
            ${result.whatIf ? html`<th scope="col" class="num">What-if</th><th scope="col" class="num">Drift</th>` : null}
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
              ${
                result.whatIf
                  ? html`<td class="num">${formatTokens(call.whatIfPromptTokens)}</td><td class="num">${formatPercent(call.driftPercent)}</td>`
                  : null
              }
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

function WhatIfView({ whatIf }: { whatIf: WhatIfSummary }) {
  const { real, policy } = whatIf;
  return html`<section class="what-if" aria-labelledby="what-if-title">
    <h3 id="what-if-title">What if barometer had managed it</h3>
    <p class="savings" data-whatif-savings>${savingsSentence(whatIf)}</p>
    <dl class="stats">
      <div>
        <dt>Prompt tokens</dt>
        <dd data-whatif-tokens>${formatTokens(real.promptTokens)} → ${formatTokens(policy.promptTokens)} (${formatSaving(whatIf.savedPercent)})</dd>
      </div>
      <div>
        <dt>Cost, with prompt caching</dt>
        <dd data-whatif-cost>
          ${formatUsd(real.costUsd)} → ${formatUsd(policy.costUsd)}${whatIf.costSavedPercent === null ? '' : ` (${formatSaving(whatIf.costSavedPercent)})`}
        </dd>
      </div>
      <div>
        <dt>Peak prompt</dt>
        <dd data-whatif-peak>${formatTokens(real.peakPromptTokens)} → ${formatTokens(policy.peakPromptTokens)}</dd>
      </div>
      <div><dt>Agent compacts at</dt><dd>${formatTokens(whatIf.compactionPoint)}</dd></div>
      <div><dt>Compactions</dt><dd>${real.compactions} → ${policy.compactions}</dd></div>
      <div><dt>Evictions</dt><dd data-whatif-eviction-count>${policy.evictions}</dd></div>
      <div><dt>Archived</dt><dd>${formatTokens(policy.archivedItems)} items, ${formatBytes(policy.archivedBytes)}</dd></div>
      <div>
        <dt>Archive checked</dt>
        <dd data-whatif-verified=${String(whatIf.archiveVerified)} class=${whatIf.archiveVerified ? '' : 'warning'}>
          ${whatIf.archiveVerified ? 'every item identical to the log' : `not verified: ${whatIf.archiveFailures[0] ?? ''}`}
        </dd>
      </div>
      <div><dt>Re-reads of evicted files</dt><dd>${policy.rereads}</dd></div>
    </dl>
    <p class="muted small">
      ${`Prompts reconstructed from the log and calibrated on its recorded usage: ${formatPercent(whatIf.calibration.meanAbsErrorPercent)} mean error per call, ${formatPercent(whatIf.calibration.maxAbsErrorPercent)} at worst. Same calls, same outputs; the cache is written again from each eviction on.`}
    </p>
  </section>`;
}
