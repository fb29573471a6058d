import { describe, expect, it } from 'vitest';
import { normalizeAnthropic } from '../usage/normalize-anthropic.js';
import { loadCassette } from '../usage/test-helpers/traces.js';
import { SessionMonitor } from './session-monitor.js';

// The recorded Anthropic response that compacted its context server-side (compact_20260112): the compaction
// pass read 55,196 tokens and wrote 131; the answer read 229 and wrote 5 (see normalize-anthropic.test.ts).
const [response] = loadCassette('test_anthropic_compaction_usage_with_cache.yaml');
const usage = normalizeAnthropic(response!.body);
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

describe('an Anthropic server-side compaction in a response is a compaction of the session', () => {
  it('records a compaction marker with the context before and after, and counts every pass billed', async () => {
    const monitor = new SessionMonitor({ now: () => T0 });
    await monitor.create({ id: 'server-compaction', model: 'claude-sonnet-4-6', tokenBudget: 1_000_000 });
    const answer = await monitor.postUsage('server-compaction', { usage, timestamp: T0 });
    expect(answer.events).toContainEqual({
      type: 'compaction',
      // Answers show every time in ISO 8601 (decision 022).
      at: '2026-11-22T12:00:00.000Z',
      trigger: 'anthropic-server',
      before: 55_196,
      after: 229,
    });
    // The budget counts both passes: 55,196 + 229 prompt and 131 + 5 output tokens.
    expect(answer.signals.budgetUsed).toBe(55_196 + 229 + 131 + 5);
    expect(answer.signals.lastPromptTokens).toBe(229);
    // The loop guards know of it: no automatic trigger until the context grows 10% over 229 tokens.
    expect(answer.trigger.reasons.join('; ')).toMatch(/growth: .*229/);
    const view = await monitor.view('server-compaction');
    expect(view.markers.map((marker) => marker.type)).toContain('compaction');
  });
});
