import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionView, SubAgentsAnswer } from '../../src/contract/index.js';
import { MonitorSessions } from '../../src/integrations/live-sessions.js';
import { LogWatcher } from '../../src/integrations/log-watcher.js';
import {
  emptyBill,
  messageStream,
  priceCall,
  promptText,
} from '../../src/proxy/test-helpers/fake-anthropic.js';
import { replayLogText } from '../../src/session/replay.js';
import { type CassetteServer, startCassetteServer } from '../../src/test-helpers/cassette-server.js';
import {
  type Browser,
  buildDashboard,
  chromiumMissingReason,
  launchBrowser,
  type RunningService,
  startService,
  TRACES,
} from './harness.js';

type Json = Record<string, unknown>;

/** The native Claude Code binary of the devDependency (its platform package; npm may skip the postinstall). */
function claudeBinary(): string | undefined {
  try {
    const packageJson = createRequire(import.meta.url).resolve(
      `@anthropic-ai/claude-code-${process.platform}-${process.arch}/package.json`,
    );
    const binary = join(dirname(packageJson), 'claude');
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

const CLAUDE = claudeBinary();
const missing =
  chromiumMissingReason() ??
  (CLAUDE ? undefined : 'no @anthropic-ai/claude-code binary (npm ci installs it)');
const inCi = process.env.CI === 'true';
if (missing && !inCi) console.warn(`Skipping the "what barometer did" end-to-end test: ${missing}.`);

/** Files of ~24 KB each, every line different, so that each Read result is thousands of tokens. */
const FILES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'].map((name) => ({
  name: `${name}.txt`,
  text: Array.from({ length: 400 }, (_, line) => `${name} line ${line}: value ${(line * 7919) % 1000}.`).join(
    '\n',
  ),
}));
const REQUEST = 'Read the five files and commit after the first three.';
const VIEWER = 'claude-code/viewer-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl';

/** The fake model's script: read three files, commit (a sub-task boundary), read two more, answer. */
function step(
  results: number,
  folder: string,
): { tool: { id: string; name: string; input: Json } } | { text: string } {
  const read = (file: string) => ({
    tool: { id: `toolu_${results}_read`, name: 'Read', input: { file_path: join(folder, file) } },
  });
  if (results < 3) return read(FILES[results]!.name);
  if (results === 3) {
    return {
      tool: {
        id: `toolu_${results}_commit`,
        name: 'Bash',
        input: { command: 'git add -A && git commit -qm "first part read"', description: 'Commit' },
      },
    };
  }
  if (results < 6) return read(FILES[results - 1]!.name);
  return { text: 'All done: five files read.' };
}

