import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../server/app.js';
import { writeServiceFile } from '../store/service-file.js';
import { exitOf, spawnCli } from '../test-helpers/spawn-cli.js';
import { BAROMETER_VERSION } from '../version.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function payload(name: string): string {
  const event = JSON.parse(readFileSync(`${ROOT}examples/hooks/${name}.json`, 'utf8'));
  event.transcript_path = `${ROOT}${event.transcript_path}`;
  return JSON.stringify(event);
}

async function hook(input: string, args: string[], env: Record<string, string> = {}) {
  const child = spawnCli(['hook', ...args], env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  return { code: await exitOf(child), stdout, stderr };
}

let app: FastifyInstance;
let url: string;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'barometer-hook-cli-'));
  app = await buildApp({ logLevel: 'silent', dataDir });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('barometer hook', () => {
  it('prints the agent JSON with the reminder on UserPromptSubmit (service named by BAROMETER_URL)', async () => {
    const result = await hook(payload('claude-code-user-prompt-submit'), [], { BAROMETER_URL: url });
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    expect(output.hookSpecificOutput.additionalContext).toMatch(/^Context health: caution/);
  });

  it('without --server or BAROMETER_URL, tells the service the data folder’s service file names (wrap’s, on a port of its own)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'barometer-hook-folder-'));
    try {
      writeServiceFile(folder, {
        url,
        pid: process.pid,
        version: BAROMETER_VERSION,
        started: new Date().toISOString(),
        proxy: null,
      });
      const result = await hook(payload('claude-code-user-prompt-submit'), [], {
        BAROMETER_DATA_DIR: folder,
      });
      expect(result.stderr).toBe('');
      expect(JSON.parse(result.stdout).hookSpecificOutput.additionalContext).toMatch(
        /^Context health: caution/,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('exits 0 with nothing on stdout and one line on stderr when no service answers, so the agent carries on', async () => {
    const result = await hook(payload('claude-code-user-prompt-submit'), ['--server', 'http://127.0.0.1:9']);
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'barometer hook: no barometer service answers at http://127.0.0.1:9 (given by --server; connect ECONNREFUSED 127.0.0.1:9): ' +
        'start one with `barometer serve`, or point --server or BAROMETER_URL at yours; this event was not recorded\n',
    });
    const fromEnvironment = await hook(payload('claude-code-post-tool-use'), [], {
      BAROMETER_URL: 'http://127.0.0.1:9',
    });
    expect(fromEnvironment).toMatchObject({ code: 0, stdout: '' });
    expect(fromEnvironment.stderr).toContain('at http://127.0.0.1:9 (from BAROMETER_URL;');
  });

  it('exits 1, never 2 (which blocks the agent), for a malformed event or a bad flag', async () => {
    const malformed = await hook('{"hook_event_name":"PostToolUse"}', ['--server', url]);
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain('session_id');
    const badFlag = await hook(payload('claude-code-post-tool-use'), ['--timeout', 'soon']);
    expect(badFlag.code).toBe(1);
    const unknownFlag = await hook(payload('claude-code-post-tool-use'), ['--bogus']);
    expect(unknownFlag.code).toBe(1);
    const badUrl = await hook(payload('claude-code-post-tool-use'), ['--server', 'localhost:8797']);
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toContain('--server must be the http:// or https:// URL of a barometer service');
  });
});
