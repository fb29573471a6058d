import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../test-helpers/memory-io.js';
import { cliPlaces, exitOf, spawnCli } from '../test-helpers/spawn-cli.js';
import { run } from './program.js';

const LOG = fileURLToPath(
  new URL('../../test/fixtures/traces/claude-code/small-sonnet-session.jsonl', import.meta.url),
);
const STATUSLINE_INPUT = fileURLToPath(new URL('../../examples/statusline-input.json', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'barometer-data-folder-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function folder(name: string): string {
  const path = join(root, name);
  mkdirSync(path, { recursive: true });
  return path;
}

async function spawned(args: string[], cwd: string, stdin = '') {
  const child = spawnCli(args, {}, { cwd });
  child.stdin.end(stdin);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { code: await exitOf(child), stdout, stderr };
}

describe('the data folder of the CLI', () => {
  it('barometer report run in a folder leaves nothing there: its cache is in the state folder, owner-only', async () => {
    const project = folder('report-here');
    const report = await spawned(['report', LOG, '--json', '--no-what-if'], project);
    expect(report.stderr).toBe('');
    expect(report.code).toBe(0);
    expect(readdirSync(project)).toEqual([]);
    const cache = join(cliPlaces().XDG_STATE_HOME, 'barometer', 'barometer.db');
    expect((statSync(cache).mode & 0o777).toString(8)).toBe('600');
  }, 60_000);

  it('keeps using an old ./.barometer, saying once per process where the default is now and how to move', async () => {
    const project = folder('old-project');
    mkdirSync(join(project, '.barometer'));
    const first = memoryIo({ env: { HOME: folder('old-home'), XDG_STATE_HOME: join(root, 'old-state') } });
    first.io.cwd = project;
    expect(await run(['report', LOG, '--json', '--no-what-if'], { io: first.io })).toBe(0);
    expect(first.stderr.split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^barometer: using ${project}/\\.barometer, left by an earlier version; the default data folder is now ${root}/old-state/barometer \\(to move: stop barometer, then mkdir -p .* && mv .*\\)$`,
        ),
      ),
      '',
    ]);
    expect(readdirSync(join(project, '.barometer'))).toContain('barometer.db');
    // A second command in the same process says nothing more.
    const second = memoryIo({ env: first.io.env as Record<string, string> });
    second.io.cwd = project;
    expect(await run(['report', LOG, '--json', '--no-what-if'], { io: second.io })).toBe(0);
    expect(second.stderr).toBe('');
  }, 60_000);

  it('the status line says nothing of an old ./.barometer and writes nothing into the project', async () => {
    const project = folder('statusline-project');
    mkdirSync(join(project, '.barometer'));
    // A transcript it reads, so that it keeps a cost checkpoint: in the state folder, not in the project.
    const input = {
      ...JSON.parse(readFileSync(STATUSLINE_INPUT, 'utf8')),
      cwd: project,
      transcript_path: LOG,
    };
    const bar = await spawned(['statusline'], project, JSON.stringify(input));
    expect(bar.code).toBe(0);
    expect(bar.stderr).toBe('');
    expect(bar.stdout.split('\n')).toHaveLength(2);
    expect(readdirSync(project)).toEqual(['.barometer']);
    expect(readdirSync(join(project, '.barometer'))).toEqual([]);
    expect(readdirSync(join(cliPlaces().XDG_STATE_HOME, 'barometer', 'statusline')).length).toBeGreaterThan(
      0,
    );
  }, 60_000);
});
