import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { SampleInfo } from '../../../src/contract/index.js';
import { api } from '../api.js';
import { navigate, sessionPath } from '../router.js';

/**
 * What barometer needs from an agent, and one click to load a bundled sample session: the whole first-start page
 * without sessions, a folded panel under the list once there are some.
 */
export function EmptyState({ compact = false }: { compact?: boolean } = {}) {
  const [samples, setSamples] = useState<SampleInfo[] | null>(null);
  const [samplesError, setSamplesError] = useState<string | null>(null);
  const [loading, setLoading] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const origin = window.location.origin;

  useEffect(() => {
    api.listSamples().then(setSamples, (error: Error) => setSamplesError(error.message));
  }, []);

  const load = async (name: string) => {
    setLoading(name);
    setLoadError(null);
    try {
      const view = await api.loadSample(name);
      navigate(sessionPath(view.id));
    } catch (error) {
      setLoadError((error as Error).message);
      setLoading(null);
    }
  };

  const columns = html`<div class="empty-columns">
      <div>
        <h3>Connect an agent</h3>
        <ol class="steps">
          <li>
            Create a session for your model:
            <pre><code>curl -X POST ${origin}/api/v1/sessions \\
  -H 'content-type: application/json' \\
  -d '{"id":"my-agent","model":"claude-opus-4-6"}'</code></pre>
          </li>
          <li>
            After each model call, post its usage (or the raw provider response):
            <pre><code>curl -X POST ${origin}/api/v1/sessions/my-agent/usage \\
  -H 'content-type: application/json' \\
  -d '{"promptTokens":123000,"completionTokens":800}'</code></pre>
          </li>
          <li>The session appears in this list and updates as usage arrives.</li>
        </ol>
      </div>
      <div>
        <h3>Or explore a recorded session</h3>
        ${
          samplesError
            ? html`<p class="error" role="alert">Could not list the samples: ${samplesError}</p>`
            : samples === null
              ? html`<p class="muted">Loading samples…</p>`
              : samples.length === 0
                ? html`<p class="muted">This server has no bundled samples.</p>`
                : html`<ul class="samples">
                  ${samples.map(
                    (sample) => html`<li>
                      <div>
                        <strong>${sample.name}</strong> <span class="tag">${sample.format}</span>
                        <p class="muted">${sample.description}</p>
                      </div>
                      <button
                        type="button"
                        class="button"
                        data-sample=${sample.name}
                        disabled=${loading !== null}
                        onClick=${() => load(sample.name)}
                      >
                        ${loading === sample.name ? 'Loading…' : 'Load'}
                      </button>
                    </li>`,
                  )}
                </ul>`
        }
        ${loadError ? html`<p class="error" role="alert">Could not load the sample: ${loadError}</p>` : null}
        <p>Or <a href="/replay">replay a log file</a> from Claude Code, Codex, Gemini CLI or OpenHands.</p>
      </div>
    </div>`;
  if (compact) {
    return html`<details class="connect-panel">
      <summary>Connect another agent, or load a sample session</summary>
      ${columns}
    </details>`;
  }
  return html`<section class="empty" aria-labelledby="empty-title">
    <h2 id="empty-title">No sessions yet</h2>
    <p>
      barometer watches agent sessions that report their token usage after each model call, and shows here
      how close each one is to its context limits — live.
    </p>
    ${columns}
  </section>`;
}
