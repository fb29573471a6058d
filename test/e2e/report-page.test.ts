import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportResult } from '../../src/contract/index.js';
import {
  type Browser,
  buildDashboard,
  chromiumMissingReason,
  launchBrowser,
  type RunningService,
  screenshot,
  startService,
  TRACES,
} from './harness.js';

const missing = chromiumMissingReason();
const inCi = Boolean(process.env.CI);
if (missing && !inCi) console.warn(`Skipping the Report page's end-to-end test: ${missing}.`);

const SESSION = '4d5611e5-241a-462a-8d15-5122611a9569';

// Without Chromium the suite skips with the reason printed above, except in CI, where it must fail.
describe.skipIf(Boolean(missing) && !inCi)('the Report page in Chromium', () => {
  let service: RunningService;
  let browser: Browser;
  let home: string;

  beforeAll(async () => {
    if (missing) throw new Error(`${missing}; CI is set, so the end-to-end suite fails instead of skipping`);
    buildDashboard();
    // A Claude Code projects folder holding two recorded sessions on two days, for the service to report on.
    home = await mkdtemp(join(tmpdir(), 'barometer-e2e-report-'));
    const projects = join(home, '.claude', 'projects');
    await mkdir(join(projects, '-home-dev-spotter'), { recursive: true });
    await mkdir(join(projects, '-home-dev-tracker'), { recursive: true });
    await cp(
      fileURLToPath(new URL(`claude-code/${SESSION}.jsonl`, TRACES)),
      join(projects, '-home-dev-spotter', `${SESSION}.jsonl`),
    );
    await cp(
      fileURLToPath(new URL('claude-code/small-sonnet-session.jsonl', TRACES)),
      join(projects, '-home-dev-tracker', 'small-sonnet-session.jsonl'),
    );
    service = await startService({}, { reportRoots: [{ agent: 'claude-code', directory: projects }] });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.app.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('shows the cost per day with the what-if beside it, and the table of each view, as the API answers', async () => {
    const expected = await service.call<ReportResult>('GET', '/api/v1/report?view=session');
    expect(expected.status).toBe(200);
    expect(expected.body.rows.map((row) => row.key).sort()).toEqual([SESSION, 'small-sonnet-session']);

    const page = await browser.newPage();
    await page.goto(`${service.url}/report`);
    await page.locator('[data-report-view="session"]').waitFor({ timeout: 60_000 });
    // The chart has one group of bars per day: the two sessions ran on two days.
    expect(await page.locator('[data-cost-chart] g[data-day]').count()).toBe(2);
    expect(await page.locator('[data-cost-chart] rect.bar-whatif').count()).toBe(2);
    expect(await page.locator('table.report tbody tr').count()).toBe(2);
    const total = expected.body.total;
    expect(await page.locator('[data-report-cost]').textContent()).toBe(`$${total.costUsd.toFixed(2)}`);
    expect(await page.locator('[data-report-calls]').textContent()).toBe(String(total.calls));
    expect(total.whatIf.sessions).toBe(2);
    expect(await page.locator('[data-report-saved]').textContent()).toMatch(/^\$\d+\.\d{2,3}$/);
    // The what-if's sign is in the label: a what-if dearer than the real calls says so.
    expect(await page.locator('[data-report-saved-label]').textContent()).toBe(
      (total.whatIf.savedCostUsd ?? 0) < 0
        ? 'barometer would have cost more by'
        : 'barometer would have saved',
    );
    expect(await page.locator('table.report tfoot [data-cost]').textContent()).toBe(
      `$${total.costUsd.toFixed(2)}`,
    );
    expect(await page.locator('.footnotes li').first().textContent()).toContain('Streamed lines');
    await screenshot(page, '20-report-sessions');

    await page.locator('select[name="view"]').selectOption('model');
    await page.locator('[data-report-view="model"]').waitFor({ timeout: 60_000 });
    const models = await service.call<ReportResult>('GET', '/api/v1/report?view=model');
    const shown = await page.locator('table.report tbody th[scope="row"]').allTextContents();
    expect(shown).toEqual(models.body.rows.map((row) => row.key));

    await page.locator('input[name="since"]').fill('2026-01-01');
    await page.waitForFunction(
      () => document.querySelectorAll('[data-cost-chart] g[data-day]').length === 1,
      null,
      {
        timeout: 60_000,
      },
    );
    expect(await page.locator('table.report tbody th[scope="row"]').allTextContents()).toEqual([
      'claude-opus-4-6',
    ]);
    await screenshot(page, '21-report-models-since');
    await page.close();
  }, 180_000);
});
