/**
 * The README's library examples, runnable: npx tsx examples/library.ts
 * (In your project: import { … } from 'barometer'.)
 */
import { readFileSync } from 'node:fs';
import {
  compactOpenAIMessages,
  evaluatePressure,
  normalizeUsage,
  replayLogText,
  Session,
} from '../src/index.js';

// 1. The regulator (seed 000): pure, deterministic.
const report = evaluatePressure(
  { memoryUsedPercent: 72, tokenBurnRatePerMin: 55, contextDriftPercent: 68, tokenBudgetUsed: 62000 },
  { now: Date.parse('2026-11-22T12:00:00Z') },
);
console.log(
  report.pressure.level,
  report.pressure.sessionViability,
  report.pressure.suggestedAction,
  report.pressure.thresholdsExceeded,
);

// 2. A monitored session: feed it each generation's usage, act on the verdict.
// Anthropic counts input (ITPM: uncached + cache writes) and output (OTPM) apart; cache reads are free of ITPM.
const session = new Session({
  model: 'claude-opus-4-6',
  agent: 'claude-code',
  rateLimits: { inputTokensPerMinute: 30_000, outputTokensPerMinute: 8_000 },
});
const anthropicResponse = {
  id: 'msg_01',
  model: 'claude-opus-4-6',
  usage: {
    input_tokens: 1_204,
    cache_read_input_tokens: 118_000,
    cache_creation_input_tokens: 2_100,
    output_tokens: 850,
  },
};
const update = session.update({
  usage: normalizeUsage('anthropic', anthropicResponse),
  timestamp: '2026-11-22T12:00:00Z',
  // The response's rate-limit headers, when you have them, replace barometer's estimate.
  headers: {
    'anthropic-ratelimit-input-tokens-limit': '30000',
    'anthropic-ratelimit-input-tokens-remaining': '26000',
    'anthropic-ratelimit-input-tokens-reset': '2026-11-22T12:00:08Z',
  },
});
console.log(
  update.verdict.action,
  update.verdict.priority,
  update.health.level,
  update.signals.percentOfWindow,
);
const { newRoundDue, waitSeconds, thinking } = update.verdict;
console.log({
  newRoundDue,
  waitSeconds,
  thinking,
  costUsd: update.costUsd,
  cacheHitPercent: update.signals.cacheHitPercent,
});
console.log(update.signals.quotas);
for (const reason of update.verdict.reasons)
  console.log(`  ${reason.model}: ${reason.action} — ${reason.reason}`);

// 3. Replay a recorded Claude Code session.
const log = readFileSync(new URL('../samples/claude-code-small.jsonl', import.meta.url), 'utf8');
console.log(replayLogText(log).summary);

// 4. Compact an OpenAI chat history (without an archive here; the CLI and HTTP surfaces always archive).
const history = JSON.parse(
  readFileSync(new URL('../test/fixtures/openai-history.json', import.meta.url), 'utf8'),
);
const compacted = await compactOpenAIMessages(history, {
  sessionId: 'demo',
  keepTurns: 2,
  keepTokens: 20_000,
});
if (compacted.ok) console.log(compacted.before, compacted.after);
