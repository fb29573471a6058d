import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningServer, startServer } from '../server/serve.js';
import type { SessionView } from '../session/session-schemas.js';
import { type CassetteServer, startCassetteServer } from '../test-helpers/cassette-server.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import { canonicalJson } from './cache-request-of.js';
import { CacheModelProvider } from './test-helpers/fake-cache-anthropic.js';
import { scriptedHistory, tombstones } from './test-helpers/scripted-history.js';

type Json = Record<string, unknown>;

const counter = createTokenCounter();
const SYSTEM_TEXT = Array.from(
  { length: 300 },
  (_, line) => `Rule ${line}: keep the change small and explain rule ${(line * 31) % 97}.`,
).join('\n');
const TOOLS = ['Read', 'Bash', 'Edit'].map((name) => ({
  name,
  description: `The ${name} tool: ${'does its job carefully. '.repeat(20)}`,
  input_schema: { type: 'object', properties: { value: { type: 'string' } } },
}));

/**
 * The scripted session's request after `reads` tool calls, as Claude Code shapes one: tools, a system prompt of two
 * blocks (a 1-hour breakpoint on the first, a 5-minute one on the second), and a breakpoint on the last message block
 * only. Sub-tasks end with the commits at calls 3 and 8.
 */
function request(reads: number): Json {
  const body = scriptedHistory(reads, [3, 8]);
  const messages = body.messages as Array<{ role: string; content: unknown }>;
  const last = messages.at(-1)!;
  const blocks = Array.isArray(last.content)
    ? (last.content as Json[])
    : [{ type: 'text', text: String(last.content) }];
  last.content = blocks.map((block, index) =>
    index === blocks.length - 1 ? { ...block, cache_control: { type: 'ephemeral' } } : block,
  );
  return {
    ...body,
    tools: TOOLS,
    system: [
      { type: 'text', text: SYSTEM_TEXT, cache_control: { type: 'ephemeral', ttl: '1h' } },
      { type: 'text', text: 'You are a careful coding agent.', cache_control: { type: 'ephemeral' } },
    ],
    messages,
  };
}

const CALLS = 14;

interface Run {
  server: RunningServer;
  fake: CassetteServer;
  provider: CacheModelProvider;
  view: SessionView;
}

