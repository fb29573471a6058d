import { readFileSync } from 'node:fs';
import { replayLogText } from '../src/session/replay.js';
import { Session } from '../src/session/session.js';
import type { UsageRecord } from '../src/usage/usage-record.js';

const CLAUDE = new URL(
  '../test/fixtures/traces/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl',
  import.meta.url,
);

/**
 * Replays the 3 MB Claude Code log (read + replay), against the baseline of JSON.parse on every line of the
 * same text: the least any reader of the log must do.
 */
export function benchReplay(rounds = 10): {
  bytes: number;
  replayMs: number;
  parseMs: number;
  calls: number;
} {
  const text = readFileSync(CLAUDE, 'utf8');
  const lines = text.split('\n');
  let calls = 0;
  const best = (work: () => void) => {
    let fastest = Number.POSITIVE_INFINITY;
    for (let round = 0; round < rounds; round++) {
      const start = performance.now();
      work();
      fastest = Math.min(fastest, performance.now() - start);
    }
    return fastest;
  };
  const parseMs = best(() => {
    for (const line of lines) if (line) JSON.parse(line);
  });
  const replayMs = best(() => {
    calls = replayLogText(text).summary.calls;
  });
  return { bytes: Buffer.byteLength(text), replayMs, parseMs, calls };
}

/** Kept at module level so that the optimizer cannot drop what is being measured. */
export const retained: unknown[] = [];

/**
 * Heap plus array-buffer bytes per session after each has taken `updates` usage records (a long session that
 * then sits idle), measured over many sessions after a warm-up. Baseline: an empty object per session.
 */
export function benchSessionMemory(
  sessions = 1000,
  updates = 1000,
): { bytesPerSession: number; baselineBytes: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const t0 = Date.UTC(2026, 0, 1);
  const usage = (promptTokens: number): UsageRecord => ({
    available: true,
    source: 'manual',
    promptTokens,
    completionTokens: 200,
    totalTokens: promptTokens + 200,
    cachedReadTokens: 0,
    cachedWriteTokens: 0,
    reasoningTokens: 0,
  });
  // One clock for every session, as a service's sessions share its monitor's: a closure per session would be the
  // bench's own memory, not the session's.
  const clock = { now: () => t0 };
  const longSession = () => {
    const session = new Session(
      { model: 'bench', contextWindow: 200_000, tpmLimit: 2_000_000, tokenBudget: 500_000_000 },
      clock,
    );
    for (let update = 0; update < updates; update++) {
      session.update({ usage: usage(1000 + ((update * 997) % 180_000)), timestamp: t0 + update * 30_000 });
    }
    return session;
  };
  const used = () => {
    const memory = process.memoryUsage();
    return memory.heapUsed + memory.arrayBuffers;
  };
  const perItem = (make: () => unknown) => {
    retained.length = 0;
    gc();
    gc();
    const before = used();
    for (let index = 0; index < sessions; index++) retained.push(make());
    gc();
    gc();
    const bytes = (used() - before) / sessions;
    retained.length = 0;
    return bytes;
  };
  // Warm-up, a whole round: the code the updates run is compiled (and optimized) and the shared caches filled
  // then, not billed to the sessions measured (one session's updates left most of it to the measured round).
  perItem(longSession);
  const baselineBytes = perItem(() => ({}));
  const bytesPerSession = perItem(longSession);
  return { bytesPerSession, baselineBytes };
}
