import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { buildApp } from '../../src/server/app.js';

/** Debian's Chromium (`apt-get install -y chromium`); BAROMETER_CHROMIUM points elsewhere. */
export const CHROMIUM_PATH = process.env.BAROMETER_CHROMIUM ?? '/usr/bin/chromium';

/** The flags of a quiet, headless run in a container: no sandbox, GPU, network chatter or first-run UI. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TRACES = new URL('../fixtures/traces/', import.meta.url);
export const ARTIFACTS = join(REPO_ROOT, 'test-artifacts', 'e2e');

/** Why Chromium cannot run here, or undefined when it can. */
export function chromiumMissingReason(): string | undefined {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return undefined;
  } catch {
    return `no Chromium at ${CHROMIUM_PATH} (install it: apt-get install -y chromium, or set BAROMETER_CHROMIUM)`;
  }
}

/**
 * Builds the dashboard into web/dist if it is older than its sources (as `npm start` does), so the test sees the
 * current source. Not anew each time: under `npm test`, which has just built, the package test packs web/dist
 * while this suite may run, and a rebuild empties the folder first.
 */
export function buildDashboard(): void {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale', '--only', 'web/dist'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

export interface RunningService {
  app: FastifyInstance;
  url: string;
  /** A JSON call to the service's API, as a client other than the browser would make it. */
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
}

/** The real service on a real socket, with the dashboard served by buildApp itself. */
export async function startService(
  options: Partial<Parameters<typeof buildApp>[0]> = {},
  dependencies: Parameters<typeof buildApp>[1] = {},
  beforeListen: (app: FastifyInstance) => void = () => {},
): Promise<RunningService> {
  // A data dir of its own: the first-start test needs a service with no sessions kept from earlier runs.
  const dataDir = mkdtempSync(join(tmpdir(), 'barometer-e2e-'));
  const app = await buildApp(
    { logLevel: 'silent', rateLimitPerMinute: 0, dataDir, ...options },
    dependencies,
  );
  app.addHook('onClose', async () => rmSync(dataDir, { recursive: true, force: true }));
  beforeListen(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('the server has no TCP address');
  const url = `http://127.0.0.1:${address.port}`;
  return {
    app,
    url,
    async call<T>(method: string, path: string, body?: unknown) {
      const response = await fetch(`${url}${path}`, {
        method,
        ...(body === undefined
          ? {}
          : typeof body === 'string'
            ? { body, headers: { 'content-type': 'text/plain' } }
            : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
    },
  };
}

export interface Browser {
  context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/**
 * Chromium in a fresh profile. Playwright refuses `--user-data-dir` among the args, so the profile is the
 * persistent context's own directory, new for each run and removed afterwards.
 */
export async function launchBrowser(options: { timezoneId?: string } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'barometer-e2e-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
    locale: 'en-GB',
    colorScheme: 'light',
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
  });
  const errors: string[] = [];
  return {
    context,
    async newPage() {
      const page = await context.newPage();
      page.on('pageerror', (error) => errors.push(error.message));
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
      if (errors.length) throw new Error(`the dashboard threw in the browser: ${errors.join('; ')}`);
    },
  };
}

/** Saves a full-page screenshot under test-artifacts/e2e/ (gitignored) and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Saves a screenshot of the first element matching `selector`, for a closer look at the chart. */
export async function screenshotOf(page: Page, selector: string, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.locator(selector).first().screenshot({ path });
  return path;
}

/** The colour family of a CSS `rgb(r, g, b)` value: what a person would call it. */
export function colourName(css: string): 'green' | 'yellow' | 'red' | 'gray' | 'other' {
  const match = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(css);
  if (!match) return 'other';
  const [r, g, b] = match.slice(1, 4).map(Number) as [number, number, number];
  if (Math.max(r, g, b) - Math.min(r, g, b) < 24) return 'gray';
  if (r > 150 && g > 120 && b < 100) return 'yellow';
  if (g > r && g > b) return 'green';
  if (r > g && r > b) return 'red';
  return 'other';
}
