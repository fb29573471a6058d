import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ProblemSchema } from '../contract/problem.js';
import {
  type ApiRoute,
  type ErrorResponse,
  isSuccessStatus,
  type JsonResponse,
  responseSchema,
  type SuccessResponse,
} from '../http/route-table.js';
import { readTrace } from '../usage/test-helpers/traces.js';
import { buildApp } from './app.js';

/**
 * Every operation's real answers against the schema its route declares (src/contract): each request below is one
 * the route tests make, sent over a socket to a running service, and every answer (each message of an event stream
 * too) must parse with the declared schema. At least one success answer per operation, or the test fails.
 */

const HISTORY = JSON.parse(
  readFileSync(new URL('../../test/fixtures/openai-history.json', import.meta.url), 'utf8'),
);
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

let app: FastifyInstance;
let base: string;
let dataDir: string;
let receiver: Server;
let receiverUrl: string;
/** Operations (`METHOD /url`) whose success answer was checked, and every answer checked. */
const succeeded = new Set<string>();
const checked: string[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'barometer-contract-answers-'));
  // A webhook receiver that fails: the delivery stays pending, with its next attempt due.
  receiver = createServer((_request, response) => response.writeHead(500).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;
  // GET /api/v1/report reads a scratch Claude Code folder holding one recorded session.
  const projects = join(dataDir, 'home', '.claude', 'projects');
  await mkdir(join(projects, 'demo'), { recursive: true });
  await writeFile(
    join(projects, 'demo', 'small-sonnet-session.jsonl'),
    readTrace('claude-code/small-sonnet-session.jsonl'),
  );
  app = await buildApp(
    {
      logLevel: 'silent',
      dataDir,
      dashboard: false,
      rateLimitPerMinute: 0,
      ingestRateLimitPerMinute: 0,
      allowPrivateWebhooks: true,
      webhookRetryDelaysMs: [600_000],
      eventFlushMs: 10,
    },
    { reportRoots: [{ agent: 'claude-code', directory: projects }] },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const listening = app.server.address();
  base = `http://127.0.0.1:${typeof listening === 'object' && listening ? listening.port : 0}`;
});

afterAll(async () => {
  await app.close();
  await new Promise((resolve) => receiver.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
});

function routeOf(key: string): ApiRoute {
  const route = app.barometerRoutes.find((candidate) => `${candidate.method} ${candidate.url}` === key);
  if (!route) throw new Error(`no route ${key}`);
  return route;
}

/** Every field named as a time (`at`, `timestamp`, `…At`) holds an ISO 8601 string (or null): never epoch ms. */
function timesOf(value: unknown, path: string, found: Array<[string, unknown]>): void {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) timesOf(item, `${path}[${index}]`, found);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, field] of Object.entries(value)) {
      if (key === 'at' || key === 'timestamp' || /[a-z]At$/.test(key)) found.push([`${path}.${key}`, field]);
      timesOf(field, `${path}.${key}`, found);
    }
  }
}

function expectIsoTimes(value: unknown, where: string): void {
  const found: Array<[string, unknown]> = [];
  timesOf(value, '', found);
  for (const [path, time] of found) {
    if (time === null) continue;
    expect(
      typeof time === 'string' && ISO_TIME.test(time),
      `${where}: ${path} = ${JSON.stringify(time)}`,
    ).toBe(true);
  }
}

function expectSchema(schema: z.ZodType, value: unknown, where: string): void {
  const parsed = schema.safeParse(value);
  expect(
    parsed.success,
    `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 5))}`,
  ).toBe(true);
}

/**
 * Sends a request to the operation `key` and checks the answer against the route's declared response: its
 * status is documented, a JSON body parses with the declared schema (an error's with the Problem schema unless the
 * route names another), a body of another type has the declared content type.
 */
