import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exitOf, spawnCli, startServeProcess } from '../test-helpers/spawn-cli.js';

const root = mkdtempSync(join(tmpdir(), 'barometer-wrap-service-'));
const children: Array<ReturnType<typeof spawnCli>> = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** `barometer wrap …` with no agent on PATH: each case here is refused before the agent would start. */
async function wrap(args: string[]) {
  const child = spawnCli(['wrap', ...args, 'claude', '-p', 'hi'], { PATH: '/nonexistent' });
  children.push(child);
  child.stdin.end();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { code: await exitOf(child), stderr };
}

/** A service started as `barometer serve` or `barometer proxy` would be, on a data folder of its own. */
async function service(command: 'serve' | 'proxy', dataDir: string, args: string[] = []) {
  if (command === 'serve') {
    const started = await startServeProcess(['--data-dir', dataDir, ...args]);
    children.push(started.child);
    return started.url;
  }
  const child = spawnCli([command, '--port', '0', '--data-dir', dataDir, ...args]);
  children.push(child);
  return new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+?) /.exec(output);
      if (match) resolve(match[1] as string);
    });
    child.on('exit', (code) => reject(new Error(`${command} exited ${code}: ${output}`)));
  });
}

describe('barometer wrap and a service that is already there', () => {
  it('refuses, saying why and what to do, when the data folder’s service has no proxy routes (barometer serve)', async () => {
    const dataDir = join(root, 'served');
    const url = await service('serve', dataDir);
    const run = await wrap(['--data-dir', dataDir]);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain(`barometer: the barometer service of ${dataDir} at ${url} (process `);
    expect(run.stderr).toContain(
      `cannot take this agent: it was started without the proxy routes (barometer serve). Stop it with \`barometer stop --data-dir '${dataDir}'\``,
    );
  }, 120_000);

  it('refuses a running proxy that forwards elsewhere than the --anthropic-upstream asked for, naming both', async () => {
    const dataDir = join(root, 'proxied');
    await service('proxy', dataDir, ['--anthropic-upstream', 'http://127.0.0.1:1']);
    const run = await wrap(['--data-dir', dataDir, '--anthropic-upstream', 'http://127.0.0.1:2/']);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain(
      'it forwards Anthropic requests to http://127.0.0.1:1, not to http://127.0.0.1:2 (--anthropic-upstream)',
    );
  }, 120_000);

  it('refuses a running proxy whose window policy is not the --window-policy asked for, naming both', async () => {
    const dataDir = join(root, 'window-policy');
    await service('proxy', dataDir, ['--window-policy', 'hold']);
    const run = await wrap(['--data-dir', dataDir, '--window-policy', 'thinking,hold']);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('its window policy is hold, not hold,thinking (--window-policy)');
    // The same levers in another order are the same policy: that service takes the agent (which is not on PATH).
    const same = await wrap(['--data-dir', dataDir, '--window-policy', 'hold']);
    expect(same.stderr).not.toContain('--window-policy');
  }, 120_000);

  it('refuses a plain barometer serve on its port instead of starting a second dashboard silently', async () => {
    const url = await service('serve', join(root, 'elsewhere'));
    const port = new URL(url).port;
    const run = await wrap(['--data-dir', join(root, 'mine'), '--port', port]);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain(
      `the barometer service at ${url} was started without the proxy routes (barometer serve): the agent's calls cannot go through it.`,
    );
    expect(run.stderr).toContain('or give wrap --port 0 to start a service of its own');
  }, 120_000);
});
