import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionMonitor } from '../session/session-monitor.js';
import { ArchiveStore } from '../store/archive.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import { ProxySessions } from './proxy-sessions.js';
import { SMALL_FILE, smallSubTask } from './test-helpers/small-sub-task.js';

const root = mkdtempSync(join(tmpdir(), 'barometer-proxy-sessions-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function sessions(now: () => number, monitor = new SessionMonitor()) {
  return new ProxySessions({
    monitor,
    archive: new ArchiveStore({ root }),
    now,
    onFailure: (stage, error) => {
      throw new Error(`${stage}: ${String(error)}`);
    },
  });
}

describe('holdMs', () => {
  it('holds a request for what is left of a wait verdict’s waitSeconds, at most the cap', () => {
    let now = 1_000_000;
    const proxy = sessions(() => now);
    const entry = proxy.session('s1');
    entry.verdict = { action: 'wait', waitSeconds: 8, at: now };
    now += 3000;
    expect(proxy.holdMs(entry, 60)).toBe(5000);
    expect(proxy.holdMs(entry, 2)).toBe(2000);
    now += 10_000;
    expect(proxy.holdMs(entry, 60)).toBe(0);
  });

  it('never holds on another action, nor before any verdict', () => {
    const proxy = sessions(() => 0);
    const entry = proxy.session('s2');
    expect(proxy.holdMs(entry, 60)).toBe(0);
    entry.verdict = { action: 'compress', waitSeconds: 30, at: 0 };
    expect(proxy.holdMs(entry, 60)).toBe(0);
  });
});

let coldEviction: (monitor: SessionMonitor) => Promise<ReturnType<ProxySessions['session']>>;
// A file read (about 1,000 tokens: under minFreedTokens 4,000) and the commit that ends its sub-task.
const fileText = SMALL_FILE;
describe('evict when the cache is cold (lever (d) of decision 035)', () => {
  const body = smallSubTask;
  const answer = JSON.stringify({
    model: 'claude-sonnet-4-5-20250929',
    usage: {
      input_tokens: 100,
      cache_read_input_tokens: 2000,
      cache_creation_input_tokens: 200,
      output_tokens: 50,
    },
  });

  async function afterAnswer(pauseMs: number, model = 'claude-sonnet-4-5', monitor = new SessionMonitor()) {
    let now = 1_000_000;
    const proxy = sessions(() => now, monitor);
    const entry = proxy.session(`cold-${pauseMs}-${model}`);
    const ready = proxy.ensure(entry, 'claude-sonnet-4-5', 'barometer-header');
    proxy.analyze(entry, 'anthropic', Buffer.from(JSON.stringify(body(0))), body(0));
    await entry.pending;
    // Warm: the batch would free about 1,000 tokens, below minFreedTokens: it waits.
    expect(entry.edits.size).toBe(0);
    await proxy.record(
      entry,
      'anthropic',
      200,
      {},
      answer,
      ready.then((created) => ({ created })),
    );
    now += pauseMs;
    const next = { ...body(1), model };
    proxy.analyze(entry, 'anthropic', Buffer.from(JSON.stringify(next)), next);
    await entry.pending;
    return entry;
  }

  coldEviction = (monitor) => afterAnswer(6 * 60_000, 'claude-sonnet-4-5', monitor);

  it('leaves a small batch waiting while the cache is warm (a request within its 5-minute lifetime)', async () => {
    expect((await afterAnswer(60_000)).edits.size).toBe(0);
  });

  it('evicts it after a pause longer than the cache lives, or at a model switch: its rewrite is free', async () => {
    const paused = await afterAnswer(6 * 60_000);
    expect(paused.edits.get('read-1')?.result).toMatch(
      /^\[barometer evicted the result of Read \/repo\/values\.ts/,
    );
    const switched = await afterAnswer(60_000, 'claude-haiku-4-5');
    expect(switched.edits.get('read-1')?.result).toBeDefined();
  });
});

describe('a cold cache, seen through the records of the answers (as the proxy runs)', () => {
  const commitBody = smallSubTask;
  const answer = JSON.stringify({
    model: 'claude-sonnet-4-5-20250929',
    usage: { input_tokens: 100, cache_read_input_tokens: 2000, output_tokens: 50 },
  });

  /** Two answered requests of one session, `pauseMs` apart; the edits after the second one's record. */
  async function twoRecords(pauseMs: number, monitor = new SessionMonitor()) {
    let now = 1_000_000;
    const proxy = sessions(() => now, monitor);
    const entry = proxy.session(`records-${pauseMs}-${Math.random()}`);
    const prepared = (body: ReturnType<typeof commitBody>) =>
      proxy.ensure(entry, 'claude-sonnet-4-5', 'barometer-header').then((created) => ({
        created,
        request: { format: 'anthropic' as const, raw: Buffer.from(JSON.stringify(body)), body },
      }));
    void proxy.record(entry, 'anthropic', 200, {}, answer, prepared(commitBody(0)));
    await entry.pending;
    // Warm so far: the batch frees about 1,000 tokens, below minFreedTokens, and waits.
    expect(entry.edits.size).toBe(0);
    now += pauseMs;
    return {
      proxy,
      entry,
      record: () => proxy.record(entry, 'anthropic', 200, {}, answer, prepared(commitBody(1))),
    };
  }

  it('is judged from the answer before the request, not the request’s own (a 6-minute pause evicts)', async () => {
    // The request after the pause found the cache cold: its own answer, recorded just now, does not make it warm.
    const paused = await twoRecords(6 * 60_000);
    await paused.record();
    expect(paused.entry.edits.get('read-1')?.result).toMatch(/^\[barometer evicted the result of Read/);
    const warm = await twoRecords(60_000);
    await warm.record();
    expect(warm.entry.edits.size).toBe(0);
  });

  it('decides the next request’s edits without waiting for the writes no request needs (a receipt, the row)', async () => {
    // A store that never finishes writing a receipt: the session's decisions go on; only the record waits.
    class StuckReceipts extends SessionMonitor {
      override recordReceipt(): Promise<never> {
        return new Promise(() => {});
      }
    }
    const { entry, record } = await twoRecords(6 * 60_000, new StuckReceipts());
    let recorded = false;
    void record().then(() => {
      recorded = true;
    });
    await entry.pending;
    expect(entry.edits.get('read-1')?.result).toBeDefined();
    expect(recorded).toBe(false);
  });
});

describe('what an eviction freed', () => {
  it('is counted net of the tombstone that takes each original’s place', async () => {
    const monitor = new SessionMonitor();
    const entry = await coldEviction(monitor);
    const tombstone = entry.edits.get('read-1')?.result as string;
    const counter = createTokenCounter();
    const view = await monitor.view(entry.id);
    const evicted = view.markers.find((marker) => marker.evicted)?.evicted;
    expect(evicted?.items).toBe(1);
    expect(evicted?.tokensFreed).toBe(counter.count(fileText) - counter.count(tombstone));
  });
});

describe('a session deleted while the proxy records it', () => {
  it('pauses at the failed record, creates the session again at the next request, and resumes', async () => {
    const monitor = new SessionMonitor();
    const failures: string[] = [];
    const pauses: string[] = [];
    const proxy = new ProxySessions({
      monitor,
      archive: new ArchiveStore({ root }),
      onFailure: (stage) => failures.push(stage),
      onPause: (stage) => pauses.push(stage),
    });
    const entry = proxy.session('deleted-meanwhile');
    const answer = JSON.stringify({
      model: 'claude-sonnet-4-5',
      usage: { input_tokens: 100, output_tokens: 5 },
    });
    const created = () =>
      proxy.ensure(entry, 'claude-sonnet-4-5', 'barometer-header').then((ok) => ({ created: ok }));
    await proxy.record(entry, 'anthropic', 200, {}, answer, created());
    await monitor.delete('deleted-meanwhile');
    await proxy.record(entry, 'anthropic', 200, {}, answer, created());
    expect(failures).toEqual(['record']);
    expect(pauses).toEqual(['record']);
    expect(proxy.acting(entry)).toBe(false);
    expect(proxy.standing()).toEqual({ acting: 0, observed: 0, paused: 1 });
    await proxy.record(entry, 'anthropic', 200, {}, answer, created());
    expect(proxy.acting(entry)).toBe(true);
    const view = await monitor.view('deleted-meanwhile');
    expect(view.generations).toBe(1);
    expect(view.proxy).toMatchObject({
      mode: 'act',
      acting: true,
      pause: { stage: 'record', code: 'BR_ERR_SESSION_NOT_FOUND' },
    });
  });
});

describe('batch names', () => {
  it('are unique in a session whose conversations (a parent and its sub-agent) each end a sub-task', async () => {
    const proxy = sessions(() => 0);
    const entry = proxy.session('two-conversations');
    // Each read is well over minFreedTokens, so its batch goes at the commit that follows it.
    const big = Array.from({ length: 1200 }, (_, line) => `line ${line}: value ${(line * 7919) % 1000}`).join(
      '\n',
    );
    const conversation = (request: string, tag: string) => ({
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'user', content: request },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: `read-${tag}`, name: 'Read', input: { file_path: `/repo/${tag}.ts` } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: `read-${tag}`, content: big }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: `bash-${tag}`, name: 'Bash', input: { command: 'git commit -am x' } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: `bash-${tag}`, content: '[main 1a2b3c4] x' }],
        },
      ],
    });
    for (const [request, tag] of [
      ['fix the parser', 'parent'],
      ['explore the tests folder', 'agent'],
    ] as const) {
      const body = conversation(request, tag);
      proxy.analyze(entry, 'anthropic', Buffer.from(JSON.stringify(body)), body);
      await entry.pending;
    }
    expect(entry.edits.get('read-parent')?.result).toContain('when subtask-1 ended');
    // Before: the sub-agent's policy state counted from 1 too, and its batch went into the parent's subtask-1 archive.
    expect(entry.edits.get('read-agent')?.result).toContain('when subtask-2 ended');
    expect(entry.edits.get('read-agent')?.result).toContain('subtask-2.log');
  });
});

