import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { importSessionFolder } from './import-session-folder.js';
import { SqliteStateStore } from './sqlite-state-store.js';
import { StateDatabase } from './state-database.js';

interface Value {
  id: string;
  count: number;
  touchedAt: number;
  log: { items: number[] };
}

const folder = mkdtempSync(join(tmpdir(), 'barometer-sqlite-store-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
let files = 0;
const LISTS = [{ path: ['log', 'items'], limit: 3 }];

function open(path: string, options: { parse?: (value: unknown) => { ok: true; value: Value } } = {}) {
  return new SqliteStateStore<Value>({
    database: StateDatabase.open(path),
    lists: LISTS,
    touchedAt: (value) => value.touchedAt,
    ...options,
  });
}

const value = (id: string, count: number, touchedAt = 0, items: number[] = []): Value => ({
  id,
  count,
  touchedAt,
  log: { items },
});

describe('SqliteStateStore over a file', () => {
  it('finds after a reopen what was acknowledged: values, list items past many appends, the count', async () => {
    const path = join(folder, `${++files}.db`);
    const first = open(path);
    await first.create('a', value('a', 0, 0, [1]));
    await first.create('b', value('b', 0));
    for (let item = 2; item <= 100; item++)
      first.update('a', (current) => ({ ...current, count: item, log: { items: [item] } }));
    // No close: what a kill leaves. Another connection reads the same file.
    const second = open(path);
    expect(await second.size()).toBe(2);
    expect(await second.get('a')).toEqual(value('a', 100, 0, [98, 99, 100]));
    second.update('a', (current) => ({ ...current, log: { items: [101] } }));
    expect((await second.get('a'))?.log.items).toEqual([99, 100, 101]);
    await first.close();
    await second.close();
  });

  it('creates the file owner-only, with its log and shared-memory files, whatever the umask', async () => {
    const path = join(folder, `${++files}.db`);
    const umask = process.umask(0o022);
    try {
      const store = open(path);
      await store.create('a', value('a', 1));
      for (const name of readdirSync(folder).filter((file) => file.startsWith(`${files}.db`)))
        expect(statSync(join(folder, name)).mode & 0o777, name).toBe(0o600);
      await store.close();
    } finally {
      process.umask(umask);
    }
  });

  it('names the id of a value that does not read back (BR_ERR_INTEGRITY), and the file it cannot open', async () => {
    const path = join(folder, `${++files}.db`);
    const store = open(path, {
      parse: (read) => {
        if (typeof (read as Value).count !== 'number') throw new Error('unreachable');
        return { ok: true, value: read as Value };
      },
    });
    await store.create('x', value('x', 0));
    store.database.connection.prepare("UPDATE state SET data = '{not json' WHERE id = 'x'").run();
    await expect(store.get('x')).rejects.toMatchObject({
      code: 'BR_ERR_INTEGRITY',
      message: expect.stringContaining('"x"'),
    });
    await store.close();
    const notADatabase = join(folder, 'not-a-database.db');
    writeFileSync(notADatabase, 'plain text, not SQLite '.repeat(100));
    expect(() => StateDatabase.open(notADatabase)).toThrow(/BR_ERR_STORE_UNAVAILABLE|not-a-database\.db/);
  });

  it('names the idle values from its index, to the millisecond (the index holds minutes)', async () => {
    const store = open(join(folder, `${++files}.db`));
    const minute = 60_000;
    await store.create('old', value('old', 0, 10 * minute + 1));
    await store.create('edge', value('edge', 0, 10 * minute + 30_000));
    await store.create('new', value('new', 0, 11 * minute));
    expect(await store.idle?.(10 * minute + 30_000, 10)).toEqual(['old']);
    expect(await store.idle?.(10 * minute + 30_001, 10)).toEqual(['old', 'edge']);
    // Touched again: it moves in the index.
    store.update('old', (current) => ({ ...current, touchedAt: 12 * minute }));
    expect(await store.idle?.(11 * minute + 1, 10)).toEqual(['edge', 'new']);
    expect(await store.idle?.(11 * minute + 1, 1)).toEqual(['edge']);
    await store.close();
  });

  it('forgets what it knew of a deleted value: the same id created again is the new value', async () => {
    const store = open(join(folder, `${++files}.db`));
    await store.create('r', value('r', 5, 0, [1, 2]));
    store.update('r', (current) => ({ ...current, count: 6 }));
    await store.delete('r');
    await store.create('r', value('r', 0));
    expect(store.update('r', (current) => ({ ...current, count: current.count + 1 }))?.count).toBe(1);
    expect(await store.get('r')).toEqual(value('r', 1));
    await store.close();
  });
});

describe('importSessionFolder', () => {
  const fixture = fileURLToPath(new URL('./fixtures/data-dir-f817969/sessions', import.meta.url));

  it('keeps what the store already has (an import cut short, run again), and a second kept folder beside the first', async () => {
    const dataDir = mkdtempSync(join(folder, 'import-'));
    const sessions = join(dataDir, 'sessions');
    cpSync(fixture, sessions, { recursive: true });
    mkdirSync(join(dataDir, 'sessions.imported'));
    const store = new SqliteStateStore<unknown>({ lists: [] });
    await store.create('whole', { mine: true });
    const imported = importSessionFolder(sessions, store, { parse: (read) => ({ ok: true, value: read }) });
    expect(imported).toEqual({ imported: 2, existing: 1, setAside: 0, keptAs: `${sessions}.imported-2` });
    expect(await store.get('whole')).toEqual({ mine: true });
    expect(existsSync(sessions)).toBe(false);
    expect(
      importSessionFolder(sessions, store, { parse: (read) => ({ ok: true, value: read }) }),
    ).toBeUndefined();
    await store.close();
  });
});
