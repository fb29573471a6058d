import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ArchiveStore, decodeArchive } from './archive.js';
import { killTestContent } from './fixtures/kill-test-content.js';

const WRITER = fileURLToPath(new URL('./fixtures/archive-concurrent-writer.ts', import.meta.url));
const APPENDS = 40;
const COMPACTIONS = 6;

let workDir = '';
afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

interface Writer {
  child: ChildProcess;
  ready: Promise<void>;
  /** The compaction archive paths the writer printed on its last line. */
  done: Promise<string[]>;
}

function startWriter(root: string, id: string): Writer {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', WRITER, root, id, String(APPENDS), String(COMPACTIONS)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let output = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes('ready\n')) markReady();
  });
  const done = new Promise<string[]>((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`writer ${id} exited with code ${code}`));
      const lines = output.trim().split('\n');
      resolve(JSON.parse(lines.at(-1) ?? '[]') as string[]);
    });
  });
  return { child, ready, done };
}

describe('two processes writing one archive root at once', () => {
  it('never collide: every appended record of both reads back whole, and their compactions get different archives', async () => {
    workDir = await mkdtemp(join(tmpdir(), 'barometer-concurrent-'));
    const root = join(workDir, 'archives');
    const writers = [startWriter(root, 'server'), startWriter(root, 'cli')];
    await Promise.all(writers.map((writer) => writer.ready));
    // Both start together, so their appends and their compaction numbering really overlap.
    for (const writer of writers) writer.child.stdin?.end('go\n');
    const [serverArchives, cliArchives] = await Promise.all(writers.map((writer) => writer.done));

    const decoded = decodeArchive(await readFile(join(root, 'shared', 'log.log')));
    expect(decoded.skipped).toEqual([]);
    expect(decoded.records).toHaveLength(2 * APPENDS);
    for (const record of decoded.records)
      expect(record.content === killTestContent(record.itemId)).toBe(true);
    for (const writer of ['server', 'cli']) {
      const ids = decoded.records.filter((record) => record.itemId.startsWith(`${writer}-`));
      // Each process's appends land in the order it made them.
      expect(ids.map((record) => record.itemId)).toEqual(
        Array.from({ length: APPENDS }, (_, sequence) => `${writer}-${sequence}`),
      );
    }

    const all = [...(serverArchives ?? []), ...(cliArchives ?? [])];
    expect(all).toHaveLength(2 * COMPACTIONS);
    expect(new Set(all).size).toBe(all.length);
    const store = new ArchiveStore({ root });
    for (const [writer, archives] of [
      ['server', serverArchives],
      ['cli', cliArchives],
    ] as const) {
      for (const path of archives ?? []) {
        const records = await store.readArchive('shared', basename(path, '.log'));
        // One compaction's messages only, each id once: no other compaction appended here.
        expect(records.map((record) => record.itemId)).toEqual([
          'message-1',
          'message-2',
          'call_0:result',
          'message-4',
          'message-5',
          'message-6',
          'call_1:result',
          'message-8',
          'message-9',
          'message-10',
          'call_2:result',
          'message-12',
        ]);
        expect(
          records.every((record) => !record.content.includes(writer === 'server' ? 'cli' : 'server')),
        ).toBe(true);
      }
    }
  }, 120_000);
});
