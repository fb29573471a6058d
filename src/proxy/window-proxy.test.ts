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
// The 5-hour window began at 07:00 and resets at 12:00; the weekly one in four days.
const FIVE_HOUR_RESET = T0 + 120 * MINUTE;
const SEVEN_DAY_RESET = T0 + 4 * 1440 * MINUTE;

/**
 * The calls, in order: which session, when (minutes after T0) and the 5-hour utilization the provider reports
 * (a fraction, as Anthropic's `anthropic-ratelimit-unified-5h-utilization` is: docs/rules.md "Subscription windows").
 */
const CALLS: ReadonlyArray<{ session: string; minute: number; fiveHour: number }> = [
  { session: 'alpha', minute: 0, fiveHour: 0.3 },
  { session: 'beta', minute: 1, fiveHour: 0.31 },
  { session: 'alpha', minute: 30, fiveHour: 0.35 },
  { session: 'beta', minute: 40, fiveHour: 0.6 },
];

let clock = T0;
let fake: CassetteServer;
let server: RunningServer;
let root: string;
let served = 0;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'barometer-window-proxy-'));
  // A provider on 127.0.0.1 answering subscription traffic as Anthropic does: every answer carries the unified
  // rate-limit headers (their names as Claude Code reads them).
  fake = await startCassetteServer(() => {
    const call = CALLS[served++] ?? CALLS[CALLS.length - 1];
    return unifiedAnswer(served, {
      fiveHour: call?.fiveHour ?? 0,
      fiveHourReset: FIVE_HOUR_RESET,
      sevenDay: { utilization: 0.12, reset: SEVEN_DAY_RESET },
      inputTokens: 1200,
      outputTokens: 40,
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

async function send(session: string): Promise<Response> {
  const answer = await fetch(`${server.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'test', 'x-barometer-session': session },
    body: JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: `work of ${session}` }],
    }),
  });
  expect(answer.status).toBe(200);
  await answer.text();
  return answer;
}

async function summary(session: string): Promise<SessionSummary> {
  // The proxy records an answer after passing it on: the session's view is read once the record is in.
  for (let attempt = 0; attempt < 200; attempt++) {
    const answer = await fetch(`${server.url}/api/v1/sessions/${session}`);
    if (answer.status === 200) {
      const view = (await answer.json()) as SessionSummary;
      if (view.signals.windows?.[0]?.at === new Date(clock).toISOString()) return view;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`session ${session} never recorded the answer of ${new Date(clock).toISOString()}`);
}

function fiveHour(view: SessionSummary) {
  return view.signals.windows?.find((window) => window.id === 'five_hour');
}

describe('the proxy with a provider answering the unified rate-limit headers', () => {
  it('passes the headers on to the agent and gives each session the windows, their forecast and its share', async () => {
    const views: SessionSummary[] = [];
    for (const call of CALLS) {
      clock = T0 + call.minute * MINUTE;
      const answer = await send(call.session);
      // The agent (Claude Code reads them for its own status line) gets the headers untouched.
      expect(answer.headers.get('anthropic-ratelimit-unified-5h-utilization')).toBe(String(call.fiveHour));
      views.push(await summary(call.session));
    }
    const [, , alpha, beta] = views as [SessionSummary, SessionSummary, SessionSummary, SessionSummary];

    // alpha at 10:30: its own figures 30% (10:00) → 35% (10:30), 10%/h; 65% left lasts 390 min, past the reset
    // (90 min away): it lasts, the verdict does not wait.
    const alphaWindow = fiveHour(alpha);
    expect(alphaWindow).toMatchObject({
      label: '5h',
      source: 'headers',
      status: 'allowed',
      usedPercent: 35,
      leftPercent: 65,
      resetsAt: new Date(FIVE_HOUR_RESET).toISOString(),
      windowMinutes: 300,
      burnBasis: 'recent',
      burnPercentPerHour: 10,
      minutesRemaining: 390,
      minutesToReset: 90,
      bindsBeforeReset: false,
      pauseMinutes: 0,
    });
    expect(alpha.verdict?.action).not.toBe('wait');
    expect(alpha.verdict?.windowWait ?? null).toBeNull();
    expect(alpha.verdict?.reasons.find((reason) => reason.model === 'window')?.action).toBe('continue');

    // beta at 10:40: 31% (10:01) → 60%, 29 points in 39 min; 40% left lasts 40 / (29/39) min, before the reset.
    const perMinute = 29 / 39;
    const runsOut = T0 + 40 * MINUTE + (40 / perMinute) * MINUTE;
    const pause = Math.round((80 - 40 / perMinute) * 10) / 10;
    expect(fiveHour(beta)).toMatchObject({
      usedPercent: 60,
      burnPercentPerHour: Math.round(perMinute * 60 * 100) / 100,
      minutesRemaining: Math.round((40 / perMinute) * 10) / 10,
      runsOutAt: new Date(Math.round(runsOut)).toISOString(),
      minutesToReset: 80,
      bindsBeforeReset: true,
      pauseMinutes: pause,
    });
    expect(beta.verdict?.action).toBe('wait');
    expect(beta.verdict?.windowWait).toEqual({
      window: 'five_hour',
      seconds: Math.ceil(pause * 60),
      until: new Date(T0 + 40 * MINUTE + Math.ceil(pause * 60) * 1000).toISOString(),
    });
    expect(beta.verdict?.reasons.find((reason) => reason.model === 'window')?.reason).toContain(
      '5h window 60% used at 44.62%/h recently: runs out 11:33Z, resets 12:00Z',
    );

    // Whose usage it was: the first figure (30%) is nobody's; beta's 31% over alpha's 30% is beta's 1 point,
    // alpha's 35% over beta's 31% alpha's 4, beta's 60% over alpha's 35% beta's 25.
    const list = (await (await fetch(`${server.url}/api/v1/sessions`)).json()) as {
      sessions: SessionSummary[];
    };
    const shares = Object.fromEntries(
      list.sessions.map((session) => [session.id, fiveHour(session)?.sessionPercent]),
    );
    expect(shares).toEqual({ alpha: 4, beta: 26 });
    // The weekly window is seen, unchanged (12%), with no pace to forecast from yet: it binds nothing.
    const weekly = beta.signals.windows?.find((window) => window.id === 'seven_day');
    expect(weekly).toMatchObject({
      label: '7d',
      usedPercent: 12,
      bindsBeforeReset: false,
      sessionPercent: 0,
    });
  });
});