/** The real Claude Code, offline, through the service's proxy to a fake Anthropic that scripts the session. */
async function runClaude(service: RunningService, root: string) {
  const workdir = join(root, 'acme', 'shop');
  const home = join(root, 'home');
  mkdirSync(workdir, { recursive: true });
  mkdirSync(home);
  for (const file of FILES) writeFileSync(join(workdir, file.name), file.text);
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };
  execFileSync('git', ['init', '-q'], { cwd: workdir, env });
  const child = spawn(
    CLAUDE!,
    // No --model: Claude Code's own default (claude-opus-5-5), which the registry does not list yet.
    ['-p', REQUEST, '--allowedTools', 'Read Bash'],
    {
      cwd: workdir,
      env: {
        ...env,
        HOME: home,
        ANTHROPIC_BASE_URL: service.url,
        ANTHROPIC_API_KEY: 'sk-ant-test-key-never-stored',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (exitCode !== 0) throw new Error(`claude exited with ${exitCode}: ${stderr}`);
  return workdir;
}

/** A fake Anthropic answering the main conversation by the script, and side requests with a short text. */
function fakeAnthropic(folder: () => string): Promise<CassetteServer> {
  const prompts: string[] = [];
  const bill = emptyBill();
  return startCassetteServer((request) => {
    const body = request.body ?? {};
    const prompt = promptText(body);
    if (!Array.isArray(body.tools) || body.tools.length === 0)
      return messageStream('msg_side', String(body.model), priceCall(prompt, [], emptyBill(), 1), {
        text: 'ok',
      });
    const results = ((body.messages as Json[]) ?? []).flatMap((message) =>
      Array.isArray(message.content)
        ? (message.content as Json[]).filter((block) => block.type === 'tool_result')
        : [],
    ).length;
    const usage = priceCall(prompt, prompts, bill, 40);
    prompts.push(prompt);
    return messageStream(`msg_${prompts.length}`, String(body.model), usage, step(results, folder()));
  });
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(Boolean(missing) && !inCi)('the dashboard shows what barometer did (Chromium)', () => {
  let service: RunningService;
  let fake: CassetteServer;
  let browser: Browser;
  let root: string;
  let shots: string;
  let workdir = '';
  let proxied: SessionView;
  let watcher: LogWatcher;

  const shot = async (page: Page, name: string) => {
    const path = join(shots, `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    console.log(`screenshot: ${path}`);
    return path;
  };
  const api = async <T>(path: string) => (await service.call<T>('GET', path)).body;

  beforeAll(async () => {
    if (missing) throw new Error(`${missing}; CI is set, so this end-to-end test fails instead of skipping`);
    buildDashboard();
    root = mkdtempSync(join(tmpdir(), 'barometer-e2e-did-'));
    shots = mkdtempSync(join(tmpdir(), 'barometer-screenshots-'));
    fake = await fakeAnthropic(() => workdir);
    service = await startService({ proxy: { anthropicUpstream: fake.url, mode: 'act' } });
    workdir = join(root, 'acme', 'shop');
    await runClaude(service, root);
    // A watched Claude Code log whose two Task sub-agents ran inline: a parent and its children.
    const logs = join(root, 'logs');
    mkdirSync(logs);
    writeFileSync(join(logs, 'viewer.jsonl'), readFileSync(new URL(VIEWER, TRACES)));
    watcher = new LogWatcher({
      roots: [logs],
      sessions: new MonitorSessions(service.app.barometerMonitor),
      notify: false,
      timers: false,
    });
    await watcher.start();
    await watcher.flush();
    for (const log of watcher.logs.values()) await log.idle();
    // The session is Claude Code's own id, as its requests carry it.
    const id = fake.requests.map((request) => request.headers['x-claude-code-session-id']).find(Boolean);
    if (typeof id !== 'string') throw new Error('Claude Code sent no session id');
    proxied = await until(
      () => api<SessionView>(`/api/v1/sessions/${id}`),
      (view) => view.evictions !== null && view.title !== null,
      'the eviction and the title',
    );
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await watcher?.close();
    await browser?.close();
    await service?.app.close();
    await fake?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('lists the sessions by project and first request, the sub-agents under their parent', async () => {
    expect(proxied).toMatchObject({ project: 'acme/shop', title: REQUEST, workingDirectory: workdir });
    const page = await browser.newPage();
    await page.goto(`${service.url}/`);
    const row = page.locator(`[data-row-session="${proxied.id}"]`);
    await row.waitFor();
    expect(await row.locator('.project').textContent()).toBe('acme/shop');
    expect(await row.locator('.request').textContent()).toBe(REQUEST);
    expect(await row.locator('.model').textContent()).toContain('claude-code · claude-opus-5-5');
    // Its cost is priced from the family's newest known model: the list says so too.
    expect(await row.locator('.cost .tag-estimated').textContent()).toBe('estimated');
    const parent = page.locator('[data-row-session="viewer"]');
    expect(await parent.locator('.project').textContent()).toBe('to/Demo');
    expect(await parent.locator('.request').textContent()).toBe(
      '/orchestrator @CLAUDE.md を最新の状態にアップデートしてください',
    );
    expect(await parent.locator('.model').textContent()).toContain('2 sub-agents');
    expect(await parent.locator('.cost .tag-estimated').count()).toBe(0);
    expect(await page.locator('[data-parent="viewer"][data-depth="1"]').count()).toBe(2);
    await shot(page, '01-sessions-by-project');
  });

  it("shows the proxied session's eviction, what it saved so far, and opens the archived originals", async () => {
    const eviction = proxied.markers.find((marker) => marker.evicted)?.evicted;
    // Three reads of the finished sub-task went to the archive: what the proxy's tombstones name.
    expect(eviction).toMatchObject({ items: 3, subTask: 'subtask-1' });
    expect(proxied.evictions?.tokensFreed).toBe(eviction!.tokensFreed);
    const later = await api<SessionView>(`/api/v1/sessions/${proxied.id}`);
    const marker = later.markers.find((candidate) => candidate.evicted)!;
    // Tokens not resent: the freed tokens once per call recorded after the eviction.
    expect(later.evictions?.tokensNotResent).toBe(eviction!.tokensFreed * (later.generations - marker.index));
    expect(later.generations - marker.index).toBeGreaterThan(0);

    const page = await browser.newPage();
    await page.goto(`${service.url}/sessions/${proxied.id}`);
    await page.getByRole('heading', { name: 'What barometer did' }).waitFor();
    expect(await page.locator('#session-title').textContent()).toBe(`acme/shop · ${REQUEST}`);
    const figure = (name: string) => page.locator(`[data-figure="${name}"] dd`).first().textContent();
    expect(await figure('evictions')).toBe('1');
    expect(await figure('tokens-freed')).toBe(eviction!.tokensFreed.toLocaleString('en-US'));
    expect(await figure('tokens-not-resent')).toContain(
      later.evictions!.tokensNotResent.toLocaleString('en-US'),
    );
    // The proxy forwarded the session's requests acting: each has a receipt, and the page shows their sum as the API.
    const receipt = later.receipt!;
    expect(receipt.calls).toBeGreaterThan(0);
    expect(receipt.savedUsd).toBeCloseTo(receipt.wouldHaveCostUsd - receipt.costUsd, 9);
    const money = page.locator('[data-figure="money-saved"]');
    expect(await money.locator('dt').textContent()).toBe(
      receipt.savedUsd < 0 ? 'Cost more by' : 'Money saved',
    );
    expect(await money.locator('[data-receipt-detail]').textContent()).toContain(
      `over ${receipt.calls} request`,
    );
    // Claude Code's default model is priced and sized from its family's newest known model, and the page says so.
    const estimated = page.locator('[data-figure="cost"] .tag-estimated');
    expect(await estimated.textContent()).toBe('estimated');
    expect(await estimated.getAttribute('title')).toMatch(/estimated from claude-opus-/);
    expect(await page.locator('[data-figure="prompt"] .tag-estimated').textContent()).toBe('estimated');
    const row = page.locator('[data-eviction="subtask-1"]');
    expect(await row.locator('td').nth(2).textContent()).toBe('3');
    expect(await row.textContent()).toContain('ended by command: git add -A && git commit');
    await shot(page, '02-proxied-session-evictions');

    await row.locator('.archive-link').click();
    await page.waitForURL(/\/archives\/subtask-1$/);
    await page.locator('[data-record]').first().waitFor();
    expect(await page.locator('[data-record]').count()).toBe(3);
    const text = await page.locator('.archive-records').textContent();
    for (const file of FILES.slice(0, 3)) expect(text).toContain(file.text.split('\n')[399]!);
    expect(text).not.toContain(FILES[3]!.text.split('\n')[0]!);
    await shot(page, '03-archived-originals');
  });

  it("lists a watched parent's sub-agents with links, and its totals with them", async () => {
    const family = await api<SubAgentsAnswer>('/api/v1/sessions/viewer/sub-agents');
    const replayed = replayLogText(readFileSync(new URL(VIEWER, TRACES), 'utf8'));
    expect(family.withSubAgents.calls).toBe(replayed.summary.total.calls);
    expect(family.withSubAgents.costUsd).toBeCloseTo(replayed.summary.total.costUsd!, 6);
    const page = await browser.newPage();
    await page.goto(`${service.url}/sessions/viewer`);
    await page.getByRole('heading', { name: 'Sub-agents (2)' }).waitFor();
    const cost = page.locator('[data-figure="cost"]');
    const usd = (value: number) => (value < 1 ? `$${Number(value.toFixed(3))}` : `$${value.toFixed(2)}`);
    expect(await cost.locator('dt').textContent()).toBe('Cost with sub-agents');
    expect(await cost.locator('dd.cost').textContent()).toBe(usd(family.withSubAgents.costUsd!));
    expect(await cost.locator('.own-cost').textContent()).toContain(
      `this session alone ${usd(family.own.costUsd!)}`,
    );
    expect(await page.locator('[data-figure="totals"] .with-sub-agents').textContent()).toContain(
      `with sub-agents: ${family.withSubAgents.calls} calls`,
    );
    await shot(page, '04-parent-with-sub-agents');
    const first = family.subAgents[0]!;
    await page.locator(`[data-sub-agent="${first.id}"] a`).click();
    await page.waitForURL(new RegExp(`/sessions/${first.id}$`));
    await page.getByText('sub-agent of').waitFor();
    expect(await page.locator('#session-title').textContent()).toContain(first.title ?? first.id);
  });
});
