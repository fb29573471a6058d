/**
 * The dashboard shows a local session's real KV figures live: the example's agent loop runs on lloyal's real cache
 * and feeds a running barometer service (`serviceReporter`, as `BAROMETER_URL` makes the example do), while Chromium
 * has the session's page and the session list open. The page's KV card and the list's KV cells follow without a
 * reload, and their figures are the engine's (`_storeKvPressure`), down to critical below the nBatch floor.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalAgentLoop, serviceReporter } from '../../examples/local-agent-loop.js';
import { lloyalKvEngine } from '../../src/integrations/lloyal-kv-engine.js';
import { KvEngineBudget } from '../../src/kv/kv-engine.js';
import {
  type LloyalTestContext,
  lloyalContext,
  skipWithoutEngine,
  tinyModelFile,
} from '../../src/test-helpers/kv-engines.js';
import {
  type Browser,
  buildDashboard,
  chromiumMissingReason,
  launchBrowser,
  type RunningService,
  screenshot,
  startService,
} from '../e2e/harness.js';

const N_CTX = 2048;
const N_BATCH = 64;
const SOFT_LIMIT = 256;
const SESSION = 'local-kv-dashboard';

const noEngine = skipWithoutEngine('lloyal', 'the dashboard on a local engine');
const noChromium = chromiumMissingReason();
const inCi = Boolean(process.env.CI);
if (noChromium && !inCi) console.warn(`Skipping the dashboard on a local engine: ${noChromium}.`);

interface KvFigures {
  nCtx: number;
  cellsUsed: number;
  remaining: number;
  headroom: number;
  hardLimit: number;
  critical: boolean;
  source: string;
}

/** The KV card as a person reads it: the cells, and whether it says critical. */
async function kvCard(page: Page) {
  const card = page.locator('[data-figure="kv"]');
  return {
    cells: (await card.locator('[data-kv="cells"]').textContent())?.trim(),
    headroom: (await card.locator('[data-kv="headroom"]').textContent())?.trim(),
    floor: (await card.locator('[data-kv="floor"]').textContent())?.trim(),
    critical: await card.getAttribute('data-kv-critical'),
    source: await card.getAttribute('data-kv-source'),
  };
}

/** The list's KV cell of the session's row: cells of n_ctx, and whether it says critical. */
async function kvListCell(page: Page) {
  const cell = page.locator(`[data-row-session="${SESSION}"] [data-kv-cells]`);
  return {
    cells: (await cell.locator('[data-kv="cells"]').textContent())?.trim(),
    tag: (await cell.locator('.tag-critical').allTextContents()).map((text) => text.trim()),
    critical: await cell.getAttribute('data-kv-critical'),
    source: await cell.getAttribute('data-kv-source'),
  };
}

const grouped = (value: number) => new Intl.NumberFormat('en-US').format(value);

