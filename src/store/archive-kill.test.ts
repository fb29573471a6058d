import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeArchive } from './archive.js';
import { killTestContent } from './fixtures/kill-test-content.js';

const WRITER = fileURLToPath(new URL('./fixtures/archive-kill-writer.ts', import.meta.url));
const RUNS = 30;

let workDir = '';
afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** A fixed-seed generator: the kill moments vary across runs but the test reads the same on every machine. */
function delays(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % 300;
  };
}

function waitForReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`writer exited before it was ready (code ${code})`)));
  });
}

describe('archive under SIGKILL', () => {
  it(`keeps a whole record behind every tombstone across ${RUNS} kills at random moments`, async () => {
    workDir = await mkdtemp(join(tmpdir(), 'barometer-kill-'));
    const root = join(workDir, 'archives');
    const markers = join(workDir, 'markers');
    const archive = join(root, 'kill', 'loop.log');
    const nextDelay = delays(20261103);
    let tornTails = 0;
    let records = 0;
    const checked = new Set<string>();
    for (let run = 0; run < RUNS; run += 1) {
      const child = spawn(process.execPath, ['--import', 'tsx', WRITER, root, markers, `r${run}`], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await waitForReady(child);
      await new Promise((resolve) => setTimeout(resolve, nextDelay()));
      child.kill('SIGKILL');
      await exited;

      // Every run appends to the same file, so each new writer also has to cope with the last one's torn tail.
      const decoded = decodeArchive(await readFile(archive).catch(() => Buffer.alloc(0)));
      if (decoded.tornTail) tornTails += 1;
      const ids = new Set<string>();
      for (const record of decoded.records) {
        ids.add(record.itemId);
        // Records of earlier runs were checked then (and the hash still matches): check only the new ones.
        if (!checked.has(record.itemId)) expect(record.content === killTestContent(record.itemId)).toBe(true);
        checked.add(record.itemId);
      }
      for (const marker of await readdir(markers))
        expect(ids.has(marker), `marker ${marker} has its record`).toBe(true);
      records = decoded.records.length;
    }
    expect((await readdir(markers)).length).toBeGreaterThan(0);
    expect(records).toBeGreaterThanOrEqual((await readdir(markers)).length);
    // The writer writes 4 KiB per call, so kills land mid-record: about a third of runs here (11 of 30 when
    // measured). At least one torn tail shows the reader and the next writer's trim were really exercised.
    expect(tornTails).toBeGreaterThan(0);
  }, 240_000);
});
