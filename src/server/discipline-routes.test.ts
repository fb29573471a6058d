import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ArchiveStore } from '../store/archive.js';
import { buildApp } from './app.js';

const HISTORY = JSON.parse(
  await readFile(new URL('../../test/fixtures/openai-history.json', import.meta.url), 'utf8'),
);

let app: FastifyInstance;
let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'barometer-routes-'));
  app = await buildApp({ logLevel: 'silent', rateLimitPerMinute: 0, dataDir, dashboard: false });
});
afterEach(async () => {
  await app.close();
  await rm(dataDir, { recursive: true, force: true });
});

const post = (url: string, payload: unknown) =>
  app.inject({ method: 'POST', url, payload: payload as object });

describe('POST /api/v1/compact', () => {
  it('refuses a compaction under minGainPercent with the figures, and names a bad keepTokens', async () => {
    const refused = await post('/api/v1/compact', {
      messages: HISTORY,
      sessionId: 'gain',
      minGainPercent: 99,
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatch(/less than minGainPercent 99%/);
    const bad = await post('/api/v1/compact', { messages: HISTORY, keepTokens: -1 });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('keepTokens');
  });

  it("uses the server's summarizer, and the deterministic recap with a warning when it fails", async () => {
    const failing = await buildApp(
      { logLevel: 'silent', rateLimitPerMinute: 0, dataDir, dashboard: false },
      { summarizer: { summarize: async () => Promise.reject(new Error('model unavailable')) } },
    );
    try {
      const response = await failing.inject({
        method: 'POST',
        url: '/api/v1/compact',
        payload: { messages: HISTORY, sessionId: 'summ' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().warnings).toEqual([
        'summarizer failed (model unavailable); the deterministic recap was used',
      ]);
      expect(JSON.stringify(response.json().messages)).toContain('[Recap of the session so far]');
    } finally {
      await failing.close();
    }
  });

  it('compacts an OpenAI history, archives what it replaced, and serves it back byte for byte', async () => {
    const response = await post('/api/v1/compact', { messages: HISTORY, sessionId: 'run-1', keepTurns: 2 });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.before.messages).toBe(HISTORY.length);
    expect(body.after.tokens).toBeLessThan(body.before.tokens);
    expect(body.messages[0]).toEqual(HISTORY[0]);
    expect(JSON.stringify(body.messages)).toContain('[Recap of the session so far]');
    // Relative to the data directory: the server's own paths are not a client's business.
    expect(body.archives).toEqual(['/api/v1/archives/run-1/compaction-1']);
    const archive = (await app.inject({ url: '/api/v1/archives/run-1/compaction-1' })).json();
    expect(archive.skipped).toEqual([]);
    const toolResult = archive.records.find(
      (record: { itemId: string }) => record.itemId === 'call_0:result',
    );
    expect(JSON.parse(toolResult.content).content).toBe(HISTORY[3].content);
    const raw = await app.inject({ url: '/api/v1/archives/run-1/compaction-1?item=call_0:result' });
    expect(raw.headers['content-type']).toContain('text/plain');
    expect(raw.body).toBe(toolResult.content);
  });

  it('evicts completed tasks given with tagged outputs, and serves an evicted output back byte for byte', async () => {
    const tagged = HISTORY.map((message: { role: string; tool_call_id?: string }) =>
      message.role === 'tool'
        ? { ...message, task_id: message.tool_call_id === 'call_0' ? 'fix-1' : 'other' }
        : message,
    );
    const response = await post('/api/v1/compact', {
      messages: tagged,
      tasks: [{ id: 'fix-1', summary: 'Found the per-line rounding in invoice.ts' }],
      sessionId: 'run-2',
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.mode).toBe('eviction');
    expect(body.evicted).toEqual([{ task: 'fix-1', items: 1, archive: '/api/v1/archives/run-2/fix-1' }]);
    expect(body.messages[3].content).toContain('[Task fix-1 completed: output evicted to archive]');
    const raw = await app.inject({ url: '/api/v1/archives/run-2/fix-1?item=call_0:result' });
    expect(raw.body).toBe(HISTORY[3].content);
  });

  it('refuses a compaction that would not make the history smaller (422), writing nothing', async () => {
    const response = await post('/api/v1/compact', { messages: HISTORY.slice(0, 3), sessionId: 'tiny' });
    expect(response.statusCode).toBe(422);
    expect(response.json().code).toBe('BR_ERR_COMPACTION_REFUSED');
    expect((await app.inject({ url: '/api/v1/archives/tiny/compaction-1' })).statusCode).toBe(404);
  });

  it.each([
    [{ messages: 'hello' }, 'messages'],
    [{ messages: [{ role: 'wizard', content: 'x' }] }, 'messages[0].role'],
    [{ messages: HISTORY, keepTurns: -1 }, 'keepTurns'],
    [{ messages: HISTORY, sessionId: '../../etc' }, 'sessionId'],
    [{ history: HISTORY }, 'history'],
  ])('answers 400 naming the field for %#', async (payload, field) => {
    const response = await post('/api/v1/compact', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json().issues.map((issue: { field: string }) => issue.field)).toContain(field);
  });

  it('answers an item that may lie in damaged bytes 500 BR_ERR_INTEGRITY, without the server path', async () => {
    const archive = new ArchiveStore({ root: join(dataDir, 'archives'), durable: false });
    const entry = (itemId: string) => ({
      itemId,
      kind: 'tool-result' as const,
      field: 'content' as const,
      content: `output of ${itemId}`,
    });
    const { path } = await archive.append('run-9', 'fix-1', [entry('a'), entry('b'), entry('c')]);
    const bytes = await readFile(path);
    bytes[bytes.indexOf('output of b')] = 'O'.charCodeAt(0);
    await writeFile(path, bytes);
    const damaged = await app.inject({ url: '/api/v1/archives/run-9/fix-1?item=b' });
    expect(damaged.statusCode).toBe(500);
    expect(damaged.json()).toMatchObject({ code: 'BR_ERR_INTEGRITY' });
    expect(damaged.body).not.toContain(dataDir);
    const missing = await app.inject({ url: '/api/v1/archives/run-9/nothing?item=b' });
    expect(missing.json()).toMatchObject({ code: 'BR_ERR_ARCHIVE_NOT_FOUND' });
    expect(missing.body).not.toContain(dataDir);
  });

  it('refuses an archive path that tries to leave the archive root', async () => {
    const response = await app.inject({ url: '/api/v1/archives/..%2F..%2Fetc/passwd' });
    expect([400, 404]).toContain(response.statusCode);
    expect(response.body).not.toContain('root:');
  });
});

describe('a compaction reaches the live session of the same id', () => {
  it('releases the trigger lock through /compact, and through /sessions/:id/compactions', async () => {
    await post('/api/v1/sessions', {
      id: 'live',
      model: 'big',
      contextWindow: 1_000_000,
      optimalMaxTokens: 900_000,
    });
    const usage = (promptTokens: number) => post('/api/v1/sessions/live/usage', { promptTokens });
    expect((await usage(210_000)).json().trigger).toMatchObject({ fire: true, trigger: 'standard' });
    expect((await usage(211_000)).json().trigger.fire).toBe(false);
    const compacted = await post('/api/v1/compact', { messages: HISTORY, sessionId: 'live' });
    expect(compacted.json().sessionRecorded).toBe(true);
    // Grown well over 10% past the compacted size and above the threshold again: fires.
    expect((await usage(215_000)).json().trigger.fire).toBe(true);
    const recorded = await post('/api/v1/sessions/live/compactions', {
      before: 215_000,
      after: 190_000,
      trigger: 'auto',
    });
    expect(recorded.statusCode).toBe(201);
    expect(recorded.json().event).toMatchObject({ type: 'compaction', before: 215_000, after: 190_000 });
    const view = (await app.inject({ url: '/api/v1/sessions/live' })).json();
    expect(view.markers.filter((marker: { type: string }) => marker.type === 'compaction')).toHaveLength(2);
    // 205,000 is above the threshold but not 10% over 190,000: the guard holds and says so.
    const held = (await usage(205_000)).json();
    expect(held.trigger.fire).toBe(false);
    expect(held.trigger.reasons.join(' ')).toContain('growth');
    expect((await post('/api/v1/sessions/nope/compactions', { after: 1 })).statusCode).toBe(404);
    expect((await post('/api/v1/sessions/live/compactions', { after: -1 })).json().issues[0].field).toBe(
      'after',
    );
  });

  it("marks a compaction whose size after is not known yet (an agent's pre-compaction hook) without arming the guards", async () => {
    await post('/api/v1/sessions', {
      id: 'hooked',
      model: 'big',
      contextWindow: 1_000_000,
      optimalMaxTokens: 900_000,
    });
    await post('/api/v1/sessions/hooked/usage', { promptTokens: 150_000 });
    const marked = await post('/api/v1/sessions/hooked/compactions', { trigger: 'auto' });
    expect(marked.statusCode).toBe(201);
    expect(marked.json().event).toMatchObject({
      type: 'compaction',
      trigger: 'auto',
      before: 150_000,
      after: null,
    });
    // No guard was armed: a prompt over the standard threshold fires at once.
    const next = (await post('/api/v1/sessions/hooked/usage', { promptTokens: 210_000 })).json();
    expect(next.trigger).toMatchObject({ fire: true, trigger: 'standard' });
  });
});

describe('hot state', () => {
  it('checks a hot state against the cap and the budgets', async () => {
    const response = await post('/api/v1/hot-state/check', {
      hotState: { session_id: 's1', objective: 'fix the rounding bug', constraints: ['small diffs'] },
      maxTokens: 1000,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().capped).toMatchObject({ truncated: false, fits: true, counter: 'o200k_base' });
    expect(response.json().budgets.ok).toBe(true);
  });

  it('falls back to the minimal state above the cap and says it truncated', async () => {
    const constraints = Array.from({ length: 500 }, (_, index) => `constraint number ${index} must hold`);
    const response = await post('/api/v1/hot-state/check', {
      hotState: { session_id: 's1', constraints },
      maxTokens: 50,
    });
    const capped = response.json().capped;
    expect(capped.truncated).toBe(true);
    expect(capped.tokens).toBeLessThanOrEqual(50);
    expect(capped.state).toEqual({ session_id: 's1', risk_level: expect.any(String) });
  });

  it('rejects unknown hot-state keys naming them', async () => {
    const response = await post('/api/v1/hot-state/check', { hotState: { session_id: 's1', mood: 'happy' } });
    expect(response.statusCode).toBe(400);
    expect(response.json().issues[0].field).toBe('hotState.mood');
  });

  it('answers 413, not 500, when a list to move is larger than an artifact may be', async () => {
    const constraints = Array.from(
      { length: 12_000 },
      (_, index) => `constraint ${index}: ${'x'.repeat(40)}`,
    );
    const response = await post('/api/v1/hot-state/enforce', { hotState: { session_id: 's1', constraints } });
    expect(response.statusCode).toBe(413);
    expect(response.json().code).toBe('BR_ERR_ARTIFACT_TOO_LARGE');
  });

  it('moves large lists to artifacts and stores them before answering (reference)', async () => {
    const accepted = Array.from(
      { length: 300 },
      (_, index) => `decision ${index}: keep module ${index} pure`,
    );
    const response = await post('/api/v1/hot-state/enforce', {
      hotState: { session_id: 's1', accepted_decisions: accepted },
      limits: { maxHotStateTokens: 400 },
    });
    expect(response.statusCode).toBe(200);
    const decision = response.json();
    expect(decision.type).toBe('reference');
    const reference = decision.state.artifact_index.at(-1);
    const stored = await app.inject({ url: `/api/v1/artifacts/${reference.artifact_id}` });
    expect(stored.statusCode).toBe(200);
    expect(JSON.parse(stored.body)).toEqual(accepted);
  });
});

describe('POST /api/v1/diff/check', () => {
  it('accepts a unified diff and rejects a full-file rewrite for a code change', async () => {
    const diff = [
      '--- a/src/tax.ts',
      '+++ b/src/tax.ts',
      '@@ -1,1 +1,1 @@',
      '-export const rate = 0.2;',
      '+export const rate = 0.21;',
      '',
    ].join('\n');
    const accepted = await post('/api/v1/diff/check', { output: diff, taskType: 'code-modification' });
    expect(accepted.json()).toMatchObject({ ok: true, kind: 'unified-diff' });
    const rewrite = `Here is the new file:\n\`\`\`ts\n${'export const x = 1;\n'.repeat(60)}\`\`\``;
    const rejected = await post('/api/v1/diff/check', { output: rewrite, taskType: 'code-modification' });
    expect(rejected.json().ok).toBe(false);
  });

  it('answers 400 for a missing output', async () => {
    expect((await post('/api/v1/diff/check', { taskType: 'code-modification' })).json().issues[0].field).toBe(
      'output',
    );
  });
});

describe('GET /api/v1/archives with damaged bytes', () => {
  it('answers the whole records and says which bytes it skipped', async () => {
    const { appendFile } = await import('node:fs/promises');
    const response = await post('/api/v1/compact', { messages: HISTORY, sessionId: 'torn', keepTurns: 2 });
    expect(response.statusCode).toBe(200);
    const before = (await app.inject({ url: '/api/v1/archives/torn/compaction-1' })).json();
    // A writer cut short: half a record header at the end of the file.
    await appendFile(join(dataDir, 'archives', 'torn', 'compaction-1.log'), 'HRA1 99');
    const after = (await app.inject({ url: '/api/v1/archives/torn/compaction-1' })).json();
    expect(after.records).toEqual(before.records);
    expect(after.skipped).toHaveLength(1);
    expect(after.skipped[0].bytes).toBe(7);
  });
});
