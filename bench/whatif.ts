import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayLogText } from '../src/session/replay.js';
import { replayWhatIf } from '../src/session/what-if-replay.js';
import { ArchiveStore, readArchiveFile } from '../src/store/archive.js';
import { createTokenCounter } from '../src/tokens/create-token-counter.js';

const LOGS = {
  'claude-code': new URL(
    '../test/fixtures/traces/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl',
    import.meta.url,
  ),
  codex: new URL(
    '../test/fixtures/traces/codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
    import.meta.url,
  ),
} as const;

export interface WhatIfFigures {
  name: string;
  bytes: number;
  calls: number;
  /** Best of the rounds: read, reconstruct, calibrate, replay twice, archive (no fsync), read back and check. */
  whatIfMs: number;
  /** The first round, with the tokenizer's tables loaded on first use (a fresh process). */
  firstMs: number;
  /** Baseline, same run: the plain replay of the same log (`barometer replay` without --what-if). */
  replayMs: number;
  savedPercent: number;
  costSavedPercent: number | null;
  archiveVerified: boolean;
}

/**
 * `barometer replay --what-if` on the recorded logs, end to end as the CLI runs it (the archive in a temporary
 * directory, no fsync, every record read back and compared with the log), best of `rounds`, against the plain
 * replay of the same log in the same run.
 */
export async function benchWhatIf(rounds = 5): Promise<WhatIfFigures[]> {
  const figures: WhatIfFigures[] = [];
  const counter = createTokenCounter();
  let first = true;
  for (const [name, url] of Object.entries(LOGS)) {
    const text = readFileSync(url, 'utf8');
    let whatIfMs = Number.POSITIVE_INFINITY;
    let firstMs = 0;
    let result: Awaited<ReturnType<typeof replayWhatIf>> | undefined;
    for (let round = 0; round < rounds; round++) {
      const root = await mkdtemp(join(tmpdir(), 'barometer-bench-whatif-'));
      const start = performance.now();
      result = await replayWhatIf(text, {
        archive: new ArchiveStore({ root, durable: false }),
        reader: { readFile: readArchiveFile },
        counter,
        tombstoneArchiveDir: '.barometer/archives',
      });
      const elapsed = performance.now() - start;
      if (round === 0) firstMs = elapsed;
      whatIfMs = Math.min(whatIfMs, elapsed);
      await rm(root, { recursive: true, force: true });
    }
    if (!first) firstMs = Number.NaN;
    first = false;
    let replayMs = Number.POSITIVE_INFINITY;
    for (let round = 0; round < rounds; round++) {
      const start = performance.now();
      replayLogText(text);
      replayMs = Math.min(replayMs, performance.now() - start);
    }
    figures.push({
      name,
      bytes: Buffer.byteLength(text),
      calls: result?.summary.calls ?? 0,
      whatIfMs,
      firstMs,
      replayMs,
      savedPercent: result?.whatIf.savedPercent ?? 0,
      costSavedPercent: result?.whatIf.costSavedPercent ?? null,
      archiveVerified: result?.whatIf.archiveVerified ?? false,
    });
  }
  return figures;
}