async function call(
  key: string,
  path: string,
  init: { method?: string; json?: unknown; text?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: unknown; text: string }> {
  const route = routeOf(key);
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  } else if (init.text !== undefined) {
    headers['content-type'] ??= 'application/x-ndjson';
    body = init.text;
  }
  const response = await fetch(`${base}${path}`, { method: init.method ?? route.method, headers, body });
  const text = await response.text();
  const status = String(response.status);
  const where = `${key} ${status}`;
  // Every /api/v1 route may answer 400 with the Problem body: /openapi.json documents it for each.
  const declared =
    (route.responses[status as `2${string}`] as SuccessResponse | ErrorResponse | undefined) ??
    (status === '400' && route.url.startsWith('/api/v1/') ? { description: 'invalid' } : undefined);
  expect(declared, `${where} is not documented: ${text.slice(0, 300)}`).toBeDefined();
  const contentType = response.headers.get('content-type') ?? '';
  let parsed: unknown;
  if (declared && 'empty' in declared) expect(text, `${where} has no body`).toBe('');
  else if (contentType.startsWith('application/json')) {
    parsed = JSON.parse(text);
    const schema = responseSchema(declared!) ?? (isSuccessStatus(status) ? undefined : ProblemSchema);
    expect(schema, `${where} answers JSON without a schema`).toBeDefined();
    expectSchema(schema!, parsed, where);
    if (key !== 'GET /openapi.json') expectIsoTimes(parsed, where);
  } else if (declared && 'contentType' in declared) {
    expect(contentType.startsWith(declared.contentType), `${where}: ${contentType}`).toBe(true);
  } else if (declared && 'alternativeContentType' in declared) {
    const alternative = (declared as JsonResponse).alternativeContentType ?? 'application/json';
    expect(contentType.startsWith(alternative), `${where}: ${contentType}`).toBe(true);
  } else throw new Error(`${where}: a ${contentType} answer where JSON is declared`);
  checked.push(where);
  if (isSuccessStatus(status)) succeeded.add(key);
  return { status: response.status, body: parsed, text };
}

/** Opens an event stream and checks each message against the schema its route declares for its event name. */
async function stream(
  key: string,
  path: string,
  until: (events: string[]) => boolean,
  during?: () => Promise<void>,
) {
  const route = routeOf(key);
  const declared = route.responses['200'] as SuccessResponse;
  const messages = 'messages' in declared ? (declared.messages ?? {}) : {};
  const controller = new AbortController();
  const response = await fetch(`${base}${path}`, { signal: controller.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: string[] = [];
  let text = '';
  let started = false;
  try {
    while (!until(events)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`${key}: the stream ended after ${events.join(', ')}`);
      text += decoder.decode(value, { stream: true });
      let end = text.indexOf('\n\n');
      while (end !== -1) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        end = text.indexOf('\n\n');
        const event = /^event: (.+)$/m.exec(block)?.[1];
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (event === undefined || data === undefined) continue;
        const schema = messages[event] ?? messages['<event type>'];
        expect(schema, `${key}: message ${event} is not declared`).toBeDefined();
        const value = JSON.parse(data);
        expectSchema(schema!, value, `${key} message ${event}`);
        expectIsoTimes(value, `${key} message ${event}`);
        events.push(event);
      }
      if (!started && events.length > 0 && during) {
        started = true;
        await during();
      }
    }
  } finally {
    controller.abort();
  }
  succeeded.add(key);
  checked.push(`${key} 200 (${events.join(', ')})`);
  return events;
}

