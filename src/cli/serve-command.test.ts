import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../errors/error-catalogue.js';
import { occupiedPort } from '../test-helpers/occupied-port.js';
import { exitOf, spawnCli, startServeProcess } from '../test-helpers/spawn-cli.js';

const exec = promisify(execFile);
const children: Array<ReturnType<typeof spawnCli>> = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('barometer serve', () => {
  it('exits 6 naming the busy address and how to choose another port, not a bare EADDRINUSE', async () => {
    const taken = await occupiedPort();
    try {
      const child = spawnCli(['serve', '--port', String(taken.port), '--log-level', 'warn']);
      children.push(child);
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      expect(await exitOf(child)).toBe(ERROR_CATALOGUE.BR_ERR_PORT_IN_USE.exit);
      expect(stderr).toBe(
        `barometer: 127.0.0.1:${taken.port} is already in use: another process (perhaps another barometer) listens there. ` +
          'Choose another port with --port <n> (or BAROMETER_PORT), or --port 0 for any free one\n',
      );
    } finally {
      await taken.close();
    }
  });

  it('prints its URL, answers the seed sample through curl and jq, and stops cleanly on SIGTERM', async () => {
    const server = await startServeProcess();
    children.push(server.child);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The seed's shell integration: curl the endpoint, pick .pressure.level with jq.
    const query =
      'memoryUsedPercent=72&tokenBurnRatePerMin=55&contextDriftPercent=68&sessionAgeSeconds=2700' +
      '&tokenBudgetTotal=100000&tokenBudgetUsed=62000&contextWindowMaxBytes=200000&contextWindowUsedBytes=144000';
    const { stdout } = await exec('sh', [
      '-c',
      `curl -s "${server.url}/api/v1/pressure?${query}" | jq -r '.pressure.level'`,
    ]);
    expect(stdout.trim()).toBe('HIGH');
    const action = await exec('sh', [
      '-c',
      `curl -s -X POST -H 'content-type: application/json' -d '{"memoryUsedPercent":72,"tokenBurnRatePerMin":55,"contextDriftPercent":68,"tokenBudgetUsed":62000}' "${server.url}/api/v1/pressure" | jq -r '.pressure.suggestedAction'`,
    ]);
    expect(action.stdout.trim()).toBe('compress');
    server.child.kill('SIGTERM');
    expect(await exitOf(server.child)).toBe(0);
  });

  it('reads the rate limit from BAROMETER_RATE_LIMIT_PER_MINUTE, and a flag wins over it', async () => {
    const fromEnv = await startServeProcess([], { BAROMETER_RATE_LIMIT_PER_MINUTE: '2' });
    children.push(fromEnv.child);
    const statuses = [];
    for (let index = 0; index < 3; index++)
      statuses.push((await fetch(`${fromEnv.url}/api/v1/pressure`)).status);
    expect(statuses).toEqual([200, 200, 429]);
    fromEnv.child.kill('SIGTERM');
    await exitOf(fromEnv.child);

    const fromFlag = await startServeProcess(['--rate-limit-per-minute', '0'], {
      BAROMETER_RATE_LIMIT_PER_MINUTE: '2',
    });
    children.push(fromFlag.child);
    for (let index = 0; index < 5; index++)
      expect((await fetch(`${fromFlag.url}/api/v1/pressure`)).status).toBe(200);
    fromFlag.child.kill('SIGINT');
    expect(await exitOf(fromFlag.child)).toBe(0);
  });

  it('keeps every session, its timeline and every acknowledged update after kill -9', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'barometer-kill-'));
    try {
      const first = await startServeProcess(['--data-dir', dataDir]);
      children.push(first.child);
      const post = (url: string, path: string, body: unknown) =>
        fetch(`${url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await post(first.url, '/api/v1/sessions', { id: 'k', model: 'claude-opus-4-6' })).status).toBe(
        201,
      );
      // Each answer comes once its update is committed to the database's log: the last one just before the kill.
      for (let index = 1; index <= 34; index++)
        expect(
          (await post(first.url, '/api/v1/sessions/k/usage', { promptTokens: 1000 * index })).status,
        ).toBe(200);
      first.child.kill('SIGKILL');
      expect(await exitOf(first.child)).toBe('SIGKILL');

      const second = await startServeProcess(['--data-dir', dataDir]);
      children.push(second.child);
      const view = (await (await fetch(`${second.url}/api/v1/sessions/k`)).json()) as {
        generations: number;
        timeline: Array<{ index: number; promptTokens: number }>;
      };
      expect(view.generations).toBe(34);
      expect(view.timeline.map((point) => point.index)).toEqual(
        Array.from({ length: view.generations }, (_, index) => index),
      );
      expect(view.timeline.at(-1)?.promptTokens).toBe(1000 * view.generations);
      const next = (await (
        await post(second.url, '/api/v1/sessions/k/usage', { promptTokens: 99_000 })
      ).json()) as {
        generation: number;
      };
      expect(next.generation).toBe(view.generations + 1);
      second.child.kill('SIGTERM');
      expect(await exitOf(second.child)).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('exits 2 naming the flag for a bad webhook retry schedule', async () => {
    const child = spawnCli(['serve', '--webhook-retry-delays', '200,soon']);
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(child)).toBe(2);
    expect(stderr).toContain(
      '--webhook-retry-delays must be whole numbers of milliseconds separated by commas',
    );
  });

  it('lets /mcp accept the hosts of --mcp-allowed-hosts beside localhost, and no others', async () => {
    const server = await startServeProcess(['--mcp-allowed-hosts', 'barometer.internal, agents.lan']);
    children.push(server.child);
    const port = Number(new URL(server.url).port);
    const initialize = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          {
            host: '127.0.0.1',
            port,
            path: '/mcp',
            method: 'POST',
            setHost: false,
            headers: {
              host,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode!);
          },
        );
        request.on('error', reject);
        request.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-06-18',
              capabilities: {},
              clientInfo: { name: 'curl', version: '0' },
            },
          }),
        );
      });
    expect(await initialize(`agents.lan:${port}`)).toBe(200);
    expect(await initialize(`localhost:${port}`)).toBe(200);
    expect(await initialize(`elsewhere.lan:${port}`)).toBe(403);
    server.child.kill('SIGTERM');
    expect(await exitOf(server.child)).toBe(0);

    const bad = spawnCli(['serve', '--mcp-allowed-hosts', 'example.com:80']);
    children.push(bad);
    let stderr = '';
    bad.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(bad)).toBe(2);
    expect(stderr).toContain('mcpAllowedHosts[0]');
  });

  it('exits 2 naming the flag for a bad limit', async () => {
    const child = spawnCli(['serve', '--max-concurrent-per-agent', 'many']);
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(child)).toBe(2);
    expect(stderr).toContain('--max-concurrent-per-agent must be a whole number');
  });
});
