import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../server/serve.js';
import {
  chunk,
  type Exchange,
  head,
  type MisbehavingProvider,
  type Step,
  startMisbehavingProvider,
} from './test-helpers/misbehaving-provider.js';

/** The proxy's upstream timeouts in this test (seconds): short, so that a silent provider is given up on soon. */
const TIMEOUT_SECONDS = 0.5;
/** How soon after the upstream's failure the agent's answer must have ended with an error. */
const WITHIN_MS = 1000;
const REPEATS = 20;

const event = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
/** An Anthropic Messages stream, event by event (usage in message_start and message_delta). */
const EVENTS = [
  event('message_start', {
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 1200, output_tokens: 1 },
    },
  }),
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  event('ping', {}),
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hello' } }),
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: ', world' } }),
  event('content_block_stop', { index: 0 }),
  event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 7 } }),
  event('message_stop', {}),
];
const STREAM = EVENTS.join('');
const JSON_ANSWER = JSON.stringify({
  id: 'msg_2',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [{ type: 'text', text: 'Hello, world' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 900, output_tokens: 5 },
});
const SSE = { 'content-type': 'text/event-stream', 'transfer-encoding': 'chunked' };
const JSON_HEAD = { 'content-type': 'application/json', 'content-length': String(JSON_ANSWER.length) };
const HALF = JSON_ANSWER.slice(0, 60);
/** Time for the proxy to pass the answer's first bytes on before the upstream fails. */
const BEAT: Step = { pause: 10 };

/** What the fake provider does, by the request's `x-test-script` header. */
const SCRIPTS: Record<string, readonly Step[]> = {
  'sse-clean': [
    { write: head({ ...SSE, connection: 'x-provider-hop', 'x-provider-hop': 'for the proxy only' }) },
    ...EVENTS.map((text) => ({ write: chunk(text) })),
    { write: chunk('') },
  ],
  'sse-reset': [{ write: head(SSE) }, { write: chunk(EVENTS[0]!) }, BEAT, { fail: 'reset' }],
  // A whole chunk that holds half an event, then FIN.
  'sse-mid-event-close': [
    { write: head(SSE) },
    { write: chunk(EVENTS[0]!) },
    { write: chunk(EVENTS[3]!.slice(0, 40)) },
    BEAT,
    { fail: 'close' },
  ],
  'sse-short-body': [
    { write: head({ 'content-type': 'text/event-stream', 'content-length': String(STREAM.length) }) },
    { write: EVENTS[0]! },
    { write: EVENTS[1]! },
    BEAT,
    { fail: 'close' },
  ],
  // With `connection: close`, undici reads a reset as the end of the connection (Mac OS resets closed sockets):
  // inside a chunked body it is an answer cut short all the same.
  'sse-reset-on-closing-connection': [
    { write: head({ ...SSE, connection: 'close' }) },
    { write: chunk(EVENTS[0]!) },
    BEAT,
    { fail: 'reset' },
  ],
  'sse-silent': [{ write: head(SSE) }, { write: chunk(EVENTS[0]!) }, { fail: 'silence' }],
  'json-clean': [
    { write: head(JSON_HEAD) },
    { write: JSON_ANSWER.slice(0, 30) },
    { write: JSON_ANSWER.slice(30, 90) },
    { write: JSON_ANSWER.slice(90) },
  ],
  'json-reset': [{ write: head(JSON_HEAD) }, { write: HALF }, BEAT, { fail: 'reset' }],
  // A chunk that promises more bytes than come, then FIN.
  'json-mid-chunk-close': [
    { write: head({ 'content-type': 'application/json', 'transfer-encoding': 'chunked' }) },
    { write: `${(200).toString(16)}\r\n${HALF}` },
    BEAT,
    { fail: 'close' },
  ],
  'json-short-body': [{ write: head(JSON_HEAD) }, { write: HALF }, BEAT, { fail: 'close' }],
  'json-silent': [{ write: head(JSON_HEAD) }, { write: HALF }, { fail: 'silence' }],
  'no-headers': [{ fail: 'silence' }],
  'headers-then-reset': [{ write: head(SSE) }, BEAT, { fail: 'reset' }],
  // A chunk size that is not hexadecimal.
  'json-bad-chunk': [
    { write: head({ 'content-type': 'application/json', 'transfer-encoding': 'chunked' }) },
    { write: chunk(HALF) },
    { write: 'zz\r\n' },
  ],
  'reset-before-headers': [{ fail: 'reset' }],
  // Never silent for long (an event every 50 ms), never ending: only the agent's going away ends it.
  endless: [
    { write: head(SSE) },
    ...Array.from({ length: 400 }, () => [{ write: chunk(EVENTS[2]!) }, { pause: 50 }]).flat(),
  ],
};

interface Answer {
  status: number | undefined;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** How the agent's answer ended: `end` (whole), or the client's error code. */
  ended: string;
  endedAt: number;
}

let root: string;
/** Requests sent so far: each carries its number, so that the provider's exchange that served it is found. */
let requests = 0;
let provider: MisbehavingProvider;
let proxy: RunningServer;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'barometer-upstream-failures-'));
  provider = await startMisbehavingProvider((headers) => {
    const script = SCRIPTS[headers['x-test-script'] ?? ''];
    if (!script) throw new Error(`no script ${headers['x-test-script']}`);
    return script;
  });
  proxy = await startServer({
    port: 0,
    logLevel: 'silent',
    dashboard: false,
    dataDir: join(root, 'data'),
    proxy: {
      anthropicUpstream: provider.url,
      upstreamHeadersTimeoutSeconds: TIMEOUT_SECONDS,
      upstreamIdleTimeoutSeconds: TIMEOUT_SECONDS,
    },
  });
});
afterAll(async () => {
  await proxy?.close();
  await provider?.close();
  rmSync(root, { recursive: true, force: true });
});

