import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import { buildHotState, formatHotStateJson, type HotState } from './hot-state.js';
import { type PromptMetrics, promptMetrics, promptRegressions } from './prompt-metrics.js';

const o200k = createTokenCounter();
const id = (i: number) => i.toString(16).padStart(64, '0');
const refs = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ artifact_id: id(i), type: 'code' as const }));
const state = buildHotState({ session_id: 's1', run_id: 'r1', objective: 'Fix the failing test' });

/** A state whose hot state is just over 800 tokens, built by adding constraints until it is. */
function stateOver800(): HotState {
  const constraints: string[] = [];
  let candidate = buildHotState({ session_id: 's1', constraints });
  while (o200k.count(formatHotStateJson(candidate)) <= 800) {
    constraints.push(`constraint ${constraints.length}: keep the public API stable`);
    candidate = buildHotState({ session_id: 's1', constraints });
  }
  return candidate;
}

describe('promptMetrics', () => {
  it("reports one turn's figures, with the time given", () => {
    const metrics = promptMetrics(
      buildHotState({ ...state, artifact_index: [...refs(2), { artifact_id: id(9), type: 'log' }] }),
      {
        systemPrompt: 'You are terse.',
        userContent: 'hello world',
        messages: [{ role: 'user', content: 'hi' }],
      },
      { now: 0 },
    );
    expect(metrics).toMatchObject({
      timestamp: '1970-01-01T00:00:00.000Z',
      sessionId: 's1',
      runId: 'r1',
      hotStateTruncated: false,
      artifactIndexCount: 3,
      artifactTypes: ['code', 'log'],
      systemPromptChars: 14,
      userContentChars: 11,
      messageCount: 1,
      ragChunks: 0,
      inlineArtifacts: 0,
      budgetPassed: true,
      violations: [],
      counter: 'o200k_base',
      estimate: false,
    });
  });

  it('measures the hot state in tokens and UTF-8 bytes', () => {
    const accented = buildHotState({ session_id: 's1', objective: 'réparer' });
    const metrics = promptMetrics(accented, {}, { now: 0 });
    expect(metrics.hotStateBytes).toBe(formatHotStateJson(accented).length + 1);
    expect(metrics.hotStateTokens).toBe(o200k.count(formatHotStateJson(accented)));
  });

  it('takes the session and run ids and the truncation flag from the options', () => {
    const metrics = promptMetrics(
      state,
      {},
      { now: 0, sessionId: 'other', runId: 'r2', hotStateTruncated: true },
    );
    expect(metrics).toMatchObject({ sessionId: 'other', runId: 'r2', hotStateTruncated: true });
  });

  it('requires the time and rejects unknown options', () => {
    expect(() => promptMetrics(state, {}, {} as never)).toThrow(BarometerValidationError);
    expect(() => promptMetrics(state, {}, { now: 0, clock: 1 } as never)).toThrow(/clock/);
  });
});

describe('promptRegressions', () => {
  const quiet = (): PromptMetrics => promptMetrics(state, {}, { now: 0 });

  it('warns of nothing on a small turn', () => {
    expect(promptRegressions(quiet())).toEqual([]);
  });

  it('warns when the hot state is over 800 tokens, before the budget fails', () => {
    const metrics = promptMetrics(stateOver800(), {}, { now: 0 });
    expect(metrics.budgetPassed).toBe(true);
    expect(promptRegressions(metrics)).toEqual([
      { code: 'hot_state_tokens_high', actual: metrics.hotStateTokens, threshold: 800 },
    ]);
  });

  it('warns above 15 artifact references, not at 15', () => {
    const at15 = promptMetrics(buildHotState({ session_id: 's1', artifact_index: refs(15) }), {}, { now: 0 });
    const at16 = promptMetrics(buildHotState({ session_id: 's1', artifact_index: refs(16) }), {}, { now: 0 });
    expect(promptRegressions(at15)).toEqual([]);
    expect(promptRegressions(at16)).toEqual([
      { code: 'artifact_index_entries_high', actual: 16, threshold: 15 },
    ]);
  });

  it('warns above 6000 prompt tokens, not at 6000', () => {
    expect(promptRegressions(promptMetrics(state, { promptTokens: 6000 }, { now: 0 }))).toEqual([]);
    expect(promptRegressions(promptMetrics(state, { promptTokens: 6001 }, { now: 0 }))).toEqual([
      { code: 'prompt_tokens_high', actual: 6001, threshold: 6000 },
    ]);
  });

  it('warns when the budget failed, with the number of violations', () => {
    const metrics = promptMetrics(state, { promptTokens: 9000, ragChunks: Array(11).fill('c') }, { now: 0 });
    expect(promptRegressions(metrics)).toEqual([
      { code: 'prompt_tokens_high', actual: 9000, threshold: 6000 },
      { code: 'budget_failed', violations: 2 },
    ]);
  });
});
