import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../server/serve.js';
import type { SessionSummary } from '../session/session-schemas.js';
import { type CassetteServer, startCassetteServer } from '../test-helpers/cassette-server.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-12-03T10:00:00Z');
// The 5-hour window resets at 12:00 (it began at 07:00).
const FIVE_HOUR_RESET = T0 + 120 * MINUTE;
const SESSION = 'c0ffee00-0000-4000-8000-000000000041';

/** One request of the script: who sends it, when (minutes after T0), and what the provider answers of the 5h window. */
interface Step {
  who: 'main' | 'sub-a' | 'sub-b';
  minute: number;
  fiveHour: number;
}

/**
 * The main conversation's two calls make the 5-hour window bind (31% at 10:01, 60% at 10:40: 40% left at 29 points
 * in 39 min runs out at 11:33, before the 12:00 reset; docs/rules.md "Subscription windows", as in
 * window-proxy.test.ts); sub-agent A starts while it binds; the main conversation goes on; past the reset (12:30) the
 * window no longer binds: A's next request keeps its lowered budget, sub-agent B, which starts then, is never lowered.
 */
const SCRIPT: readonly Step[] = [
  { who: 'main', minute: 1, fiveHour: 0.31 },
  { who: 'main', minute: 40, fiveHour: 0.6 },
  { who: 'sub-a', minute: 41, fiveHour: 0.61 },
  { who: 'main', minute: 42, fiveHour: 0.62 },
  { who: 'sub-a', minute: 43, fiveHour: 0.63 },
  { who: 'sub-a', minute: 150, fiveHour: 0.64 },
  { who: 'sub-b', minute: 151, fiveHour: 0.65 },
  { who: 'main', minute: 152, fiveHour: 0.66 },
];

/** The provider's answer, with the unified rate-limit headers a Claude subscriber's answers carry. */
function answerWith(fiveHour: number) {
  return {
    headers: {
      'content-type': 'application/json',
      'anthropic-ratelimit-unified-status': 'allowed',
      'anthropic-ratelimit-unified-5h-status': 'allowed',
      'anthropic-ratelimit-unified-5h-utilization': String(fiveHour),
      'anthropic-ratelimit-unified-5h-reset': String(FIVE_HOUR_RESET / 1000),
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
    },
    body: JSON.stringify({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'ok' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 1200, output_tokens: 40 },
    }),
  };
}

/** A request as Claude Code 2.1.328 sends one (its thinking and max_tokens as captured from the real binary). */
function requestOf(who: Step['who'], turn: number): string {
  return JSON.stringify({
    model: 'claude-sonnet-4-5',
    messages: [
      { role: 'user', content: [{ type: 'text', text: `the task of ${who}` }] },
      ...Array.from({ length: turn }, (_, index) => [
        { role: 'assistant', content: [{ type: 'text', text: `step ${index} of ${who}` }] },
        { role: 'user', content: [{ type: 'text', text: `go on, ${who}` }] },
      ]).flat(),
    ],
    system: [{ type: 'text', text: `You are ${who === 'main' ? 'the main agent' : 'a sub-agent'}.` }],
    tools: [{ name: 'Read', description: 'reads a file', input_schema: { type: 'object' } }],
    metadata: { user_id: JSON.stringify({ device_id: 'd', account_uuid: '', session_id: SESSION }) },
    max_tokens: 32000,
    thinking: { budget_tokens: 31999, type: 'enabled', display: 'omitted' },
    stream: false,
  });
}

interface Run {
  fake: CassetteServer;
  server: RunningServer;
  root: string;
  sent: string[];
  views: SessionSummary[];
  clock: { now: number };
}