/**
 * One request through the proxy, as an agent's client on node:http sends it; resolves when the answer ended,
 * whole or with an error, or after 5 s without either (`ended: 'hung'`).
 */
function send(
  script: string,
  options: { id?: string; session?: string; abortAfterBytes?: number } = {},
): Promise<Answer> {
  const body = JSON.stringify({
    model: 'claude-sonnet-4-5',
    max_tokens: 64,
    stream: script.startsWith('sse'),
    messages: [{ role: 'user', content: 'hi' }],
  });
  return new Promise((resolve) => {
    const answer: Answer = { status: undefined, headers: {}, body: '', ended: 'hung', endedAt: 0 };
    let settled = false;
    const finish = (ended: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(hung);
      answer.ended = ended;
      answer.endedAt = performance.now();
      resolve(answer);
    };
    const hung = setTimeout(() => {
      finish('hung');
      outgoing.destroy();
    }, 5000);
    const outgoing = httpRequest(`${proxy.url}/v1/messages`, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'test-key',
        'x-test-script': script,
        'x-test-id': options.id ?? `request-${++requests}`,
        'x-barometer-session': options.session ?? 'broken',
        connection: 'keep-alive, x-agent-hop',
        'x-agent-hop': 'for the proxy only',
      },
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    outgoing.on('response', (incoming) => {
      answer.status = incoming.statusCode;
      answer.headers = incoming.headers;
      incoming.setEncoding('utf8');
      incoming.on('data', (text: string) => {
        answer.body += text;
        if (options.abortAfterBytes !== undefined && answer.body.length >= options.abortAfterBytes) {
          finish('aborted by the agent');
          outgoing.destroy();
        }
      });
      incoming.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
      incoming.on('end', () => finish(incoming.complete ? 'end' : 'incomplete'));
    });
    outgoing.end(body);
  });
}

