import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyValueTable } from '../store/key-value-table.js';
import { StateDatabase } from '../store/state-database.js';
import type { LogReport } from './log-report.js';
import { ReportCache } from './report-cache.js';

let directory: string;
const report: LogReport = {
  path: '/logs/a.jsonl',
  agent: 'codex',
  project: 'p',
  session: 'a',
  slots: [],
  compactions: [],
  whatIf: null,
};

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'barometer-report-cache-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('ReportCache', () => {
  it('answers for a file only while its size and modification time are unchanged', async () => {
    const path = join(directory, 'cache.db');
    const cache = await ReportCache.open(path, 'v1');
    cache.set('/logs/a.jsonl', { size: 10, mtimeMs: 5, whatIf: false, report });
    await cache.save();
    const again = await ReportCache.open(path, 'v1');
    expect(again.get('/logs/a.jsonl', 10, 5, false)?.report).toEqual(report);
    expect(again.get('/logs/a.jsonl', 11, 5, false)).toBeUndefined();
    expect(again.get('/logs/a.jsonl', 10, 6, false)).toBeUndefined();
    // An entry made without the what-if cannot answer a run that wants it.
    expect(again.get('/logs/a.jsonl', 10, 5, true)).toBeUndefined();
  });

  it('ignores a cache written under another key, and one that is damaged', async () => {
    const path = join(directory, 'keyed.db');
    const cache = await ReportCache.open(path, 'v1');
    cache.set('/logs/a.jsonl', { size: 1, mtimeMs: 1, whatIf: true, report });
    await cache.save();
    expect((await ReportCache.open(path, 'v2')).get('/logs/a.jsonl', 1, 1, true)).toBeUndefined();
    await writeFile(path, '{"key":"v1","entries":');
    expect((await ReportCache.open(path, 'v1')).get('/logs/a.jsonl', 1, 1, true)).toBeUndefined();
  });

  it('forgets the files that are gone when pruned, and writes nothing when nothing changed', async () => {
    const path = join(directory, 'pruned.db');
    const cache = await ReportCache.open(path, 'v1');
    cache.set('/logs/a.jsonl', { size: 1, mtimeMs: 1, whatIf: true, report });
    cache.set('/logs/b.jsonl', { size: 1, mtimeMs: 1, whatIf: true, report: null, problem: 'not a log' });
    await cache.save();
    cache.prune((file) => file === '/logs/b.jsonl');
    await cache.save();
    const keys = () => {
      const database = StateDatabase.open(path);
      const kept = new KeyValueTable(database, 'report-cache').entries().map(([key]) => key);
      database.close();
      return kept;
    };
    expect(keys()).toEqual(['/logs/b.jsonl']);
    // Nothing changed: nothing written (a row put there behind its back stays).
    const database = StateDatabase.open(path);
    new KeyValueTable(database, 'report-cache').set('/logs/c.jsonl', 'sentinel');
    database.close();
    await cache.save();
    expect(keys()).toEqual(['/logs/b.jsonl', '/logs/c.jsonl']);
  });
});