async function run(windowPolicy: Array<'thinking' | 'hold'> | undefined): Promise<Run> {
  const root = mkdtempSync(join(tmpdir(), 'barometer-window-policy-'));
  let fiveHour = 0;
  const fake = await startCassetteServer(() => answerWith(fiveHour));
  const clock = { now: T0 };
  const server = await startServer(
    {
      port: 0,
      logLevel: 'silent',
      dashboard: false,
      dataDir: join(root, 'data'),
      // A short longest hold keeps the test quick: the hold is capped by it, as by the default 60 s.
      proxy: { anthropicUpstream: fake.url, maxWaitSeconds: 0.25, ...(windowPolicy ? { windowPolicy } : {}) },
    },
    { now: () => clock.now },
  );
  const sent: string[] = [];
  const views: SessionSummary[] = [];
  const turns = { main: 0, 'sub-a': 0, 'sub-b': 0 };
  for (const step of SCRIPT) {
    clock.now = T0 + step.minute * MINUTE;
    fiveHour = step.fiveHour;
    const body = requestOf(step.who, turns[step.who]++);
    sent.push(body);
    const answer = await fetch(`${server.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'test',
        'x-claude-code-session-id': SESSION,
        ...(step.who === 'main' ? {} : { 'x-claude-code-agent-id': `agent-${step.who}` }),
      },
      body,
    });
    expect(answer.status).toBe(200);
    await answer.text();
    views.push(await recorded(server, clock.now));
  }
  return { fake, server, root, sent, views, clock };
}

/** The session once the proxy recorded the answer of `at` (it records after passing the answer on). */
async function recorded(server: RunningServer, at: number): Promise<SessionSummary> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const answer = await fetch(`${server.url}/api/v1/sessions/${SESSION}`);
    if (answer.status === 200) {
      const view = (await answer.json()) as SessionSummary;
      if (view.updatedAt === new Date(at).toISOString()) return view;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the answer of ${new Date(at).toISOString()} was never recorded`);
}

async function close(done: Run): Promise<void> {
  await done.server.close();
  await done.fake.close();
  rmSync(done.root, { recursive: true, force: true });
}

describe('the window policy through the proxy (a fake Anthropic answering the unified headers)', () => {
  let on: Run;
  let off: Run;
  beforeAll(async () => {
    on = await run(['thinking', 'hold']);
    off = await run(undefined);
  });
  afterAll(async () => {
    await close(on);
    await close(off);
  });

  it('makes the 5-hour window bind after the main conversation’s second call', () => {
    expect(on.views[1]?.verdict?.windowWait?.window).toBe('five_hour');
    // Past the reset the window no longer binds.
    expect(on.views[5]?.verdict?.windowWait ?? null).toBeNull();
  });

  it('sends the sub-agent’s first request with the lowered budget, and every later one with the same', () => {
    const upstream = on.fake.requests.map((request) => request.raw.toString('utf8'));
    const lowered = (text: string) => text.replace('"budget_tokens":31999', '"budget_tokens":8192');
    SCRIPT.forEach((step, index) => {
      const sent = on.sent[index] as string;
      // Sub-agent A started while the window bound: all its requests lowered, the one after the reset included;
      // only the figure changed. The main conversation and sub-agent B (started once it no longer bound): untouched.
      expect(upstream[index]).toBe(step.who === 'sub-a' ? lowered(sent) : sent);
    });
  });

  it('with the option off, sends every request byte for byte as the agent did', () => {
    const upstream = off.fake.requests.map((request) => request.raw.toString('utf8'));
    expect(upstream).toEqual(off.sent);
    expect(off.views.at(-1)?.proxy?.windowPolicy).toBeUndefined();
  });

  it('records what each lever did in the session and says it in the verdict’s reason', async () => {
    // A's requests at 10:41 and 10:43 held (the window bound), the one at 12:30 not; the main one never.
    expect(on.views.at(-1)?.proxy?.windowPolicy).toEqual({
      levers: ['thinking', 'hold'],
      budgetTokens: 8192,
      conversationsLowered: 1,
      requestsLowered: 3,
      requestsHeld: 2,
      heldSeconds: 0.5,
    });
    const reason = on.views[2]?.verdict?.reasons.find((one) => one.model === 'window')?.reason;
    expect(reason).toContain(
      "the proxy's window policy sent 1 sub-agent request (1 conversation) with the thinking budget lowered to 8192 tokens and held 1 sub-agent request for 0.3 s in all",
    );
    const metrics = await (await fetch(`${on.server.url}/metrics`)).text();
    expect(metrics).toContain('barometer_proxy_window_levers_total{lever="thinking"} 3');
    expect(metrics).toContain('barometer_proxy_window_levers_total{lever="hold"} 2');
    expect(metrics).toMatch(/barometer_proxy_window_held_seconds_total 0\.5\b/);
  });
});
