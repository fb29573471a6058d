import { describe, expect, it } from 'vitest';
import { priceOfModel } from '../models/resolve-profile.js';
import { readPiLog } from './read-pi-log.js';
import { readSessionLog } from './read-session-log.js';
import { SessionLogSchema } from './session-log.js';
import { readTrace } from './test-helpers/traces.js';
import { usageCost } from './usage-cost.js';

const PARTS = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;
const text = readTrace('pi-coding-agent/large-session-head.jsonl');
const records = text
  .trimEnd()
  .split('\n')
  .map(
    (line) =>
      JSON.parse(line) as {
        type: string;
        message?: {
          role: string;
          model: string;
          stopReason: string;
          usage: Record<(typeof PARTS)[number], number> & { cost: { total: number } };
        };
      },
  );

describe('readPiLog on the first 40 lines of a recorded pi session', () => {
  const log = readSessionLog(text);

  it('is detected as pi and names the session', () => {
    expect(log.format).toBe('pi');
    expect(log.id).toBe('d703a1a9-1b7b-4fb1-b512-c9738b1fe617');
    expect(SessionLogSchema.safeParse(log).success).toBe(true);
  });

  it('reads one call per assistant message with usage, leaving out responses aborted before any token', () => {
    const assistants = records.filter((record) => record.message?.role === 'assistant');
    const billed = assistants.filter((record) => PARTS.some((key) => record.message!.usage[key] > 0));
    expect(assistants.length).toBeGreaterThan(billed.length);
    expect(log.calls).toHaveLength(billed.length);
    // The prompt is input (uncached) + cacheRead + cacheWrite, as pi's provider adapters split it.
    billed.forEach((record, index) => {
      const usage = record.message!.usage;
      expect(log.calls[index]?.usage).toMatchObject({
        available: true,
        promptTokens: usage.input + usage.cacheRead + usage.cacheWrite,
        cachedReadTokens: usage.cacheRead,
        cachedWriteTokens: usage.cacheWrite,
        completionTokens: usage.output,
      });
      expect(log.calls[index]?.model).toBe(record.message!.model);
    });
    // A response that hands the turn back (stopReason 'stop') completes a task.
    expect(log.calls.filter((call) => call.taskCompleted)).toHaveLength(
      billed.filter((record) => record.message!.stopReason === 'stop').length,
    );
  });

  it('prices the calls as pi itself priced them (usage.cost.total), to the cent', () => {
    const own = records
      .filter((record) => record.message?.role === 'assistant')
      .reduce((sum, record) => sum + record.message!.usage.cost.total, 0);
    const ours = log.calls.reduce(
      (sum, call) => sum + ((usageCost(call.usage, priceOfModel(call.model!)) as { usd: number }).usd ?? 0),
      0,
    );
    expect(own).toBeGreaterThan(0.5);
    expect(Math.abs(ours - own)).toBeLessThan(0.005);
  });
});

describe('pi compactions (records written as pi-mono docs/session.md describes them)', () => {
  const header = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}';
  const user = (text: string, at: string) =>
    JSON.stringify({
      type: 'message',
      id: `u${at}`,
      parentId: null,
      timestamp: `2026-01-01T00:00:${at}.000Z`,
      message: { role: 'user', content: text },
    });
  const assistant = (at: string, stopReason: string, input: number) =>
    JSON.stringify({
      type: 'message',
      id: `a${at}`,
      parentId: null,
      timestamp: `2026-01-01T00:00:${at}.000Z`,
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: 'ok' }],
        provider: 'anthropic',
        model: 'claude-haiku-4-5',
        usage: { input, output: 10, cacheRead: 0, cacheWrite: 0, cost: { total: 0 } },
        stopReason,
      },
    });
  const compaction = (at: string) =>
    JSON.stringify({
      type: 'compaction',
      id: `c${at}`,
      parentId: null,
      timestamp: `2026-01-01T00:00:${at}.000Z`,
      summary: 'recap',
      firstKeptEntryId: 'u01',
      tokensBefore: 50_000,
    });

  it("is 'manual' after a logged /compact, 'auto' after a response that ended in an error, else 'unknown'", () => {
    const log = readPiLog(
      [
        header,
        user('hi', '01'),
        assistant('02', 'stop', 100),
        user('/compact keep the plan', '03'),
        compaction('04'),
        user('go on', '05'),
        assistant('06', 'error', 200),
        compaction('07'),
        assistant('08', 'stop', 300),
        compaction('09'),
        assistant('10', 'stop', 400),
      ].join('\n'),
    );
    expect(log.compactions.map((entry) => [entry.trigger, entry.beforeCallIndex, entry.preTokens])).toEqual([
      ['manual', 1, 50_000],
      ['auto', 2, 50_000],
      ['unknown', 3, 50_000],
    ]);
  });
});