async function run(root: string, route: '' | '/observe'): Promise<Run> {
  const provider = new CacheModelProvider(counter);
  const fake = await startCassetteServer((received) => provider.answer(received.body ?? {}));
  const server = await startServer({
    port: 0,
    logLevel: 'silent',
    dashboard: false,
    dataDir: join(root, route === '' ? 'act' : 'observe'),
    proxy: { anthropicUpstream: fake.url },
  });
  const session = `receipts${route.replace('/', '-')}`;
  for (let reads = 1; reads <= CALLS; reads++) {
    const answer = await fetch(`${server.url}${route}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'test', 'x-barometer-session': session },
      body: JSON.stringify(request(reads)),
    });
    expect(answer.status).toBe(200);
    await answer.text();
  }
  // The sessions API, once the last answer is recorded (each request waited for the previous one's record).
  let view: SessionView | undefined;
  await vi.waitFor(async () => {
    view = (await (await fetch(`${server.url}/api/v1/sessions/${session}`)).json()) as SessionView;
    expect(view.generations).toBe(CALLS);
    if (route === '') expect(view.receipt?.calls).toBe(CALLS);
  });
  return { server, fake, provider, view: view as SessionView };
}

describe('receipts of a proxied session, against a provider billing by the cache model', () => {
  let root: string;
  let act: Run;
  let observe: Run;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'barometer-receipts-'));
    act = await run(root, '');
    observe = await run(root, '/observe');
  }, 60_000);
  afterAll(async () => {
    for (const done of [act, observe]) {
      await done?.server.close();
      await done?.fake.close();
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('evicts the finished sub-tasks in the acting run only', () => {
    expect(tombstones(act.fake.requests.at(-1)?.body).size).toBe(7);
    expect(tombstones(observe.fake.requests.at(-1)?.body).size).toBe(0);
    expect(act.provider.bill.calls).toBe(CALLS);
    expect(observe.provider.bill.calls).toBe(CALLS);
  });

  it('saves, by its receipts, the difference of the two bills to the cent, and would have cost the observed bill', () => {
    const receipt = act.view.receipt!;
    expect(receipt.calls).toBe(CALLS);
    const billed = observe.provider.bill.usd - act.provider.bill.usd;
    console.log(
      `receipts over ${CALLS} calls: would have cost $${receipt.wouldHaveCostUsd.toFixed(4)}, cost $${receipt.costUsd.toFixed(4)}, saved $${receipt.savedUsd.toFixed(4)}; bills: observe $${observe.provider.bill.usd.toFixed(4)}, act $${act.provider.bill.usd.toFixed(4)}`,
    );
    expect(billed).toBeGreaterThan(0.01);
    expect(Math.abs(receipt.savedUsd - billed)).toBeLessThan(0.005);
    expect(receipt.savedUsd).toBeCloseTo(billed, 9);
    expect(receipt.wouldHaveCostUsd).toBeCloseTo(observe.provider.bill.usd, 9);
    expect(receipt.costUsd).toBeCloseTo(act.provider.bill.usd, 9);
    expect(receipt.wouldHavePromptTokens).toBe(observe.provider.bill.promptTokens);
    expect(receipt.promptTokens).toBe(act.provider.bill.promptTokens);
    // What it did cost is what the session's own total says the calls cost.
    expect(receipt.costUsd).toBeCloseTo(act.view.totals.costUsd ?? Number.NaN, 6);
  });

  it('finds no departure where the provider bills as the model predicts', () => {
    expect(act.view.receipt?.departures).toBe(0);
    expect(act.view.receiptCalls?.departed).toEqual([]);
  });

  it('keeps a row per call: nothing saved before the first eviction, the history rewritten after each, then savings', () => {
    const rows = act.view.receiptCalls!.recent;
    expect(rows.map((row) => row.generation)).toEqual(Array.from({ length: CALLS }, (_, index) => index + 1));
    // Before the first commit's result is analysed, the requests go as sent: nothing saved.
    for (const row of rows.slice(0, 4)) {
      expect(row.savedUsd).toBeCloseTo(0, 12);
      expect(row.wouldHavePromptTokens).toBe(row.promptTokens);
    }
    // The request after the first eviction (call 5) changed a block far behind the agent's last breakpoint: the only
    // entry the lookback finds is the system prompt's, so it reads the tools and the system prompt alone. The request
    // after the second (call 10) reads up to the proxy's own breakpoint, on the first batch's last tombstone: more
    // than the head, less than the call before it read whole.
    const head =
      TOOLS.reduce((sum, tool) => sum + counter.count(canonicalJson(tool)), 0) +
      counter.count(canonicalJson({ type: 'text', text: SYSTEM_TEXT })) +
      counter.count(canonicalJson({ type: 'text', text: 'You are a careful coding agent.' }));
    expect(rows[4]?.cacheReadTokens).toBe(head);
    expect(rows[9]!.cacheReadTokens).toBeGreaterThan(head);
    expect(rows[9]!.cacheReadTokens).toBeLessThan(rows[8]!.cacheReadTokens);
    expect(rows[4]!.promptTokens).toBeLessThan(rows[3]!.promptTokens);
    // Every later call reads the previous one whole, and sends less than the agent's own request.
    for (const row of rows.slice(5)) {
      expect(row.promptTokens).toBeLessThan(row.wouldHavePromptTokens);
      expect(row.savedUsd).toBeGreaterThan(0);
    }
  });

  it('gives an observed session no receipt', () => {
    expect(observe.view.receipt).toBeNull();
    expect(observe.view.receiptCalls).toBeNull();
  });
});
