import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../server/serve.js';
import type { SessionSummary } from '../session/session-schemas.js';
import { type CassetteServer, startCassetteServer } from '../test-helpers/cassette-server.js';
import { unifiedAnswer } from './test-helpers/unified-answer.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-12-03T10:00:00Z');
const RESET = T0 + 120 * MINUTE;

/**
 * One Claude Code session through the proxy: its main conversation and two sub-agents (Claude Code 2.1.328 sends
 * `x-claude-code-agent-id` on a sub-agent's requests only: docs/rules.md "Window policy"), each answer with the 5-hour
 * utilization the provider reports after it.
 */
const CALLS: ReadonlyArray<{ agent?: string; minute: number; fiveHour: number }> = [
  { minute: 0, fiveHour: 0.2 },
  { agent: 'agent-explore', minute: 5, fiveHour: 0.3 },
  { minute: 10, fiveHour: 0.32 },
  { agent: 'agent-review', minute: 15, fiveHour: 0.4 },
  { agent: 'agent-explore', minute: 20, fiveHour: 0.45 },
];

let clock = T0;
let fake: CassetteServer;
let server: RunningServer;
let root: string;
let served = 0;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'barometer-window-sub-agents-'));
  fake = await startCassetteServer(() => {
    const call = CALLS[served++] ?? CALLS[CALLS.length - 1];
    return unifiedAnswer(served, {
      fiveHour: call?.fiveHour ?? 0,
      fiveHourReset: RESET,
      inputTokens: 900,
      outputTokens: 30,
    });
  });
  server = await startServer(
    {
      port: 0,
      logLevel: 'silent',
      dashboard: false,
      dataDir: join(root, 'data'),
      proxy: { anthropicUpstream: fake.url },
    },
    { now: () => clock },
  );
});
afterAll(async () => {
  await server.close();
  await fake.close();
  rmSync(root, { recursive: true, force: true });
});

async function send(agent: string | undefined): Promise<void> {
  const answer = await fetch(`${server.url}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'test',
      'x-barometer-session': 'with-sub-agents',
      ...(agent === undefined ? {} : { 'x-claude-code-agent-id': agent }),
    },
    body: JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: agent === undefined ? 'plan the work' : `the work of ${agent}` }],
    }),
  });
  expect(answer.status).toBe(200);
  await answer.text();
}

async function fiveHourAt(at: number) {
  // The proxy records an answer after passing it on: read once the record of this answer is in.
  for (let attempt = 0; attempt < 200; attempt++) {
    const answer = await fetch(`${server.url}/api/v1/sessions/with-sub-agents`);
    if (answer.status === 200) {
      const view = (await answer.json()) as SessionSummary;
      const window = view.signals.windows?.find((entry) => entry.id === 'five_hour');
      if (window?.at === new Date(at).toISOString()) return window;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the answer of ${new Date(at).toISOString()} was never recorded`);
}

describe("a subscription window's share, by sub-agent, through the proxy", () => {
  it('credits each rise to the sub-agent whose call reported it, the rest to the main conversation', async () => {
    let window: Awaited<ReturnType<typeof fiveHourAt>> | undefined;
    for (const call of CALLS) {
      clock = T0 + call.minute * MINUTE;
      await send(call.agent);
      window = await fiveHourAt(clock);
    }
    // 20% is the first figure (nobody's); then explore +10, main +2, review +8, explore +5: the session 25 points,
    // of them explore 15 and review 8 (the main conversation's 2 are the rest).
    expect(window?.usedPercent).toBe(45);
    expect(window?.sessionPercent).toBe(25);
    expect(window?.subAgentPercents).toEqual([
      { agentId: 'agent-explore', percent: 15 },
      { agentId: 'agent-review', percent: 8 },
    ]);
  });
});
