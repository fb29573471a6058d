import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../errors/error-catalogue.js';
import { ArchiveStore } from '../store/archive.js';
import { memoryIo } from '../test-helpers/memory-io.js';
import { exitOf, spawnCli } from '../test-helpers/spawn-cli.js';
import { run } from './program.js';

const FIXTURE = fileURLToPath(new URL('../../test/fixtures/openai-history.json', import.meta.url));
let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'barometer-exit-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function cli(args: string[]) {
  const terminal = memoryIo();
  terminal.io.cwd = directory;
  const code = await run(args, { io: terminal.io, now: () => Date.UTC(2026, 10, 22) });
  return { code, stdout: terminal.stdout, stderr: terminal.stderr };
}

/** An archive of session s1, task t1 holding items a, b and c, written by the library. */
async function writeArchive(): Promise<string> {
  const store = new ArchiveStore({ root: join(directory, '.barometer/archives'), durable: false });
  const entry = (itemId: string) => ({
    itemId,
    kind: 'tool-result' as const,
    field: 'content' as const,
    content: `output of ${itemId}`,
  });
  for (const item of ['a', 'b', 'c']) await store.append('s1', 't1', [entry(item)]);
  return store.pathFor('s1', 't1');
}

describe('the CLI exits with the error catalogue’s exit code', () => {
  it('exits BR_ERR_INVALID_PARAM’s code (2) for a value out of range', async () => {
    const { code, stderr } = await cli(['pressure', '--memory-used-percent', '120']);
    expect(code).toBe(ERROR_CATALOGUE.BR_ERR_INVALID_PARAM.exit);
    expect(code).toBe(2);
    expect(stderr).toContain('memoryUsedPercent');
  });

  it('exits BR_ERR_INVALID_PARAM’s code (2) for an unknown flag', async () => {
    expect((await cli(['pressure', '--no-such-flag'])).code).toBe(ERROR_CATALOGUE.BR_ERR_INVALID_PARAM.exit);
  });

  it('exits BR_ERR_ARCHIVE_NOT_FOUND’s code (3) for a missing archive and a missing item', async () => {
    const missing = await cli(['archive', 'nobody', 'nothing']);
    expect(missing.code).toBe(ERROR_CATALOGUE.BR_ERR_ARCHIVE_NOT_FOUND.exit);
    expect(missing.code).toBe(3);
    await writeArchive();
    const item = await cli(['archive', 's1', 't1', '--item', 'z']);
    expect(item.code).toBe(3);
    expect(item.stderr).toContain('no item z in s1/t1; items: a, b, c');
  });

  it('exits BR_ERR_INTEGRITY’s code (4) when the item asked for may lie in damaged bytes', async () => {
    const path = await writeArchive();
    // Damage the record of item b, between two whole records: its hash no longer matches.
    const bytes = await readFile(path);
    const at = bytes.indexOf('output of b');
    bytes[at] = 'O'.charCodeAt(0);
    await writeFile(path, bytes);
    const damaged = await cli(['archive', 's1', 't1', '--item', 'b']);
    expect(damaged.code).toBe(ERROR_CATALOGUE.BR_ERR_INTEGRITY.exit);
    expect(damaged.code).toBe(4);
    expect(damaged.stderr).toMatch(/no whole record for item b .* damaged bytes/);
    // The whole records around it are still read, exit 0.
    const intact = await cli(['archive', 's1', 't1', '--item', 'c']);
    expect([intact.code, intact.stdout]).toEqual([0, 'output of c']);
  });

  it('exits BR_ERR_COMPACTION_REFUSED’s code (5) for a compaction that saves too little', async () => {
    const { code, stderr } = await cli(['compact', FIXTURE, '--min-gain', '99']);
    expect(code).toBe(ERROR_CATALOGUE.BR_ERR_COMPACTION_REFUSED.exit);
    expect(code).toBe(5);
    expect(stderr).toContain('compaction refused');
  });

  it('exits 1 for a fault that is not a barometer error', async () => {
    // The output's folder is writable, but the output itself is a directory: the final rename fails.
    const { code, stderr } = await cli(['compact', FIXTURE, '--output', directory]);
    expect(code).toBe(ERROR_CATALOGUE.BR_ERR_INTERNAL.exit);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^barometer: /);
  });

  it('sets the exit code of the process, not only of run()', async () => {
    const child = spawnCli(['archive', 'nobody', 'nothing', '--archive-dir', directory]);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    expect(await exitOf(child)).toBe(3);
    expect(stderr).toContain('no archive for session nobody');
  });
});