describe('every answer matches the schema its route declares (src/contract)', () => {
  it('the service routes: liveness, metrics, this document', async () => {
    await call('GET /healthz', '/healthz');
    await call('GET /metrics', '/metrics');
    await call('GET /openapi.json', '/openapi.json');
  });

  it('the regulator, its refusals included', async () => {
    await call('GET /api/v1/pressure', '/api/v1/pressure?memoryUsedPercent=72&tokenBurnRatePerMin=55');
    await call('POST /api/v1/pressure', '/api/v1/pressure', { json: { memoryUsedPercent: 72 } });
    expect(
      (await call('POST /api/v1/pressure', '/api/v1/pressure', { json: { memoryUsedPercent: 700 } })).status,
    ).toBe(400);
  });

  it('sessions: create, list, read, usage (with events), compactions, streams, samples, delete', async () => {
    await call('POST /api/v1/sessions', '/api/v1/sessions', {
      json: {
        id: 'contract',
        model: 'custom',
        contextWindow: 200_000,
        tokenBudget: 1_000_000,
        tpmLimit: 400_000,
      },
    });
    expect(
      (await call('POST /api/v1/sessions', '/api/v1/sessions', { json: { id: 'contract', model: 'custom' } }))
        .status,
    ).toBe(409);
    const events = await stream(
      'GET /api/v1/sessions/:id/events',
      '/api/v1/sessions/contract/events',
      (seen) => seen.includes('update') && seen.includes('level_changed'),
      async () => {
        const answer = await call('POST /api/v1/sessions/:id/usage', '/api/v1/sessions/contract/usage', {
          json: { promptTokens: 150_000, completionTokens: 900 },
        });
        expect((answer.body as { events: unknown[] }).events.length).toBeGreaterThan(0);
      },
    );
    expect(events[0]).toBe('session');
    await call('POST /api/v1/sessions/:id/usage', '/api/v1/sessions/contract/usage', {
      json: { format: 'anthropic', response: { usage: { input_tokens: 190_000, output_tokens: 500 } } },
    });
    await call('POST /api/v1/sessions/:id/compactions', '/api/v1/sessions/contract/compactions', {
      json: { before: 190_000, after: 40_000, trigger: 'auto', timestamp: Date.now() },
    });
    await call('POST /api/v1/sessions/:id/compactions', '/api/v1/sessions/contract/compactions', {
      json: {
        before: 40_000,
        after: 30_000,
        trigger: 'barometer-proxy',
        evicted: {
          items: 2,
          tokensFreed: 10_000,
          subTask: 'subtask-1',
          archive: { sessionId: 'contract', taskId: 'subtask-1' },
        },
      },
    });
    await call('POST /api/v1/sessions', '/api/v1/sessions', {
      json: { id: 'contract-child', model: 'claude-opus-4-6', parentId: 'contract', title: 'Look it up' },
    });
    await call('GET /api/v1/sessions/:id/sub-agents', '/api/v1/sessions/contract/sub-agents');
    await call('GET /api/v1/sessions/:id', '/api/v1/sessions/contract');
    await call('GET /api/v1/sessions', '/api/v1/sessions');
    expect((await call('GET /api/v1/sessions/:id', '/api/v1/sessions/nobody')).status).toBe(404);
    const all = await stream(
      'GET /api/v1/events',
      '/api/v1/events',
      (seen) => seen.includes('session'),
      async () => {
        await call('POST /api/v1/sessions/:id/usage', '/api/v1/sessions/contract/usage', {
          json: { promptTokens: 60_000 },
        });
      },
    );
    expect(all[0]).toBe('sessions');
    await call('GET /api/v1/samples', '/api/v1/samples');
    await call('POST /api/v1/samples/:name/load', '/api/v1/samples/claude-code-small/load');
    await call('DELETE /api/v1/sessions/:id', '/api/v1/sessions/contract');
  });

  it('replay, with and without the what-if', async () => {
    await call('POST /api/v1/replay', '/api/v1/replay', {
      text: readTrace('codex/small-codex-session.jsonl'),
    });
    const whatIf = await call('POST /api/v1/replay', '/api/v1/replay?whatIf=true', {
      text: readTrace('claude-code/small-sonnet-session.jsonl'),
    });
    expect((whatIf.body as { whatIf?: unknown }).whatIf).toBeDefined();
  });

  it('report, by day and by session', async () => {
    const daily = await call('GET /api/v1/report', '/api/v1/report?view=daily&whatIf=false');
    expect((daily.body as { rows: unknown[] }).rows).toHaveLength(1);
    await call('GET /api/v1/report', '/api/v1/report');
  });

  it('context discipline: hot state check and enforce (pass, reference, reject), diff check, artifacts', async () => {
    await call('POST /api/v1/hot-state/check', '/api/v1/hot-state/check', {
      json: {
        hotState: { session_id: 's1', objective: 'fix the build' },
        prompt: { systemPrompt: 'be brief' },
      },
    });
    await call('POST /api/v1/hot-state/enforce', '/api/v1/hot-state/enforce', {
      json: { hotState: { session_id: 's1', objective: 'fix the build' } },
    });
    const accepted = Array.from(
      { length: 300 },
      (_, index) => `decision ${index}: keep module ${index} pure`,
    );
    const reference = await call('POST /api/v1/hot-state/enforce', '/api/v1/hot-state/enforce', {
      json: {
        hotState: { session_id: 's1', accepted_decisions: accepted },
        limits: { maxHotStateTokens: 400 },
      },
    });
    const decision = reference.body as {
      type: string;
      state: { artifact_index: Array<{ artifact_id: string }> };
    };
    expect(decision.type).toBe('reference');
    const rejected = await call('POST /api/v1/hot-state/enforce', '/api/v1/hot-state/enforce', {
      json: {
        hotState: { session_id: 's1', accepted_decisions: accepted },
        limits: { maxHotStateTokens: 400 },
        reference: false,
      },
    });
    expect((rejected.body as { type: string }).type).toBe('reject');
    await call(
      'GET /api/v1/artifacts/:id',
      `/api/v1/artifacts/${decision.state.artifact_index.at(-1)!.artifact_id}`,
    );
    await call('POST /api/v1/diff/check', '/api/v1/diff/check', {
      json: { output: '--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+b\n', taskType: 'code-modification' },
    });
    await call('POST /api/v1/diff/check', '/api/v1/diff/check', {
      json: { output: `\`\`\`ts\n${'const a = 1;\n'.repeat(60)}\`\`\``, taskType: 'code-modification' },
    });
  });

  it('compaction and archives: recap, eviction, the archive as records and one item as text', async () => {
    await call('POST /api/v1/compact', '/api/v1/compact', {
      json: { messages: HISTORY, sessionId: 'run-1', keepTurns: 2 },
    });
    const tagged = HISTORY.map((message: { role: string; tool_call_id?: string }) =>
      message.role === 'tool'
        ? { ...message, task_id: message.tool_call_id === 'call_0' ? 'fix-1' : 'other' }
        : message,
    );
    await call('POST /api/v1/compact', '/api/v1/compact', {
      json: {
        messages: tagged,
        tasks: [{ id: 'fix-1', summary: 'Found the per-line rounding in invoice.ts' }],
        sessionId: 'run-2',
      },
    });
    expect(
      (
        await call('POST /api/v1/compact', '/api/v1/compact', {
          json: { messages: HISTORY.slice(0, 3), sessionId: 'tiny' },
        })
      ).status,
    ).toBe(422);
    await call('GET /api/v1/archives/:session/:task', '/api/v1/archives/run-1/compaction-1');
    await call('GET /api/v1/archives/:session/:task', '/api/v1/archives/run-2/fix-1?item=call_0:result');
    expect((await call('GET /api/v1/archives/:session/:task', '/api/v1/archives/run-9/none')).status).toBe(
      404,
    );
  });

  it('webhooks: register, list, a pending delivery with its next attempt, delete', async () => {
    const registered = await call('POST /api/v1/webhooks', '/api/v1/webhooks', {
      json: { url: receiverUrl, events: ['compaction'] },
    });
    const id = (registered.body as { id: string }).id;
    await call('GET /api/v1/webhooks', '/api/v1/webhooks');
    await call('POST /api/v1/sessions', '/api/v1/sessions', { json: { id: 'hooked', model: 'custom' } });
    await call('POST /api/v1/sessions/:id/compactions', '/api/v1/sessions/hooked/compactions', {
      json: { before: 1000, after: 100 },
    });
    let deliveries: Array<{ attempts: unknown[]; nextAttemptAt: string | null }> = [];
    for (let round = 0; round < 100 && !deliveries[0]?.attempts.length; round++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      deliveries = (
        (await call('GET /api/v1/webhooks/:id/deliveries', `/api/v1/webhooks/${id}/deliveries`)).body as {
          deliveries: typeof deliveries;
        }
      ).deliveries;
    }
    // Failed once, retried in ten minutes: the next attempt's time is ISO 8601, as every time in an answer.
    expect(deliveries[0]?.attempts.length).toBe(1);
    expect(deliveries[0]?.nextAttemptAt).toMatch(ISO_TIME);
    await call('DELETE /api/v1/webhooks/:id', `/api/v1/webhooks/${id}`);
  });

  it('pools: create, list, read, reserve (granted and refused), settle, release, delete', async () => {
    await call('POST /api/v1/pools', '/api/v1/pools', {
      json: { id: 'team', tokenBudget: 100_000, tokensPerMinute: 50_000 },
    });
    await call('GET /api/v1/pools', '/api/v1/pools');
    await call('GET /api/v1/pools/:id', '/api/v1/pools/team');
    const first = await call('POST /api/v1/pools/:id/reservations', '/api/v1/pools/team/reservations', {
      json: { agentId: 'a1', tokens: 10_000 },
    });
    const second = await call('POST /api/v1/pools/:id/reservations', '/api/v1/pools/team/reservations', {
      json: { agentId: 'a1', tokens: 5_000 },
    });
    const refused = await call('POST /api/v1/pools/:id/reservations', '/api/v1/pools/team/reservations', {
      json: { agentId: 'a2', tokens: 90_000, priority: 'low' },
    });
    expect(refused.status).toBe(429);
    const rid = (first.body as { reservationId: string }).reservationId;
    await call(
      'POST /api/v1/pools/:id/reservations/:rid/settle',
      `/api/v1/pools/team/reservations/${rid}/settle`,
      {
        json: { actualTokens: 8_000 },
      },
    );
    const other = (second.body as { reservationId: string }).reservationId;
    await call('DELETE /api/v1/pools/:id/reservations/:rid', `/api/v1/pools/team/reservations/${other}`);
    await call('DELETE /api/v1/pools/:id', '/api/v1/pools/team');
  });

  it('/mcp: a JSON-RPC answer, an accepted notification, and 405 where a stateless server serves nothing', async () => {
    const headers = { accept: 'application/json, text/event-stream' };
    await call('POST /mcp', '/mcp', {
      headers,
      json: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'contract', version: '0' },
        },
      },
    });
    await call('POST /mcp', '/mcp', {
      headers,
      json: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
    const tools = await call('POST /mcp', '/mcp', {
      headers,
      json: {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'evaluate_pressure',
          arguments: { memoryUsedPercent: 40, tokenBurnRatePerMin: 30, contextDriftPercent: 10 },
        },
      },
    });
    expect((tools.body as { result: { structuredContent: unknown } }).result.structuredContent).toBeDefined();
  });

  it('covered every operation with a success answer (the unserved ones with their refusal)', async () => {
    const headers = { accept: 'application/json, text/event-stream' };
    for (const method of ['GET', 'DELETE'] as const) {
      expect((await call(`${method} /mcp`, '/mcp', { headers })).status).toBe(405);
    }
    const expected = app.barometerRoutes
      .filter((route) => route.unserved === undefined)
      .map((route) => `${route.method} ${route.url}`);
    expect([...succeeded].sort()).toEqual(expected.sort());
    expect(checked.length).toBeGreaterThan(expected.length);
  });
});
