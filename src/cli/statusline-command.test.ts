import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitOf, spawnCli } from '../test-helpers/spawn-cli.js';

const EXAMPLE = readFileSync(new URL('../../examples/statusline-input.json', import.meta.url), 'utf8');

async function statusline(input: string, env: Record<string, string> = {}, args: string[] = []) {
  const child = spawnCli(['statusline', ...args], env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  return { code: await exitOf(child), stdout, stderr };
}

describe('barometer statusline', () => {
  it('prints one line for the documented sample input, coloured through a pipe unless NO_COLOR is set', async () => {
    const plain = await statusline(EXAMPLE);
    expect(plain).toEqual({
      code: 0,
      stdout: '● 73% of 167k · 121,615 tokens · compress · $4.27\n',
      stderr: '',
    });
    const coloured = await statusline(EXAMPLE, { NO_COLOR: '' });
    expect(coloured.stdout).toBe('\u001b[33m●\u001b[0m 73% of 167k · 121,615 tokens · compress · $4.27\n');
  });

  it('exits 2 naming the field for input that is not the status line JSON, and for no input', async () => {
    const bad = await statusline('{"session_id":"x"}');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('model');
    const empty = await statusline('');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('no input');
  });

  it('reads barometer.config.json overrides when given one', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'barometer-statusline-'));
    try {
      const config = join(folder, 'barometer.config.json');
      writeFileSync(
        config,
        JSON.stringify({ models: { 'claude-opus-4-6': { optimal_max_tokens: 150000 } } }),
      );
      const result = await statusline(EXAMPLE, {}, ['--config', config]);
      // Healthy below the raised optimal size; the regulator (73% of the window: MODERATE) still says optimize.
      expect(result.stdout).toBe('● 73% of 167k · 121,615 tokens · optimize · $4.27\n');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
