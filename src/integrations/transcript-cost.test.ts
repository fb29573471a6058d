import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { replayLogText } from '../session/replay.js';
import { transcriptCostUsd } from './claude-code-statusline.js';
import { transcriptFileCost } from './transcript-cost.js';

const TRACES = join(import.meta.dirname, '../../test/fixtures/traces/claude-code');
// Inline sub-agent chains (viewer), a subagents/ folder (4d5611e5), a compaction, a small session.
const LOGS = [
  'viewer-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl',
  '4d5611e5-241a-462a-8d15-5122611a9569.jsonl',
  'fa812bfe-compaction-excerpt.jsonl',
  'small-sonnet-session.jsonl',
];

const folders: string[] = [];
function scratch(): string {
  const folder = mkdtempSync(join(tmpdir(), 'barometer-transcript-cost-'));
  folders.push(folder);
  return folder;
}
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A small deterministic generator, so that the cut points are the same on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('transcriptCostUsd', () => {
  it.each(LOGS)('prices %s as barometer replay totals it, sub-agents included', (name) => {
    const path = join(TRACES, name);
    const folder = join(TRACES, name.replace(/\.jsonl$/, ''), 'subagents');
    let subagents: Array<{ name: string; text: string }> = [];
    try {
      subagents = [
        {
          name: 'agent-acompact-e1f845.jsonl',
          text: readFileSync(join(folder, 'agent-acompact-e1f845.jsonl'), 'utf8'),
        },
      ];
    } catch {
      subagents = [];
    }
    const replayed = replayLogText(readFileSync(path, 'utf8'), { format: 'claude-code', subagents });
    expect(replayed.summary.total.costUsd).not.toBeNull();
    expect(transcriptCostUsd(path)).toBeCloseTo(replayed.summary.total.costUsd ?? Number.NaN, 6);
    // replay rounds its totals to the micro-dollar. Read again through a checkpoint (nothing appended): the same
    // figure, from the saved part alone.
    const checkpoints = scratch();
    expect(transcriptCostUsd(path, undefined, checkpoints)).toBeCloseTo(
      replayed.summary.total.costUsd ?? 0,
      6,
    );
    expect(transcriptCostUsd(path, undefined, checkpoints)).toBeCloseTo(
      replayed.summary.total.costUsd ?? 0,
      6,
    );
  });

  it.each(LOGS)(
    'reading only what was appended since the last refresh gives what a whole read gives (%s)',
    (name) => {
      const text = readFileSync(join(TRACES, name), 'utf8');
      const folder = scratch();
      const growing = join(folder, 'session.jsonl');
      const checkpoints = join(folder, 'checkpoints');
      writeFileSync(growing, '');
      const random = seeded(name.length);
      let written = 0;
      let refreshes = 0;
      while (written < text.length) {
        // Cut anywhere, in the middle of a line too, as a refresh may come while Claude Code writes one.
        const next = Math.min(text.length, written + 1 + Math.floor(random() * 40_000));
        appendFileSync(growing, text.slice(written, next));
        written = next;
        const incremental = transcriptFileCost(growing, { checkpointDir: checkpoints });
        const whole = transcriptFileCost(growing);
        expect(incremental.pricedCalls).toBe(whole.pricedCalls);
        expect(incremental.costUsd).toBeCloseTo(whole.costUsd, 9);
        refreshes += 1;
      }
      expect(refreshes).toBeGreaterThan(3);
      const replayed = replayLogText(text, { format: 'claude-code' });
      expect(transcriptFileCost(growing, { checkpointDir: checkpoints }).costUsd).toBeCloseTo(
        replayed.summary.total.costUsd ?? Number.NaN,
        6,
      );
    },
  );

  it('reads a transcript rewritten under the same name again from its start', () => {
    const folder = scratch();
    const path = join(folder, 'session.jsonl');
    const checkpoints = join(folder, 'checkpoints');
    cpSync(join(TRACES, LOGS[0] as string), path);
    const first = transcriptFileCost(path, { checkpointDir: checkpoints });
    // Another session written over it, longer than the first: the saved part no longer matches its bytes.
    const other = readFileSync(join(TRACES, LOGS[1] as string), 'utf8');
    writeFileSync(path, other + other);
    const again = transcriptFileCost(path, { checkpointDir: checkpoints });
    expect(again.costUsd).toBeCloseTo(transcriptFileCost(path).costUsd, 9);
    expect(again.costUsd).not.toBeCloseTo(first.costUsd, 6);
  });

  it('keeps its checkpoints readable by their owner only: they hold bytes of the transcript', () => {
    const folder = scratch();
    const path = join(folder, 'session.jsonl');
    const checkpoints = join(folder, 'checkpoints');
    cpSync(join(TRACES, LOGS[3] as string), path);
    transcriptFileCost(path, { checkpointDir: checkpoints });
    const files = readdirSync(checkpoints);
    expect(files).toHaveLength(1);
    expect(statSync(checkpoints).mode & 0o777).toBe(0o700);
    expect(statSync(join(checkpoints, files[0] as string)).mode & 0o777).toBe(0o600);
  });

  it('counts a message whose lines straddle two refreshes once, at its last usage', () => {
    const folder = scratch();
    const path = join(folder, 'session.jsonl');
    const checkpoints = join(folder, 'checkpoints');
    const line = (outputTokens: number, block: string) =>
      `${JSON.stringify({
        type: 'assistant',
        uuid: `u-${block}`,
        timestamp: '2026-11-20T10:00:00.000Z',
        message: {
          id: 'msg_straddle',
          model: 'claude-sonnet-4-5',
          role: 'assistant',
          content: [{ type: 'text', text: block }],
          usage: { input_tokens: 1000, output_tokens: outputTokens, cache_read_input_tokens: 0 },
        },
        requestId: 'req_1',
      })}\n`;
    writeFileSync(path, line(10, 'first block'));
    const early = transcriptFileCost(path, { checkpointDir: checkpoints });
    appendFileSync(path, line(900, 'second block'));
    const late = transcriptFileCost(path, { checkpointDir: checkpoints });
    expect(early.pricedCalls).toBe(1);
    expect(late.pricedCalls).toBe(1);
    // Sonnet 4.5: $3 per million input tokens, $15 per million output tokens (docs/rules.md).
    expect(late.costUsd).toBeCloseTo((1000 * 3 + 900 * 15) / 1e6, 12);
    expect(late.costUsd).toBeCloseTo(transcriptFileCost(path).costUsd, 12);
  });
});
