import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PressureReport } from '../pressure/types.js';
import type { SessionSummary, UsageAnswer } from '../session/session-schemas.js';
import { agentHistory, callTool, SEED_SAMPLE, TOOL_NAMES, toolOutput } from '../test-helpers/mcp-fixtures.js';
import { buildApp } from './app.js';
import { type RunningServer, startServer } from './serve.js';

let dataDir: string;
let server: RunningServer;
let port: number;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'barometer-mcp-http-'));
  server = await startServer({ host: '127.0.0.1', port: 0, logLevel: 'silent', dataDir, dashboard: false });
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function connect(): Promise<Client> {
  const client = new Client({ name: 'barometer-http-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
  // Listing the tools arms the SDK client's check of each call's structuredContent against its outputSchema.
  await client.listTools();
  return client;
}

/** A raw request, so that the Host and Origin headers are exactly the test's. */
function raw(
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path: '/mcp', method, headers, setHost: false },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () =>
          resolve({ status: response.statusCode!, headers: response.headers, body: text }),
        );
      },
    );
    request.on('error', reject);
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('/mcp over Streamable HTTP on 127.0.0.1', () => {
  it('lists and calls the tools with the SDK client; bad arguments come back as a tool error naming the field', async () => {
    const client = await connect();
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
      const report = await callTool<PressureReport>(client, 'evaluate_pressure', SEED_SAMPLE);
      expect(report.structured.pressure).toMatchObject({ level: 'HIGH', suggestedAction: 'compress' });
      const bad = await callTool(client, 'evaluate_pressure', { agentProfile: 'lazy' });
      expect(bad).toMatchObject({ isError: true, structured: { code: 'BR_ERR_INVALID_PARAM' } });
      expect(bad.structured.issues?.[0]).toMatchObject({ field: 'agentProfile', value: 'lazy' });
    } finally {
      await client.close();
    }
  });

  it('shares the app’s monitor: a session created over HTTP is seen by MCP, and MCP’s usage by HTTP', async () => {
    const created = await fetch(`${server.url}/api/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'shared-1', model: 'claude-opus-4-6', agent: 'claude-code' }),
    });
    expect(created.status).toBe(201);
    const client = await connect();
    try {
      const usage = await callTool<UsageAnswer>(client, 'report_usage', {
        sessionId: 'shared-1',
        usage: { promptTokens: 120_000, completionTokens: 700 },
      });
      expect(usage.structured.generation).toBe(1);
      const view = (await (await fetch(`${server.url}/api/v1/sessions/shared-1`)).json()) as SessionSummary;
      expect(view).toMatchObject({ generations: 1, verdict: usage.structured.verdict });

      await callTool(client, 'create_session', { id: 'from-mcp', model: 'gpt-5' });
      expect((await fetch(`${server.url}/api/v1/sessions/from-mcp`)).status).toBe(200);
      const status = await callTool<{ session: SessionSummary }>(client, 'context_status', {
        sessionId: 'shared-1',
      });
      expect(status.structured.session.verdict).toEqual(view.verdict);
    } finally {
      await client.close();
    }
  });

  it('names archives by API address, which both read_archive and GET follow to the exact bytes', async () => {
    const client = await connect();
    try {
      const evicted = await callTool<{ messages: Array<{ content: unknown; tool_call_id?: string }> }>(
        client,
        'evict_task',
        {
          messages: agentHistory(),
          tasks: [{ id: 'tests', summary: 'Fixed rounding: totals round once per invoice.' }],
          sessionId: 'http-evict',
        },
      );
      expect(JSON.stringify(evicted.structured)).not.toContain(dataDir);
      const tombstone = String(
        evicted.structured.messages.find((message) => message.tool_call_id === 'call_0')!.content,
      );
      const address = /\/api\/v1\/archives\/\S+/.exec(tombstone)![0];
      expect(address).toBe('/api/v1/archives/http-evict/tests?item=call_0%3Aresult');
      expect(await (await fetch(`${server.url}${address}`)).text()).toBe(toolOutput(0));
      expect((await callTool(client, 'read_archive', { location: tombstone })).text).toBe(toolOutput(0));
    } finally {
      await client.close();
    }
  });

  it('refuses a Host or Origin naming another site with 403 (DNS-rebinding protection), before any tool runs', async () => {
    const evil = await raw('POST', { ...MCP_HEADERS, host: `evil.example:${port}` }, INITIALIZE);
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body)).toMatchObject({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: expect.stringContaining('Host not allowed: evil.example'),
        data: { code: 'BR_ERR_FORBIDDEN_HOST' },
      },
      id: null,
    });
    const otherPort = await raw('POST', { ...MCP_HEADERS, host: '127.0.0.1:1' }, INITIALIZE);
    expect(otherPort.status).toBe(403);
    const origin = await raw(
      'POST',
      { ...MCP_HEADERS, host: `127.0.0.1:${port}`, origin: 'http://evil.example' },
      INITIALIZE,
    );
    expect(origin.status).toBe(403);
    expect(JSON.parse(origin.body).error.message).toContain('Origin not allowed');

    // Checked before the body is read: a refused request gets 403 whatever its body.
    const malformed = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          setHost: false,
          headers: { ...MCP_HEADERS, host: 'evil.example' },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode!);
        },
      );
      request.on('error', reject);
      request.end('{"jsonrpc": ');
    });
    expect(malformed).toBe(403);
    expect((await raw('GET', { host: 'evil.example', accept: 'text/event-stream' })).status).toBe(403);

    // A page on another local port is another origin (a cross-site POST could call the tools).
    const otherLocal = await raw(
      'POST',
      { ...MCP_HEADERS, host: `127.0.0.1:${port}`, origin: 'http://localhost:5173' },
      INITIALIZE,
    );
    expect(otherLocal.status).toBe(403);

    // The localhost names, and the service's own origin (the dashboard), pass.
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      const ok = await raw('POST', { ...MCP_HEADERS, host, origin: `http://${host}` }, INITIALIZE);
      expect(ok.status, host).toBe(200);
      expect(JSON.parse(ok.body).result.serverInfo.name).toBe('barometer');
    }
  });

  it('answers GET and DELETE with 405 (stateless: no stream, no session), and a wrong Accept with 406', async () => {
    const get = await raw('GET', { host: `127.0.0.1:${port}`, accept: 'text/event-stream' });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect((await raw('DELETE', { host: `127.0.0.1:${port}` })).status).toBe(405);
    const wrongAccept = await raw(
      'POST',
      { 'content-type': 'application/json', accept: 'application/json', host: `127.0.0.1:${port}` },
      INITIALIZE,
    );
    expect(wrongAccept.status).toBe(406);
  });

  it('answers an empty batch with 400 and a JSON-RPC Invalid Request, as JSON-RPC 2.0 says (issue 40: it was a 202)', async () => {
    const empty = await raw('POST', { ...MCP_HEADERS, host: `127.0.0.1:${port}` }, []);
    expect(empty.status).toBe(400);
    expect(JSON.parse(empty.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });
});

describe('Host checking on /mcp', () => {
  it('accepts mcpAllowedHosts for a service reached by name (in-process)', async () => {
    const app = await buildApp({
      host: '0.0.0.0',
      mcpAllowedHosts: ['barometer.internal'],
      logLevel: 'silent',
      dataDir,
      dashboard: false,
    });
    try {
      const named = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...MCP_HEADERS, host: 'barometer.internal' },
        payload: INITIALIZE,
      });
      expect(named.statusCode).toBe(200);
      const other = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...MCP_HEADERS, host: '192.168.1.20:8797' },
        payload: INITIALIZE,
      });
      expect(other.statusCode).toBe(403);
    } finally {
      await app.close();
    }
  });

  it('rejects a host name with a port in mcpAllowedHosts, naming the option', async () => {
    await expect(
      buildApp({ mcpAllowedHosts: ['example.com:80'], logLevel: 'silent', dataDir }),
    ).rejects.toThrow(/mcpAllowedHosts\[0\]/);
  });
});
