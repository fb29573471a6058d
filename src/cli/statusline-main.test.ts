import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../errors/error-catalogue.js';
import { memoryIo } from '../test-helpers/memory-io.js';
import { run } from './program.js';
import { main } from './statusline-main.js';

const EXAMPLE = readFileSync(new URL('../../examples/statusline-input.json', import.meta.url), 'utf8');
const FOLDER = mkdtempSync(join(tmpdir(), 'barometer-statusline-main-'));
afterAll(() => rmSync(FOLDER, { recursive: true, force: true }));

/** One status line in a working directory of its own, through the lean entry or (`program`) the whole CLI. */
async function statusline(args: string[], options: { cwd: string; program?: boolean }) {
  const terminal = memoryIo({
    stdin: EXAMPLE,
    env: { NO_COLOR: '1', XDG_CACHE_HOME: join(FOLDER, 'cache') },
  });
  terminal.io.cwd = options.cwd;
  const code = options.program ? await run(args, { io: terminal.io }) : await main(args, terminal.io);
  return { code, stdout: terminal.stdout, stderr: terminal.stderr };
}

function folderWith(name: string, content: string): string {
  const folder = mkdtempSync(join(FOLDER, 'cwd-'));
  writeFileSync(join(folder, name), content);
  return folder;
}

describe('barometer statusline without flags (what Claude Code runs) and with them', () => {
  it('prints what the whole program prints for the same input, with and without --config', async () => {
    const plain = await statusline(['statusline'], { cwd: FOLDER });
    expect(plain).toEqual({ code: 0, stdout: '● 73% of 167k · 121,615 tokens · compress\n', stderr: '' });
    expect(await statusline(['statusline'], { cwd: FOLDER, program: true })).toEqual(plain);
    const config = join(
      folderWith(
        'barometer.config.json',
        JSON.stringify({ models: { 'claude-opus-4-6': { optimal_max_tokens: 150000 } } }),
      ),
      'barometer.config.json',
    );
    const flagged = await statusline(['statusline', '--config', config], { cwd: FOLDER });
    expect(flagged.stdout).toBe('● 73% of 167k · 121,615 tokens · optimize\n');
    // The config file in the working directory is read without the flag, as the program reads it.
    expect(await statusline(['statusline'], { cwd: join(config, '..') })).toEqual(flagged);
  });

  it('maps a damaged config file to the catalogue’s exit code and message, as the flag parser’s path does', async () => {
    const cwd = folderWith(
      'barometer.config.json',
      '{"models": {"claude-opus-4-6": {"optimal_max_tokens": -5}}}',
    );
    const plain = await statusline(['statusline'], { cwd });
    expect(plain.code).toBe(ERROR_CATALOGUE.BR_ERR_INVALID_PARAM.exit);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toMatch(
      /^barometer: invalid config file .*barometer\.config\.json:\n.*optimal_max_tokens/,
    );
    const flagged = await statusline(['statusline', '--config', join(cwd, 'barometer.config.json')], {
      cwd: FOLDER,
    });
    expect(flagged).toEqual(plain);
    expect(await statusline(['statusline'], { cwd, program: true })).toEqual(plain);
  });

  it('gives --help and a wrong flag to commander, as every command', async () => {
    const help = await statusline(['statusline', '--help'], { cwd: FOLDER });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: barometer statusline \[options\]/);
    const wrong = await statusline(['statusline', '--no-such-flag'], { cwd: FOLDER });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("unknown option '--no-such-flag'");
  });
});
