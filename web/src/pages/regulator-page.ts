import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PressureReport } from '../../../src/contract/index.js';
import { type ApiError, api } from '../api.js';
import { cliReportLines } from '../cli-report.js';
import { REGULATOR_LEVEL_CLASS } from '../health.js';
import {
  describeRange,
  pressureBodyFromForm,
  type RegulatorField,
  regulatorFieldsFromOpenApi,
} from '../regulator-fields.js';

/** Wait after the last keystroke before asking the API again. */
const DEBOUNCE_MS = 300;

const defaultsOf = (fields: readonly RegulatorField[]) =>
  Object.fromEntries(fields.map((field) => [field.name, field.defaultValue]));

/**
 * The context pressure regulator (seed 000) as a form: its ten inputs with the defaults the API documents,
 * and the answer of POST /api/v1/pressure printed as `barometer pressure` prints it.
 */
export function RegulatorPage() {
  const [fields, setFields] = useState<RegulatorField[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [report, setReport] = useState<PressureReport | null>(null);
  const [issues, setIssues] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  const sequence = useRef(0);

  useEffect(() => {
    api.openApi().then(
      (document) => {
        try {
          const read = regulatorFieldsFromOpenApi(document);
          setFields(read);
          const defaults = defaultsOf(read);
          setValues(defaults);
          void evaluate(read, defaults);
        } catch (error) {
          setLoadError((error as Error).message);
        }
      },
      (error: Error) => setLoadError(error.message),
    );
    return () => window.clearTimeout(timer.current);
  }, []);

  async function evaluate(current: readonly RegulatorField[], currentValues: Record<string, string>) {
    // Answers can arrive out of order; only the latest request's answer is shown.
    const mine = ++sequence.current;
    setPending(true);
    try {
      const answer = await api.evaluatePressure(pressureBodyFromForm(current, currentValues));
      if (mine !== sequence.current) return;
      setReport(answer);
      setIssues({});
      setProblem(null);
    } catch (error) {
      if (mine !== sequence.current) return;
      const failure = error as ApiError;
      const byField: Record<string, string> = {};
      for (const issue of failure.problem?.issues ?? []) byField[issue.field] = issue.message;
      setIssues(byField);
      setProblem(failure.message);
    } finally {
      if (mine === sequence.current) setPending(false);
    }
  }

  const change = (name: string, value: string) => {
    const next = { ...values, [name]: value };
    setValues(next);
    window.clearTimeout(timer.current);
    if (fields) timer.current = window.setTimeout(() => void evaluate(fields, next), DEBOUNCE_MS);
  };

  const submit = (event: Event) => {
    event.preventDefault();
    window.clearTimeout(timer.current);
    if (fields) void evaluate(fields, values);
  };

  const reset = () => {
    if (!fields) return;
    const defaults = defaultsOf(fields);
    setValues(defaults);
    void evaluate(fields, defaults);
  };

  if (loadError)
    return html`<p class="error" role="alert">Could not read the regulator's inputs: ${loadError}</p>`;
  if (!fields) return html`<p class="muted">Loading the regulator…</p>`;

  return html`<section aria-labelledby="regulator-title">
    <div class="page-head">
      <h1 id="regulator-title">Regulator</h1>
    </div>
    <p class="muted lead">
      The context pressure regulator: viability from memory, burn rate and drift, with the thresholds exceeded
      and the suggested action. Every answer comes from <code>POST /api/v1/pressure</code>.
    </p>
    <div class="regulator">
      <form class="regulator-form" onSubmit=${submit} aria-describedby="regulator-help" novalidate>
        <p id="regulator-help" class="muted">Empty a field to use the API's default for it.</p>
        ${fields.map(
          (field) =>
            html`<${FieldInput} field=${field} value=${values[field.name]} issue=${issues[field.name]} onChange=${change} />`,
        )}
        <div class="form-actions">
          <button type="submit" class="button primary">Evaluate</button>
          <button type="button" class="button" onClick=${reset}>Reset to defaults</button>
        </div>
      </form>
      <${RegulatorResult} report=${report} problem=${problem} pending=${pending} />
    </div>
  </section>`;
}

/** One input of the regulator with its label, its range and default, and the API's issue with it. */
function FieldInput({
  field,
  value,
  issue,
  onChange,
}: {
  field: RegulatorField;
  value: string | undefined;
  issue: string | undefined;
  onChange: (name: string, value: string) => void;
}) {
  const id = `field-${field.name}`;
  const describedBy = `${id}-help${issue ? ` ${id}-issue` : ''}`;
  return html`<div class=${`field${issue ? ' field-invalid' : ''}`}>
    <label for=${id}>${field.name}</label>
    ${
      field.kind === 'choice'
        ? html`<select
          id=${id}
          name=${field.name}
          value=${value ?? ''}
          aria-describedby=${describedBy}
          aria-invalid=${issue ? 'true' : 'false'}
          onChange=${(event: Event) => onChange(field.name, (event.target as HTMLSelectElement).value)}
        >
          ${(field.choices ?? []).map((choice) => html`<option value=${choice}>${choice}</option>`)}
        </select>`
        : html`<input
          id=${id}
          name=${field.name}
          type="text"
          inputmode="decimal"
          autocomplete="off"
          placeholder=${field.defaultValue}
          value=${value ?? ''}
          aria-describedby=${describedBy}
          aria-invalid=${issue ? 'true' : 'false'}
          onInput=${(event: Event) => onChange(field.name, (event.target as HTMLInputElement).value)}
        />`
    }
    <small id=${`${id}-help`} class="muted"
      >${field.description} (${describeRange(field)}; default ${field.defaultValue})</small
    >
    ${issue ? html`<small id=${`${id}-issue`} class="issue" role="alert">${issue}</small>` : null}
  </div>`;
}

/** The regulator's answer (level, viability, action and the CLI's report), or the problem with the last input. */
function RegulatorResult({
  report,
  problem,
  pending,
}: {
  report: PressureReport | null;
  problem: string | null;
  pending: boolean;
}) {
  return html`<div class="regulator-result" aria-live="polite" aria-busy=${pending ? 'true' : 'false'}>
    ${problem ? html`<p class="error" role="alert" data-problem>${problem}</p>` : null}
    ${
      report
        ? html`<div class=${problem ? 'stale' : ''}>
          ${problem ? html`<p class="muted stale-note">The last valid answer, until the input is fixed:</p>` : null}
          <div class="result-head">
            <span class=${`level level-big ${REGULATOR_LEVEL_CLASS[report.pressure.level] ?? ''}`} data-level=${report.pressure.level}
              >${report.pressure.level}</span
            >
            <span class="viability"
              ><strong data-viability>${report.pressure.sessionViability}</strong
              ><span class="muted">/100 viability</span></span
            >
            <span class="suggested">suggested: <strong data-action>${report.pressure.suggestedAction}</strong></span>
          </div>
          <h2 class="visually-hidden">The answer as the CLI prints it</h2>
          <pre class="cli-report" data-cli-report>${cliReportLines(report).map(
            (line) =>
              html`${line.map((segment) =>
                segment.color
                  ? html`<span class=${`ansi-${segment.color}`}>${segment.text}</span>`
                  : segment.text,
              )}${'\n'}`,
          )}</pre>
        </div>`
        : html`<p class="muted">Evaluating…</p>`
    }
  </div>`;
}
