import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PressureReport } from '../pressure/types.js';
import type { SessionSummary, UsageAnswer } from '../session/session-schemas.js';
import { agentHistory, callTool, SEED_SAMPLE, TOOL_NAMES, toolOutput } from '../test-helpers/mcp-fixtures.js';
import { exitOf, spawnCli, startServeProcess } from '../test-helpers/spawn-cli.js';

const CLI = fileURLToPath(new URL('./main.ts', import.meta.url));

let dataDir: string;
const clients: Client[] = [];
const children: Array<ReturnType<typeof spawnCli>> = [];
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'barometer-mcp-cli-'));
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

/** `barometer mcp` spawned as an MCP client spawns it, connected with the SDK's own stdio client. */
async function connectCli(args: string[] = []): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', CLI, 'mcp', '--data-dir', dataDir, ...args],
    env: { ...(process.env as Record<string, string>), NO_COLOR: '1' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'barometer-cli-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => stderr };
}

describe('barometer mcp (stdio)', () => {
  it('serves the tools to the SDK client: a good call, a bad one naming the field, a session round trip', async () => {
    const { client, stderr } = await connectCli();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);

    const report = await callTool<PressureReport>(client, 'evaluate_pressure', SEED_SAMPLE);
    expect(report.structured.pressure).toMatchObject({ level: 'HIGH', sessionViability: 36 });
    const bad = await callTool(client, 'evaluate_pressure', { contextDriftPercent: 'high' });
    expect(bad).toMatchObject({ isError: true, structured: { code: 'BR_ERR_INVALID_PARAM' } });
    expect(bad.structured.issues?.[0]?.field).toBe('contextDriftPercent');

    await callTool(client, 'create_session', { id: 'cli-1', model: 'claude-opus-4-6', agent: 'claude-code' });
    const usage = await callTool<UsageAnswer>(client, 'report_usage', {
      sessionId: 'cli-1',
      usage: { promptTokens: 160_000, completionTokens: 500 },
    });
    expect(usage.structured).toMatchObject({ generation: 1, health: { level: 'critical' } });
    expect(stderr()).toContain('barometer MCP server on stdio');
  });

  it('keeps sessions and archives in --data-dir: a second process finds the session and follows a tombstone', async () => {
    const first = await connectCli();
    await callTool(first.client, 'create_session', { id: 'kept', model: 'gpt-5' });
    await callTool(first.client, 'report_usage', { sessionId: 'kept', usage: { promptTokens: 42_000 } });
    const evicted = await callTool<{ messages: Array<{ content: unknown; tool_call_id?: string }> }>(
      first.client,
      'evict_task',
      {
        messages: agentHistory(),
        tasks: [{ id: 'tests', summary: 'Fixed rounding: totals round once per invoice.' }],
        sessionId: 'kept',
      },
    );
    const tombstone = String(
      evicted.structured.messages.find((message) => message.tool_call_id === 'call_1')!.content,
    );
    expect(tombstone).toContain(join(dataDir, 'archives', 'kept', 'tests.log#call_1:result'));
    // The client closes stdin; the server exits, its sessions in the data dir's database.
    await first.client.close();
    expect(await readdir(dataDir)).toContain('barometer.db');

    const second = await connectCli();
    const status = await callTool<{ session: SessionSummary }>(second.client, 'context_status', {
      sessionId: 'kept',
    });
    expect(status.structured.session).toMatchObject({ id: 'kept', generations: 1 });
    expect(status.structured.session.verdict?.reasons.length).toBeGreaterThan(0);
    const back = await callTool(second.client, 'read_archive', { location: tombstone });
    expect(back.text).toBe(toolOutput(1));
  });

  it('serves its tools on sessions of its own when a service holds the data folder, naming that service’s /mcp', async () => {
    const service = await startServeProcess(['--data-dir', dataDir]);
    children.push(service.child);
    const { client, stderr } = await connectCli();
    const created = await callTool<SessionSummary>(client, 'create_session', {
      id: 'beside',
      model: 'claude-opus-4-6',
    });
    expect(created.isError).toBeFalsy();
    expect(stderr()).toContain(
      `the data folder is in use by the barometer service at ${service.url}: this MCP server keeps its sessions in memory; connect the client to ${service.url}/mcp to share that service's sessions`,
    );
  });

  it('loads barometer.config.* as serve does (--config)', async () => {
    const config = join(dataDir, 'barometer.config.json');
    await writeFile(config, JSON.stringify({ models: { 'gpt-5': { context_length: 50_000 } } }));
    const { client } = await connectCli(['--config', config]);
    const created = await callTool<{ session: SessionSummary }>(client, 'create_session', { model: 'gpt-5' });
    expect(created.structured.session.profile.contextWindow).toBe(50_000);
  });

  it('writes only protocol messages to stdout; logs go to stderr; it exits 0 when stdin closes', async () => {
    const child = spawnCli(['mcp', '--data-dir', dataDir, '--log-level', 'debug']);
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const send = (message: Record<string, unknown>) =>
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    send({ method: 'notifications/initialized' });
    send({
      id: 2,
      method: 'tools/call',
      params: { name: 'evaluate_pressure', arguments: { memoryUsedPercent: 101 } },
    });
    send({ id: 3, method: 'tools/call', params: { name: 'context_status', arguments: {} } });
    await waitFor(
      () => stdout.split('\n').filter(Boolean).length >= 3,
      () => `stdout:\n${stdout}\nstderr:\n${stderr}`,
    );
    child.stdin.end();
    expect(await exitOf(child)).toBe(0);

    const lines = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(lines.every((line) => line.jsonrpc === '2.0')).toBe(true);
    expect(lines.map((line) => line.id)).toEqual([1, 2, 3]);
    expect(lines[1].result).toMatchObject({
      isError: true,
      structuredContent: { code: 'BR_ERR_INVALID_PARAM' },
    });
    expect(stderr).toContain('barometer MCP server on stdio');
    expect(stderr).toContain('stdin closed');
  });

  it('answers a message over 10 MiB with a JSON-RPC error naming its id, and keeps serving (issue 40)', async () => {
    const child = spawnCli(['mcp', '--data-dir', dataDir, '--log-level', 'warn']);
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const send = (message: Record<string, unknown>) =>
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    send({ method: 'notifications/initialized' });
    // As the SDK's client writes a request: method and params first, the id last; 11 MiB of arguments.
    child.stdin.write(
      `${JSON.stringify({ method: 'tools/call', params: { name: 'context_status', arguments: { pad: 'x'.repeat(11 * 1024 * 1024) } }, jsonrpc: '2.0', id: 2 })}\n`,
    );
    send({ id: 3, method: 'tools/list' });
    await waitFor(
      () => stdout.split('\n').filter(Boolean).length >= 3,
      () => `stdout:\n${stdout.slice(0, 2000)}\nstderr:\n${stderr}`,
    );
    const lines = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.id)).toEqual([1, 2, 3]);
    expect(lines[1].error).toMatchObject({ code: -32600, data: { code: 'BR_ERR_BODY_TOO_LARGE' } });
    expect(lines[2].result.tools.length).toBeGreaterThan(0);
    expect(child.exitCode).toBeNull();
    child.stdin.end();
    expect(await exitOf(child)).toBe(0);
  });

  it('exits 2 naming a bad flag', async () => {
    const child = spawnCli(['mcp', '--log-level', 'loud']);
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(child)).toBe(2);
    expect(stderr).toContain('--log-level must be one of');
  });
});

async function waitFor(done: () => boolean, describe: () => string, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out; ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
