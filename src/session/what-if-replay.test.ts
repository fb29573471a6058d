import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { ArchiveStore, readArchiveFile } from '../store/archive.js';
import { readTrace } from '../usage/test-helpers/traces.js';
import { replayWhatIf, type WhatIfReplayResult } from './what-if-replay.js';

let root: string;
let archive: ArchiveStore;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-whatif-replay-'));
  archive = new ArchiveStore({ root, durable: false });
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** The recorded sessions of the repository that hold their messages (test/fixtures/traces/SOURCES.md). */
const SESSIONS = [
  { path: 'claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl' },
  { path: 'claude-code/small-sonnet-session.jsonl' },
  { path: 'codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl' },
  // The small Codex session names a model the registry does not know ("aide-gpt-5", an internal deployment).
  { path: 'codex/small-codex-session.jsonl', model: 'gpt-5' },
];

const results = new Map<string, WhatIfReplayResult>();
async function replayed(path: string, model?: string): Promise<WhatIfReplayResult> {
  let result = results.get(path);
  if (!result) {
    result = await replayWhatIf(readTrace(path), {
      archive,
      reader: { readFile: readArchiveFile },
      sessionId: path.split('/')[0]!,
      ...(model ? { model } : {}),
    });
    results.set(path, result);
  }
  return result;
}

describe('replayWhatIf on the recorded sessions', () => {
  // Priced by the documented cache rules (decision 097), with the policy the proxy runs: its own breakpoint on the
  // latest batch's last tombstone (the first batch still rewrites the history after Claude Code's system prompt) and
  // no warm-cache payback wait (the proxy applies none). The goals (35% / 25%) are not met: these are floors
  // of what the default policy does today on these four sessions.
  it('saves at least 15% of the prompt tokens in aggregate, at no more than 1% higher cost', async () => {
    let real = 0;
    let policy = 0;
    let realCost = 0;
    let policyCost = 0;
    for (const { path, model } of SESSIONS) {
      const { whatIf } = await replayed(path, model);
      real += whatIf.real.promptTokens;
      policy += whatIf.policy.promptTokens;
      realCost += whatIf.real.costUsd ?? 0;
      policyCost += whatIf.policy.costUsd ?? 0;
      expect(whatIf.unpricedCalls).toBe(0);
    }
    expect(1 - policy / real).toBeGreaterThanOrEqual(0.15);
    expect(policyCost).toBeLessThanOrEqual(realCost * 1.01);
  }, 30_000);

  it('gives the same figures whatever the name of the folder it archives to (a re-read reads the shown address)', async () => {
    // The CLI and the service archive to a fresh temporary folder and name the data folder in tombstones: the
    // temporary name (random, and longer here) must reach no text the what-if sizes. On this session the agent
    // quotes evicted results, each re-read by the address its tombstone shows.
    const path = 'claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl';
    const figures = [];
    for (const name of ['a-', 'a-much-longer-temporary-folder-name-']) {
      const folder = await mkdtemp(join(root, name));
      const result = await replayWhatIf(readTrace(path), {
        archive: new ArchiveStore({ root: folder, durable: false }),
        reader: { readFile: readArchiveFile },
        sessionId: 'whatif',
        tombstoneArchiveDir: '/home/user/.barometer/archives',
      });
      expect(result.whatIf.policy.quotedRereads).toBeGreaterThan(0);
      figures.push([result.whatIf.policy.promptTokens, result.whatIf.policy.costUsd]);
    }
    expect(figures[1]).toEqual(figures[0]);
  }, 30_000);

  it('never forces a compaction, and every evicted byte reads back from the archive as the log has it', async () => {
    for (const { path, model } of SESSIONS) {
      const { whatIf } = await replayed(path, model);
      expect(whatIf.policy.callsAboveCompactionPoint).toBe(0);
      expect(whatIf.policy.peakPromptTokens).toBeLessThan(whatIf.compactionPoint ?? 0);
      expect(whatIf.policy.compactions).toBe(0);
      expect(whatIf.archiveVerified).toBe(true);
      expect(whatIf.archiveFailures).toEqual([]);
      expect(whatIf.policy.archivedItems).toBeGreaterThan(0);
    }
  }, 30_000);

  it('avoids the compaction of the Claude Code session the agent compacted, its batches at its commits', async () => {
    const { whatIf, calls } = await replayed(SESSIONS[0]!.path);
    expect(whatIf.real).toMatchObject({ peakPromptTokens: 164_831, compactions: 1 });
    expect(whatIf.compactionPoint).toBe(167_000);
    // Its cost is not a saving by the documented rules (+13.7%: the history the agent compacted to 36,081 tokens
    // stays near 100,000 in the what-if, and 10 quoted results are read back): decision 097.
    expect(whatIf.policy.peakPromptTokens).toBeLessThan(167_000);
    expect(whatIf.evictions.map((eviction) => eviction.boundary)).toContain('command');
    // Every call carries what barometer would have sent; a call before the first eviction is the call recorded.
    expect(calls.every((call) => typeof call.whatIfPromptTokens === 'number')).toBe(true);
    expect(calls[0]?.whatIfPromptTokens).toBe(calls[0]?.promptTokens);
    // The policy's total is its calls' prompts and, with re-reads, the prompts of the extra calls that read back.
    const sent = calls.reduce((sum, call) => sum + (call.whatIfPromptTokens ?? 0), 0);
    if (whatIf.policy.rereads === 0) expect(whatIf.policy.promptTokens).toBe(sent);
    else expect(whatIf.policy.promptTokens).toBeGreaterThan(sent + whatIf.policy.rereads);
  }, 30_000);

  it('feeds the drift measured on the log’s history to the regulator', async () => {
    const { calls } = await replayed(SESSIONS[0]!.path);
    const late = calls[59];
    expect(late?.driftPercent).toBeGreaterThan(50);
    const regulator = late?.reasons.find((reason) => reason.model === 'regulator');
    expect(regulator?.reason).not.toContain('drift not measured');
  }, 30_000);

  it('refuses a log that does not hold its messages, naming why', async () => {
    const text = readTrace('gemini/small-gemini-session.jsonl');
    await expect(replayWhatIf(text, { archive, reader: { readFile: readArchiveFile } })).rejects.toThrow(
      BarometerValidationError,
    );
    await expect(replayWhatIf(text, { archive, reader: { readFile: readArchiveFile } })).rejects.toThrow(
      /only claude-code, codex, pi, openhands logs hold/,
    );
  });
});