describe.skipIf(noEngine || (Boolean(noChromium) && !inCi))(
  'the dashboard shows a local session’s real KV figures live',
  () => {
    let model: ReturnType<typeof tinyModelFile>;
    let context: LloyalTestContext;
    let service: RunningService;
    let browser: Browser;

    beforeAll(async () => {
      if (noChromium) throw new Error(`${noChromium}; CI is set, so this suite fails instead of skipping`);
      buildDashboard();
      model = tinyModelFile('barometer-dashboard');
      context = await lloyalContext(model.path, { nCtx: N_CTX, nBatch: N_BATCH, nSeqMax: 2 });
      service = await startService();
      browser = await launchBrowser();
    });
    afterAll(async () => {
      await browser?.close();
      await service?.app.close();
      context?.dispose();
      model?.remove();
    });

    it('follows the loop on the session page, from the system prompt to critical, with the engine’s cells', async () => {
      const engineCells = () => context._storeKvPressure().cellsUsed;
      const budget = new KvEngineBudget(lloyalKvEngine(context, { nBatch: N_BATCH }), {
        softLimit: SOFT_LIMIT,
      });
      const branch = await budget.open();
      const kv = { nCtx: N_CTX, nBatch: N_BATCH, softLimit: SOFT_LIMIT };
      const reporter = await serviceReporter(
        { url: service.url, id: SESSION, model: 'tiny-gguf', kv },
        engineCells,
      );

      const page = await browser.newPage();
      await page.goto(`${service.url}/sessions/${SESSION}`);
      await page.evaluate(() => {
        (window as unknown as { notReloaded: boolean }).notReloaded = true;
      });
      await page.waitForSelector('[data-stream="live"]');
      const list = await browser.newPage();
      await list.goto(`${service.url}/`);
      await list.evaluate(() => {
        (window as unknown as { notReloaded: boolean }).notReloaded = true;
      });
      await list.waitForSelector('[data-stream="live"]');

      // The system prompt: 200 tokens in the real cache, posted as the loop's reporter posts a turn.
      expect(
        (
          await budget.prefill(
            branch,
            Array.from({ length: 200 }, (_, i) => 3 + i),
          )
        ).ok,
      ).toBe(true);
      expect(engineCells()).toBe(200);
      reporter.onTurn({
        turn: -1,
        prompt: 0,
        generated: 0,
        cellsUsed: 200,
        remaining: N_CTX - 200,
        headroom: N_CTX - 200 - SOFT_LIMIT,
        critical: false,
      });
      await reporter.flush();
      await page.waitForSelector('[data-figure="kv"][data-kv-source="engine"]', { timeout: 10_000 });
      // 2,048 − 200 = 1,848 free, headroom 1,848 − 256 = 1,592; the floor is nBatch (64).
      expect(await kvCard(page)).toEqual({
        cells: '200',
        headroom: '1,848 free · headroom 1,592 over the soft limit of 256',
        floor: 'crash floor 64 (nBatch 64)',
        critical: 'false',
        source: 'engine',
      });
      await screenshot(page, 'kv-01-local-session-start');
      await list.waitForSelector(`[data-row-session="${SESSION}"] [data-kv-cells][data-kv-source="engine"]`, {
        timeout: 10_000,
      });
      expect(await kvListCell(list)).toEqual({
        cells: '200 / 2,048',
        tag: [],
        critical: 'false',
        source: 'engine',
      });

      const turns: number[] = [];
      const result = await runLocalAgentLoop({
        budget,
        branch,
        sample: (id) => context._branchSample(Number(id)),
        resultSizes: [120, 40, 300, 80, 500],
        onTurn: (figures) => {
          turns.push(figures.cellsUsed);
          reporter.onTurn(figures);
        },
      });
      await reporter.flush();
      expect(result.ended).toBe('kv_critical');
      expect(budget.engineFailures).toBe(0);
      expect(turns.length).toBeGreaterThan(3);

      // The engine's figures, by the rules of seed 001: remaining = nCtx − cells, critical below nBatch.
      const cells = engineCells();
      expect(budget.ledger.cellsUsed).toBe(cells);
      const remaining = N_CTX - cells;
      expect(remaining).toBeLessThan(N_BATCH);
      await page.waitForSelector('[data-figure="kv"][data-kv-critical="true"]', { timeout: 10_000 });
      expect(await kvCard(page)).toEqual({
        cells: grouped(cells),
        headroom: `${grouped(remaining)} free · headroom ${remaining - SOFT_LIMIT} over the soft limit of 256`,
        floor: 'critical: below the crash floor 64 (nBatch 64)',
        critical: 'true',
        source: 'engine',
      });
      await screenshot(page, 'kv-02-local-session-critical');
      await list.waitForSelector(`[data-row-session="${SESSION}"] [data-kv-cells][data-kv-critical="true"]`, {
        timeout: 10_000,
      });
      expect(await kvListCell(list)).toEqual({
        cells: `${grouped(cells)} / 2,048`,
        tag: ['critical'],
        critical: 'true',
        source: 'engine',
      });
      expect(
        await list.locator(`[data-row-session="${SESSION}"] [data-kv-cells]`).getAttribute('title'),
      ).toContain('critical: below the crash floor 64 (nBatch 64)');
      await screenshot(list, 'kv-03-session-list-critical');

      const view = await service.call<{ signals: { kv: KvFigures }; verdict: { action: string } }>(
        'GET',
        `/api/v1/sessions/${SESSION}`,
      );
      expect(view.body.signals.kv).toMatchObject({
        nCtx: N_CTX,
        cellsUsed: cells,
        remaining,
        headroom: remaining - SOFT_LIMIT,
        hardLimit: N_BATCH,
        critical: true,
        source: 'engine',
      });
      expect(view.body.verdict.action).toBe('terminate');
      for (const open of [page, list])
        expect(await open.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(
          true,
        );
      await page.close();
      await list.close();
      await budget.release(branch);
    });
  },
);
