import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CassetteServer, startCassetteServer } from '../../src/test-helpers/cassette-server.js';
import {
  type Browser,
  buildDashboard,
  chromiumMissingReason,
  launchBrowser,
  type RunningService,
  screenshot,
  startService,
} from './harness.js';

const missing = chromiumMissingReason();
const inCi = Boolean(process.env.CI);
if (missing && !inCi) console.warn(`Skipping the dashboard's windows test: ${missing}.`);

const MINUTE = 60_000;
const T0 = Date.parse('2026-12-03T10:00:00Z');
const FIVE_HOUR_RESET = T0 + 120 * MINUTE;
// Two sessions through one proxy, the provider stating the 5-hour window's use on each answer (as in
// src/proxy/window-proxy.test.ts, where the API's figures are checked against the rules).
const CALLS = [
  { session: 'alpha', minute: 0, fiveHour: 0.3 },
  { session: 'beta', minute: 1, fiveHour: 0.31 },
  { session: 'alpha', minute: 30, fiveHour: 0.35 },
  { session: 'beta', minute: 40, fiveHour: 0.6 },
];

describe.skipIf(Boolean(missing) && !inCi)('the dashboard’s subscription windows in Chromium', () => {
  let clock = T0;
  let served = 0;
  let fake: CassetteServer;
  let service: RunningService;
  let browser: Browser;

  beforeAll(async () => {
    if (missing) throw new Error(`${missing}; CI is set, so the end-to-end suite fails instead of skipping`);
    buildDashboard();
    fake = await startCassetteServer(() => {
      const call = CALLS[served++] ?? CALLS[CALLS.length - 1];
      return {
        headers: {
          'content-type': 'application/json',
          'anthropic-ratelimit-unified-status': 'allowed',
          'anthropic-ratelimit-unified-5h-utilization': String(call?.fiveHour),
          'anthropic-ratelimit-unified-5h-reset': String(FIVE_HOUR_RESET / 1000),
          'anthropic-ratelimit-unified-7d-utilization': '0.12',
          'anthropic-ratelimit-unified-7d-reset': String((T0 + 4 * 1440 * MINUTE) / 1000),
        },
        body: JSON.stringify({
          id: `msg_${served}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: 'ok' }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 1200, output_tokens: 40 },
        }),
      };
    });
    service = await startService({ proxy: { anthropicUpstream: fake.url } }, { now: () => clock });
    browser = await launchBrowser({ timezoneId: 'UTC' });
    for (const call of CALLS) {
      clock = T0 + call.minute * MINUTE;
      const answer = await fetch(`${service.url}/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': 'test',
          'x-barometer-session': call.session,
        },
        body: JSON.stringify({
          model: 'claude-sonnet-4-5',
          max_tokens: 64,
          messages: [{ role: 'user', content: 'go' }],
        }),
      });
      await answer.text();
      // The proxy records the answer after passing it on: wait for the session to show this call's figure.
      for (let attempt = 0; attempt < 200; attempt++) {
        const view = await service.call<{ signals: { windows?: Array<{ at: string }> } }>(
          'GET',
          `/api/v1/sessions/${call.session}`,
        );
        if (view.body.signals?.windows?.[0]?.at === new Date(clock).toISOString()) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  });

  afterAll(async () => {
    await browser?.close();
    await service?.app.close();
    await fake?.close();
  });

  it('shows the account’s windows and each session’s share on the list, the forecast and the wait on the session page', async () => {
    const list = await browser.newPage();
    await list.goto(`${service.url}/`);
    const account = list.locator('[data-account-window="five_hour"]');
    await account.waitFor({ timeout: 10_000 });
    // The newest figure (beta's at 10:40): 60% used at 29 points in 39 min, it runs out at 11:33, before 12:00.
    expect((await account.textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      '5h 60% · runs out 11:33 · resets 12:00 · beta 26%, alpha 4%',
    );
    expect(await list.locator('[data-row-session="beta"] [data-window-share]').textContent()).toBe(
      '26% of 60%',
    );
    expect(await list.locator('[data-row-session="alpha"] [data-window-share]').textContent()).toBe(
      '4% of 35%',
    );
    await screenshot(list, 'windows-list');

    const page = await browser.newPage();
    await page.goto(`${service.url}/sessions/beta`);
    const five = page.locator('[data-window="five_hour"]');
    await five.waitFor({ timeout: 10_000 });
    const text = (await five.textContent())?.replace(/\s+/g, ' ').trim();
    expect(text).toContain('5h 60% · runs out 11:33 · resets 12:00');
    expect(text).toContain(
      '44.62%/h recently · this session burnt 26% of the 5h window · read from the provider’s headers',
    );
    expect((await page.locator('[data-window-wait]').textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      'The 5h window runs out before it resets at this pace: a pause of 26 min now makes what is left last until then.',
    );
    // The weekly window lasts: no run-out shown.
    expect((await page.locator('[data-window="seven_day"] strong').textContent())?.trim()).toBe(
      '7d 12% · lasts until its reset at 10:00',
    );
    await screenshot(page, 'windows-session');

    // alpha's own page: its window lasts until the reset, and nothing asks it to wait.
    const alpha = await browser.newPage();
    await alpha.goto(`${service.url}/sessions/alpha`);
    await alpha.locator('[data-window="five_hour"]').waitFor({ timeout: 10_000 });
    expect((await alpha.locator('[data-window="five_hour"] strong').textContent())?.trim()).toBe(
      '5h 35% · lasts until its reset at 12:00',
    );
    expect(await alpha.locator('[data-window-wait]').count()).toBe(0);
  });
});