async function failureCounts(): Promise<Record<string, number>> {
  const text = await (await fetch(`${proxy.url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^barometer_proxy_upstream_failures_total\{reason="(\w+)"\} (\d+)$/gm))
    counts[match[1]!] = Number(match[2]);
  return counts;
}

/** Runs `script` `REPEATS` times, five at a time; each answer with the provider's exchange that served it. */
async function repeat(script: string): Promise<Array<{ answer: Answer; exchange: Exchange }>> {
  const results: Array<{ answer: Answer; exchange: Exchange }> = [];
  for (let start = 0; start < REPEATS; start += 5) {
    const ids = Array.from({ length: Math.min(5, REPEATS - start) }, () => `request-${++requests}`);
    const answers = await Promise.all(ids.map((id) => send(script, { id })));
    answers.forEach((answer, index) => {
      const exchange = provider.exchanges.find((entry) => entry.headers['x-test-id'] === ids[index]);
      if (!exchange) throw new Error(`the provider never saw ${ids[index]}`);
      results.push({ answer, exchange });
    });
  }
  return results;
}

describe('the proxy ends the agent’s answer as the upstream’s ends', () => {
  it.each([
    ['sse-reset', 'reset'],
    ['sse-mid-event-close', 'closed'],
    ['sse-short-body', 'short_body'],
    ['sse-reset-on-closing-connection', 'closed'],
    ['json-reset', 'reset'],
    ['json-mid-chunk-close', 'closed'],
    ['json-short-body', 'short_body'],
  ])(
    '%s: 20 answers out of 20 end with an error within 1 s of the upstream’s failure, counted as %s',
    async (script, reason) => {
      const before = await failureCounts();
      const results = await repeat(script);
      for (const { answer, exchange } of results) {
        // The agent had the provider's status and its first bytes, then an error: never a clean end, never a hang.
        expect(answer.status).toBe(200);
        expect(answer.body.length).toBeGreaterThan(0);
        expect(['ECONNRESET', 'aborted', 'incomplete']).toContain(answer.ended);
        expect(answer.endedAt - (exchange.failedAt ?? Number.NaN)).toBeLessThan(WITHIN_MS);
      }
      const after = await failureCounts();
      expect((after[reason] ?? 0) - (before[reason] ?? 0)).toBe(REPEATS);
    },
  );

  it.each([
    ['sse-silent', 'a streamed answer'],
    ['json-silent', 'a JSON answer'],
  ])(
    '%s: 20 answers out of 20 end within 1 s of the idle timeout when %s goes silent, counted as timeout',
    async (script) => {
      const before = await failureCounts();
      const results = await repeat(script);
      for (const { answer, exchange } of results) {
        expect(answer.status).toBe(200);
        expect(['ECONNRESET', 'aborted', 'incomplete']).toContain(answer.ended);
        const silentFrom = exchange.failedAt ?? Number.NaN;
        // The upstream failed once its silence reached the idle timeout; not before.
        const due = silentFrom + TIMEOUT_SECONDS * 1000;
        expect(answer.endedAt).toBeGreaterThanOrEqual(due - 5);
        expect(answer.endedAt - due).toBeLessThan(WITHIN_MS);
        // The proxy let go of the upstream's connection as well.
        expect(exchange.closedAt).toBeDefined();
      }
      const after = await failureCounts();
      expect((after.timeout ?? 0) - (before.timeout ?? 0)).toBe(REPEATS);
    },
  );

  it('answers 502 BR_ERR_UPSTREAM_UNREACHABLE within 1 s of the headers timeout when no headers come, counted as timeout', async () => {
    const before = await failureCounts();
    const results = await repeat('no-headers');
    for (const { answer, exchange } of results) {
      expect(answer.status).toBe(502);
      expect(answer.ended).toBe('end');
      expect(JSON.parse(answer.body)).toMatchObject({
        code: 'BR_ERR_UPSTREAM_UNREACHABLE',
        reason: 'timeout',
      });
      const due = (exchange.failedAt ?? Number.NaN) + TIMEOUT_SECONDS * 1000;
      expect(answer.endedAt).toBeGreaterThanOrEqual(due - 5);
      expect(answer.endedAt - due).toBeLessThan(WITHIN_MS);
    }
    const after = await failureCounts();
    expect((after.timeout ?? 0) - (before.timeout ?? 0)).toBe(REPEATS);
  });

  it('resets the agent’s connection within 1 s when the upstream resets after its headers, before any body byte', async () => {
    const before = await failureCounts();
    for (const { answer, exchange } of await repeat('headers-then-reset')) {
      expect(answer.status).toBe(200);
      expect(answer.body).toBe('');
      expect(answer.ended).toBe('ECONNRESET');
      expect(answer.endedAt - (exchange.failedAt ?? Number.NaN)).toBeLessThan(WITHIN_MS);
    }
    expect(((await failureCounts()).reset ?? 0) - (before.reset ?? 0)).toBe(REPEATS);
  });

  it('cuts the agent’s answer when the upstream’s bytes stop being HTTP, counted as malformed', async () => {
    const before = await failureCounts();
    const answer = await send('json-bad-chunk');
    expect(answer.status).toBe(200);
    expect(['ECONNRESET', 'aborted']).toContain(answer.ended);
    expect(((await failureCounts()).malformed ?? 0) - (before.malformed ?? 0)).toBe(1);
  });

  it('answers 502 at once to a reset before the headers, counted as reset', async () => {
    const before = await failureCounts();
    const answer = await send('reset-before-headers');
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'BR_ERR_UPSTREAM_UNREACHABLE', reason: 'reset' });
    expect(answer.endedAt - (provider.exchanges.at(-1)?.failedAt ?? Number.NaN)).toBeLessThan(WITHIN_MS);
    expect(((await failureCounts()).reset ?? 0) - (before.reset ?? 0)).toBe(1);
  });

  it('passes a clean answer byte for byte, streamed or JSON, without its hop-by-hop headers, and records it', async () => {
    const before = await failureCounts();
    for (const script of ['sse-clean', 'json-clean']) {
      const answer = await send(script, { session: `whole-${script}` });
      expect(answer.ended).toBe('end');
      expect(answer.status).toBe(200);
      expect(answer.body).toBe(script === 'sse-clean' ? STREAM : JSON_ANSWER);
      expect(answer.headers['content-type']).toBe(
        script === 'sse-clean' ? 'text/event-stream' : 'application/json',
      );
      // Neither side's hop-by-hop headers crossed: the headers each side's Connection named stayed with the proxy.
      const exchange = provider.exchanges.at(-1)!;
      expect(exchange.headers['x-agent-hop']).toBeUndefined();
      expect(answer.headers['x-provider-hop']).toBeUndefined();
      expect(exchange.headers['x-test-script']).toBe(script);
    }
    expect(await failureCounts()).toEqual(before);
    // Whole answers are recorded; the broken ones above never were (their session has no call at all).
    const deadline = Date.now() + 3000;
    let generations = 0;
    while (Date.now() < deadline) {
      const views = await Promise.all(
        ['whole-sse-clean', 'whole-json-clean'].map((id) =>
          proxy.app.barometerMonitor.view(id).then(
            (view) => view.generations,
            () => 0,
          ),
        ),
      );
      generations = views[0]! + views[1]!;
      if (generations === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(generations).toBe(2);
    await expect(proxy.app.barometerMonitor.view('broken')).rejects.toThrow();
  });

  it('aborts the upstream request when the agent goes away mid-answer, and counts no upstream failure', async () => {
    const before = await failureCounts();
    const answer = await send('endless', { abortAfterBytes: 100 });
    expect(answer.ended).toBe('aborted by the agent');
    const exchange = provider.exchanges.at(-1)!;
    const deadline = performance.now() + WITHIN_MS;
    while (exchange.closedAt === undefined && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(exchange.closedAt).toBeDefined();
    expect(await failureCounts()).toEqual(before);
  });

  it('answers 502 when nothing listens upstream, counted as unreachable', async () => {
    const closed = await startMisbehavingProvider(() => []);
    const url = closed.url;
    await closed.close();
    const server = await startServer({
      port: 0,
      logLevel: 'silent',
      dashboard: false,
      dataDir: join(root, 'unreachable'),
      proxy: { anthropicUpstream: url },
    });
    try {
      const answer = await fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(answer.status).toBe(502);
      expect(await answer.json()).toMatchObject({
        code: 'BR_ERR_UPSTREAM_UNREACHABLE',
        reason: 'unreachable',
      });
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toMatch(/^barometer_proxy_upstream_failures_total\{reason="unreachable"\} 1$/m);
    } finally {
      await server.close();
    }
  });
});
