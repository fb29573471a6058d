import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../errors/error-catalogue.js';
import { memoryIo } from '../test-helpers/memory-io.js';
import { spawnCli } from '../test-helpers/spawn-cli.js';
import { run } from './program.js';

let root: string;
const children: Array<ReturnType<typeof spawnCli>> = [];
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'barometer-window-policy-flag-'));
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Starts `barometer proxy` and resolves with its listening line and the window policy its service file names. */
async function proxyWith(
  name: string,
  args: string[],
  env: Record<string, string>,
  config?: unknown,
): Promise<{ line: string; recorded: unknown }> {
  const folder = join(root, name);
  const dataDir = join(folder, 'data');
  const configArgs: string[] = [];
  if (config !== undefined) {
    const path = join(root, `${name}.config.json`);
    writeFileSync(path, JSON.stringify(config));
    configArgs.push('--config', path);
  }
  const child = spawnCli(['proxy', '--port', '0', '--data-dir', dataDir, ...configArgs, ...args], env);
  children.push(child);
  let output = '';
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /^barometer proxy listening on .*$/m.exec(output);
      if (found) resolve(found[0]);
    });
    child.on('exit', (code) => reject(new Error(`proxy exited ${code}: ${output}`)));
  });
  const service = JSON.parse(readFileSync(join(dataDir, 'service.json'), 'utf8')) as {
    proxy: { windowPolicy?: unknown };
  };
  child.kill('SIGTERM');
  return { line, recorded: service.proxy.windowPolicy };
}

describe('barometer proxy --window-policy, BAROMETER_WINDOW_POLICY, window_policy', () => {
  it('exits 2 naming the flag, the value and the levers allowed', async () => {
    const terminal = memoryIo();
    const code = await run(['proxy', '--port', '0', '--window-policy', 'thinking,sleep'], {
      io: terminal.io,
    });
    expect(code).toBe(EXIT_CODES.invalidInput);
    expect(terminal.stderr).toContain(
      '--window-policy must be off or window levers separated by commas, each once, from thinking, hold; got "thinking,sleep"',
    );
  });

  it('is off by default; the config file sets it, the variable wins over the file, the flag over both', async () => {
    expect((await proxyWith('default', [], {})).recorded).toEqual([]);
    const fromFile = await proxyWith('file', [], {}, { window_policy: ['thinking'] });
    expect(fromFile.recorded).toEqual(['thinking']);
    expect(fromFile.line).toContain('(act, window policy thinking;');
    const fromVariable = await proxyWith(
      'variable',
      [],
      { BAROMETER_WINDOW_POLICY: 'hold' },
      { window_policy: ['thinking'] },
    );
    expect(fromVariable.recorded).toEqual(['hold']);
    const fromFlag = await proxyWith('flag', ['--window-policy', 'thinking,hold'], {
      BAROMETER_WINDOW_POLICY: 'off',
    });
    expect(fromFlag.recorded).toEqual(['thinking', 'hold']);
  }, 60_000);
});
