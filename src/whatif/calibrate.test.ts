import { describe, expect, it } from 'vitest';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import { readTrace } from '../usage/test-helpers/traces.js';
import { calibrate, callFeatures, predictedPrompt } from './calibrate.js';
import { itemSize } from './item-size.js';
import type { LogCall, LogHistory, LogItem } from './log-history.js';
import { readClaudeCodeHistory } from './read-claude-code-history.js';
import { readCodexHistory } from './read-codex-history.js';

const counter = createTokenCounter();

function fitted(path: string) {
  const text = readTrace(path);
  const history = path.startsWith('codex/') ? readCodexHistory(text) : readClaudeCodeHistory(text);
  const features = callFeatures(
    history,
    history.items.map((entry) => itemSize(entry, counter)),
  );
  return { history, features, calibration: calibrate(history, features) };
}

/** Recomputes every call's error from the figures, as a reader of the report would. */
function errors({ history, features, calibration }: ReturnType<typeof fitted>): number[] {
  return history.calls
    .filter((call) => call.usage && call.usage.promptTokens > 0)
    .map((call) => {
      const recorded = call.usage!.promptTokens;
      return (
        (Math.abs(predictedPrompt(calibration, features[call.index]!, call.index) - recorded) / recorded) *
        100
      );
    });
}