describe("the agent ends a sub-task itself (barometer's MCP tool end_subtask)", () => {
  it('evicts the outputs before the call from the request after the one that carries its answer, archived byte for byte', async () => {
    // A read of about 5,000 tokens (over minFreedTokens: it goes while the cache is warm), then the agent's call.
    const big = Array.from({ length: 1000 }, (_, line) => `export const item${line} = "${line}";`).join('\n');
    const body = {
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'user', content: 'list the items, then move on' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'read-big', name: 'Read', input: { file_path: '/repo/items.ts' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'read-big', content: big }] },
        {
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: 'end-1',
              name: 'mcp__barometer__end_subtask',
              input: { summary: 'listed the items' },
            },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'end-1', content: 'noted' }],
        },
      ],
    };
    const monitor = new SessionMonitor();
    const archive = new ArchiveStore({ root });
    const proxy = new ProxySessions({
      monitor,
      archive,
      now: () => 1_000_000,
      onFailure: (stage, error) => {
        throw new Error(`${stage}: ${String(error)}`);
      },
    });
    const entry = proxy.session('ends-itself');
    await proxy.ensure(entry, 'claude-sonnet-4-5', 'barometer-header');
    // Without the call's answer (the request that carries the call only), nothing is decided.
    const before = { ...body, messages: body.messages.slice(0, 4) };
    proxy.analyze(entry, 'anthropic', Buffer.from(JSON.stringify(before)), before);
    await entry.pending;
    expect(entry.edits.size).toBe(0);
    proxy.analyze(entry, 'anthropic', Buffer.from(JSON.stringify(body)), body);
    await entry.pending;
    const tombstone = entry.edits.get('read-big')?.result ?? '';
    expect(tombstone).toMatch(
      /^\[barometer evicted the result of Read \/repo\/items\.ts \(\d+ tokens\) when subtask-1 ended \(task-mark\)\. Original: record "read-big:result" in \S+\.log\]$/,
    );
    const records = await archive.readArchive('ends-itself', 'subtask-1');
    expect(records.find((record) => record.itemId === 'read-big:result')?.content).toBe(big);
    // The agent's own call and its answer stay as they were.
    expect(entry.edits.has('end-1')).toBe(false);
  });
});
