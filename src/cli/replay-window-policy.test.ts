import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WindowForecastView } from '../session/session-schemas.js';
import type { WindowPolicyWhatIf } from '../session/window-policy-what-if.js';
import { memoryIo } from '../test-helpers/memory-io.js';
import { TRACES } from '../usage/test-helpers/traces.js';
import { run } from './program.js';

const trace = (path: string) => fileURLToPath(new URL(path, TRACES));
// The two Codex rollouts that carry windows (rate_limits on every token count), of one account on one morning.
const ROLLOUTS = [
  trace('codex/rollout-2026-02-23T12-47-42-019c8a53-a0dd-7130-bcd7-95445d84846a.jsonl'),
  trace('codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl'),
];
const SONNET = trace('claude-code/small-sonnet-session.jsonl');

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'barometer-window-policy-whatif-'));
});
afterAll(() => rm(directory, { recursive: true, force: true }));

async function cli(args: string[]) {
  const terminal = memoryIo();
  terminal.io.cwd = directory;
  const code = await run(args, { io: terminal.io });
  return { code, stdout: terminal.stdout, stderr: terminal.stderr };
}

interface Replayed {
  calls: Array<{ timestamp: string; windows?: WindowForecastView[] }>;
  windowPolicy: WindowPolicyWhatIf;
}

/**
 * The holds the rules give, recomputed from each call's own forecast of the 5-hour window (docs/rules.md,
 * "Subscription windows": a window that binds before its reset is waited out for `pauseMinutes`, the wait rounded up
 * to a second from the figures' time; the proxy holds the next request for what is left of it, at most 60 s).
 */
function expectedHolds(calls: Replayed['calls']): { held: number; seconds: number } {
  let held = 0;
  let ms = 0;
  for (let index = 1; index < calls.length; index++) {
    // Codex's 5-hour window is its `primary` (300 minutes); a weekly window is never waited out.
    const five = calls[index - 1]?.windows?.find(
      (window) => window.windowMinutes !== null && window.windowMinutes <= 300,
    );
    if (!five?.bindsBeforeReset || five.pauseMinutes === null || five.resetsAt === null) continue;
    const until = Date.parse(five.at) + Math.ceil(five.pauseMinutes * 60) * 1000;
    const left = until - Date.parse(calls[index]!.timestamp);
    if (left <= 0) continue;
    held++;
    ms += Math.min(left, 60_000);
  }
  return { held, seconds: Math.round(ms / 100) / 10 };
}

describe('barometer replay --what-if --window-policy on the Codex rollouts that carry windows', () => {
  it.each(ROLLOUTS)(
    'says plainly that %s holds no sub-agent, so no call is lowered or held',
    async (file) => {
      const { code, stdout } = await cli(['replay', file, '--what-if', '--window-policy', 'thinking,hold']);
      expect(code).toBe(0);
      expect(stdout).toContain(
        'sub-agents: none. This log holds no sub-agent’s calls, so no call would have had its thinking budget lowered or been held',
      );
      const json = await cli(['replay', file, '--what-if', '--window-policy', 'thinking,hold', '--json']);
      const replayed = JSON.parse(json.stdout) as Replayed;
      const measure = replayed.windowPolicy;
      expect(measure.subAgentCalls).toBe(0);
      expect(measure.subAgents).toMatchObject({ callsLowered: 0, callsHeld: 0, heldSeconds: 0 });
      expect(measure.callsWithWindows).toBe(replayed.calls.length);
      // What the levers would touch were the rollout a sub-agent's: the holds the rules give at each call...
      const holds = expectedHolds(replayed.calls);
      expect(measure.callsWhileBinding).toBe(holds.held);
      expect(measure.ifEveryConversationWereASubAgent.callsHeld).toBe(holds.held);
      expect(measure.ifEveryConversationWereASubAgent.heldSeconds).toBeCloseTo(holds.seconds, 1);
      // ...and no lowered thinking: a conversation is lowered only when the window binds at its first call, and
      // nothing binds before the first figure. No call reasons past 8192 tokens either: nothing a budget could cut.
      expect(measure.ifEveryConversationWereASubAgent.callsLowered).toBe(0);
      expect(measure.maxReasoningTokens).toBeLessThan(8192);
      expect(measure.reasoningOverBudgetWhileBinding).toBe(0);
    },
  );

  it('counts the 12-47-42 rollout’s binding calls: most of them, its 5-hour window running out before the reset', async () => {
    const json = await cli(['replay', ROLLOUTS[0]!, '--what-if', '--window-policy', 'hold', '--json']);
    const measure = (JSON.parse(json.stdout) as Replayed).windowPolicy;
    expect(measure.levers).toEqual(['hold']);
    expect(measure.calls).toBe(83);
    expect(measure.callsWhileBinding).toBeGreaterThan(40);
  });

  it('acts on a sub-agent’s rollout (session_meta source {"subagent": …}) as on any sub-agent conversation', async () => {
    // The 12-47-42 rollout as Codex would write it for a sub-agent's session (codex-rs SessionSource::SubAgent).
    const text = await readFile(ROLLOUTS[0]!, 'utf8');
    const lines = text.split('\n');
    expect(lines[0]).toContain('"source":"vscode"');
    lines[0] = (lines[0] as string).replace('"source":"vscode"', '"source":{"subagent":"review"}');
    const file = join(directory, 'sub-agent-rollout.jsonl');
    await writeFile(file, lines.join('\n'));
    const json = await cli(['replay', file, '--what-if', '--window-policy', 'thinking,hold', '--json']);
    const measure = (JSON.parse(json.stdout) as Replayed).windowPolicy;
    expect(measure).toMatchObject({ subAgentConversations: 1, subAgentCalls: 83 });
    expect(measure.subAgents).toEqual(measure.ifEveryConversationWereASubAgent);
    expect(measure.subAgents.callsHeld).toBe(measure.callsWhileBinding);
    const { stdout } = await cli(['replay', file, '--what-if', '--window-policy', 'thinking,hold']);
    expect(stdout).toContain(`sub-agents: 1 conversation, 83 calls: thinking lowered on 0 calls`);
  });

  it('says a log without windows gives the levers nothing to act on', async () => {
    const { code, stdout } = await cli(['replay', SONNET, '--what-if', '--window-policy', 'thinking']);
    expect(code).toBe(0);
    expect(stdout).toContain('this log records no subscription window');
  });

  it('goes with --what-if only, and names a bad lever', async () => {
    expect((await cli(['replay', SONNET, '--window-policy', 'hold'])).stderr).toContain(
      '--policy, --archive-dir and --window-policy go with --what-if',
    );
    expect((await cli(['replay', SONNET, '--what-if', '--window-policy', 'nap'])).stderr).toContain(
      '--window-policy must be off or window levers separated by commas',
    );
  });
});