describe('calibrate: the reconstruction against the recorded usage', () => {
  it('fits the 3 MB Claude Code session within 1% a call on average (3.1% at worst), each side of its compaction apart', () => {
    const fit = fitted('claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl');
    const perCall = errors(fit);
    expect(perCall).toHaveLength(139);
    expect(fit.calibration.calls).toBe(139);
    expect(fit.calibration.meanAbsErrorPercent).toBeCloseTo(
      perCall.reduce((a, b) => a + b, 0) / perCall.length,
      10,
    );
    expect(fit.calibration.maxAbsErrorPercent).toBe(Math.max(...perCall));
    expect(fit.calibration.meanAbsErrorPercent).toBeLessThan(1);
    expect(fit.calibration.maxAbsErrorPercent).toBeLessThan(3.5);
    // Claude counts about 1.08 tokens per o200k token of tool content, as measured before this fit.
    expect(fit.calibration.toolScale).toBeGreaterThan(1.05);
    expect(fit.calibration.toolScale).toBeLessThan(1.12);
    expect(fit.calibration.baseTokens).toBeGreaterThan(20_000);
    // Each side of the compaction fitted apart, each with its own error.
    expect(fit.calibration.segments.map((segment) => [segment.start, segment.calls])).toEqual([
      ['start', 61],
      ['compaction', 78],
    ]);
    for (const segment of fit.calibration.segments) expect(segment.meanAbsErrorPercent).toBeLessThan(1);
  });

  it('fits the small Claude Code session within 5% a call on average', () => {
    const fit = fitted('claude-code/small-sonnet-session.jsonl');
    expect(fit.calibration.meanAbsErrorPercent).toBeLessThan(5);
    expect(errors(fit)).toHaveLength(31);
  });

  it('fits the redacted Codex rollout within 6% a call on average; its worst call is reported, not hidden', () => {
    const fit = fitted('codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl');
    expect(fit.calibration.meanAbsErrorPercent).toBeLessThan(6);
    // The first call: the base is a compromise over 286 calls, so the smallest prompt errs the most.
    expect(fit.calibration.maxErrorCallIndex).toBe(0);
    expect(fit.calibration.maxAbsErrorPercent).toBeGreaterThan(30);
    // Texts redacted to their length: a token is about 2.5 of those characters, not 4.
    expect(fit.calibration.toolScale).toBeGreaterThan(1.1);
  });

  it('fits the small Codex session within 5% a call on average', () => {
    expect(fitted('codex/small-codex-session.jsonl').calibration.meanAbsErrorPercent).toBeLessThan(5);
  });

  it('recovers the base and the scales of a session that follows them exactly', () => {
    const items: LogItem[] = [];
    const calls: LogCall[] = [];
    for (let step = 0; step < 12; step++) {
      items.push({
        item: {
          kind: 'tool-result',
          id: `c${step}:result`,
          callId: `c${step}`,
          content: 'word '.repeat(20 + 7 * step),
        },
        line: step + 1,
        segment: 0,
      });
      items.push({
        item: { kind: 'assistant', id: `a${step}`, text: 'ok '.repeat(1 + (step % 3)) },
        line: step + 1,
        segment: 0,
      });
      calls.push({
        index: step,
        timestamp: '',
        segment: 0,
        itemsBefore: items.length,
        usage: null,
        signals: [],
      });
    }
    const history: LogHistory = { format: 'claude-code', items, calls, segmentStarts: [], lines: [] };
    const features = callFeatures(
      history,
      items.map((entry) => itemSize(entry, counter)),
    );
    for (const call of calls) {
      const f = features[call.index]!;
      const prompt = 5000 + 1.1 * f.tool + 2 * f.text;
      call.usage = {
        promptTokens: prompt,
        cacheReadTokens: 0,
        cacheWrite5mTokens: 0,
        cacheWrite1hTokens: 0,
        completionTokens: 1,
        reasoningTokens: 0,
      };
    }
    const calibration = calibrate(history, features);
    expect(calibration.meanAbsErrorPercent).toBeLessThan(1e-6);
    expect(calibration.baseTokens).toBeCloseTo(5000, 4);
    expect(calibration.toolScale).toBeCloseTo(1.1, 6);
    expect(calibration.textScale).toBeCloseTo(2, 6);
  });

  it('fits each stretch between a compaction and a model switch on its own, and reports each one’s error', () => {
    // Three stretches, each following its own rule exactly: calls 0–11 on model a (base 5,000, tool 1.1, text 2);
    // a manual compaction, then calls 12–23 on model a (base 3,000, tool 1, text 4.5); then calls 24–35 on model b
    // (base 9,000, tool 1.3, text 1.1) without a compaction.
    const rules = [
      { model: 'a', segment: 0, base: 5000, tool: 1.1, text: 2 },
      { model: 'a', segment: 1, base: 3000, tool: 1, text: 4.5 },
      { model: 'b', segment: 1, base: 9000, tool: 1.3, text: 1.1 },
    ];
    const items: LogItem[] = [];
    const calls: LogCall[] = [];
    rules.forEach((rule, stretch) => {
      for (let step = 0; step < 12; step++) {
        const n = stretch * 12 + step;
        items.push({
          item: {
            kind: 'tool-result',
            id: `c${n}:result`,
            callId: `c${n}`,
            content: 'word '.repeat(20 + 7 * step),
          },
          line: n + 1,
          segment: rule.segment,
        });
        items.push({
          item: { kind: 'assistant', id: `a${n}`, text: 'ok '.repeat(1 + (step % 3)) },
          line: n + 1,
          segment: rule.segment,
        });
        calls.push({
          index: n,
          timestamp: '',
          model: rule.model,
          segment: rule.segment,
          itemsBefore: items.length,
          usage: null,
          signals: [],
        });
      }
    });
    const history: LogHistory = {
      format: 'claude-code',
      items,
      calls,
      segmentStarts: [{ trigger: 'manual', line: 13 }],
      lines: [],
    };
    const features = callFeatures(
      history,
      items.map((entry) => itemSize(entry, counter)),
    );
    for (const call of calls) {
      const rule = rules[Math.floor(call.index / 12)]!;
      const f = features[call.index]!;
      call.usage = {
        promptTokens: rule.base + rule.tool * f.tool + rule.text * f.text,
        cacheReadTokens: 0,
        cacheWrite5mTokens: 0,
        cacheWrite1hTokens: 0,
        completionTokens: 1,
        reasoningTokens: 0,
      };
    }
    const calibration = calibrate(history, features);
    expect(
      calibration.segments.map(({ fromCall, toCall, start, model }) => ({ fromCall, toCall, start, model })),
    ).toEqual([
      { fromCall: 0, toCall: 11, start: 'start', model: 'a' },
      { fromCall: 12, toCall: 23, start: 'manual compaction', model: 'a' },
      { fromCall: 24, toCall: 35, start: 'model switch', model: 'b' },
    ]);
    calibration.segments.forEach((segment, index) => {
      const rule = rules[index]!;
      expect(segment.calls).toBe(12);
      expect(segment.baseTokens).toBeCloseTo(rule.base, 3);
      expect(segment.toolScale).toBeCloseTo(rule.tool, 6);
      expect(segment.textScale).toBeCloseTo(rule.text, 6);
      expect(segment.meanAbsErrorPercent).toBeLessThan(1e-6);
      expect(segment.maxAbsErrorPercent).toBeLessThan(1e-6);
    });
    // Every call is predicted by its own stretch's fit.
    for (const call of calls)
      expect(predictedPrompt(calibration, features[call.index]!, call.index)).toBeCloseTo(
        call.usage!.promptTokens,
        3,
      );
    expect(calibration.meanAbsErrorPercent).toBeLessThan(1e-6);
  });
});