describe('replayWhatIf on the pi, OpenHands-output and sub-agent logs', () => {
  it('replays a pi session: every call in the history, the archive read back from the log', async () => {
    const result = await replayWhatIf(readTrace('pi-coding-agent/large-session-head.jsonl'), {
      archive,
      reader: { readFile: readArchiveFile },
      sessionId: 'pi',
    });
    expect(result.format).toBe('pi');
    expect(result.whatIf.calibration.calls).toBe(result.summary.calls);
    expect(result.whatIf.real.costUsd).toBeCloseTo(result.summary.costUsd ?? Number.NaN, 5);
    expect(result.whatIf.archiveVerified).toBe(true);
  });

  it('gives each trajectory of an evaluation output its own what-if, and the file their sum', async () => {
    const result = await replayWhatIf(readTrace('openhands/multi-swe-bench-output-2.jsonl'), {
      archive,
      reader: { readFile: readArchiveFile },
      sessionId: 'openhands',
    });
    expect(result.children).toHaveLength(2);
    const children = result.children ?? [];
    for (const child of children) {
      expect(child.whatIf?.real.costUsd).toBeCloseTo(child.summary.costUsd ?? Number.NaN, 5);
      expect(child.whatIf?.archiveVerified).toBe(true);
    }
    expect(result.whatIf.real.promptTokens).toBe(
      children.reduce((sum, child) => sum + (child.whatIf?.real.promptTokens ?? 0), 0),
    );
    expect(result.summary.total.calls).toBe(children.reduce((sum, child) => sum + child.summary.calls, 0));
  });

  it('gives each inline sub-agent its own what-if, priced as its replay', async () => {
    const result = await replayWhatIf(
      readTrace('claude-code/viewer-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'),
      {
        archive,
        reader: { readFile: readArchiveFile },
        sessionId: 'sidechains',
      },
    );
    expect(result.children?.map((child) => child.summary.calls)).toEqual([3, 7]);
    for (const child of result.children ?? [])
      expect(child.whatIf?.real.costUsd).toBeCloseTo(child.summary.costUsd ?? Number.NaN, 5);
  });
});
