import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replayLogText } from '../src/session/replay.js';
import {
  aggregateWhatIfRows,
  sessionLogFiles,
  skippedCorpusRow,
  type WhatIfCorpusAggregate,
  type WhatIfCorpusRow,
  whatIfCorpusRow,
} from '../src/session/what-if-corpus.js';
import { replayWhatIf } from '../src/session/what-if-replay.js';
import { ArchiveStore, readArchiveFile } from '../src/store/archive.js';
import { createTokenCounter } from '../src/tokens/create-token-counter.js';

/**
 * Where the recorded sessions are: `BAROMETER_TRACES` (a folder of session logs, e.g. a whole recorded corpus),
 * else the copies the repository holds in test/fixtures/traces.
 */
export function tracesDirectory(): string {
  const repository = fileURLToPath(new URL('..', import.meta.url));
  const chosen = process.env.BAROMETER_TRACES;
  if (chosen && existsSync(chosen)) return chosen;
  return join(repository, 'test', 'fixtures', 'traces');
}

export interface WhatIfFigures {
  directory: string;
  rows: WhatIfCorpusRow[];
  aggregate: WhatIfCorpusAggregate;
  bytes: number;
  /** The whole corpus through the what-if (read, reconstruct, calibrate, replay twice, archive, read back, check). */
  whatIfMs: number;
  /** Baseline, same run: the plain replay of the same logs (`barometer replay` without --what-if). */
  replayMs: number;
}

/**
 * `barometer replay <corpus> --what-if` as the CLI runs it: every session log of the corpus (its `.jsonl` and
 * `.json` files; the sub-agents' folders left out), each archived in a temporary directory without fsync and read
 * back; against the plain replay of the same logs in the same run.
 */
export async function benchWhatIf(): Promise<WhatIfFigures> {
  const directory = tracesDirectory();
  const files = (await sessionLogFiles([directory])).filter((file) => !file.includes('/registries/'));
  const texts = await Promise.all(files.map((file) => readFile(file, 'utf8')));
  const counter = createTokenCounter();
  const rows: WhatIfCorpusRow[] = [];
  const start = performance.now();
  for (const [index, file] of files.entries()) {
    const root = await mkdtemp(join(tmpdir(), 'barometer-bench-whatif-'));
    try {
      const result = await replayWhatIf(texts[index]!, {
        archive: new ArchiveStore({ root, durable: false }),
        reader: { readFile: readArchiveFile },
        counter,
        tombstoneArchiveDir: '.barometer/archives',
      });
      rows.push(whatIfCorpusRow(file.slice(directory.length + 1), result));
    } catch (error) {
      rows.push(skippedCorpusRow(file.slice(directory.length + 1), error));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }
  const whatIfMs = performance.now() - start;
  const baseline = performance.now();
  for (const text of texts) {
    try {
      replayLogText(text);
    } catch {
      // A log the replay cannot read is skipped in both runs.
    }
  }
  const replayMs = performance.now() - baseline;
  return {
    directory,
    rows,
    aggregate: aggregateWhatIfRows(rows),
    bytes: texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0),
    whatIfMs,
    replayMs,
  };
}
