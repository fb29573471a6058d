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
import { afterAll, describe, expect, it, vi } from 'vitest';
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
      await first.update('a', (current) => ({ ...current, count: item, log: { items: [item] } }));
    // No close: what a kill leaves. Another connection reads the same file.
    const second = open(path);
    expect(await second.size()).toBe(2);
    expect(await second.get('a')).toEqual(value('a', 100, 0, [98, 99, 100]));
    await second.update('a', (current) => ({ ...current, log: { items: [101] } }));
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
    expect((await store.update('r', (current) => ({ ...current, count: current.count + 1 })))?.count).toBe(1);
    expect(await store.get('r')).toEqual(value('r', 1));
    await store.close();
  });
});

describe('SqliteStateStore over a file: group commit in its writer thread', () => {
  it('does not acknowledge an update before its commit; a read made meanwhile answers once it is committed, and sees it', async () => {
    const path = join(folder, `${++files}.db`);
    const store = open(path);
    await store.create('a', value('a', 0, 0, [1]));
    // Another connection holds the write lock: the writer thread's transaction waits for it (busy_timeout).
    const holder = StateDatabase.open(path);
    holder.connection.exec('BEGIN IMMEDIATE');
    const settled = new Set<string>();
    const watch = <R>(name: string, promise: Promise<R> | R) =>
      Promise.resolve(promise).finally(() => settled.add(name));
    const update = watch(
      'update',
      store.update('a', (current) => ({ ...current, count: 1, touchedAt: 5, log: { items: [2] } })),
    );
    const reads = [
      watch('get', store.get('a')),
      watch('page', store.page(null, 10)),
      watch('idle', store.idle?.(6, 10)),
      watch('not idle', store.idle?.(5, 10)),
    ] as const;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([...settled]).toEqual([]);
    const elsewhere = StateDatabase.open(path);
    const committed = () =>
      (elsewhere.connection.prepare("SELECT data FROM state WHERE id = 'a'").raw().get() as [string])[0];
    expect(JSON.parse(committed()).count).toBe(0);
    holder.connection.exec('ROLLBACK');
    expect((await update)?.count).toBe(1);
    expect(JSON.parse(committed()).count).toBe(1);
    // Each read sees the write sent before it.
    expect(await reads[0]).toEqual(value('a', 1, 5, [1, 2]));
    expect((await reads[1]).values).toEqual([value('a', 1, 5, [1, 2])]);
    expect(await reads[2]).toEqual(['a']);
    expect(await reads[3]).toEqual([]);
    elsewhere.close();
    holder.close();
    await store.close();
  });

  it('orders creates, deletes and reads made while writes wait: each read sees the writes sent before it', async () => {
    const path = join(folder, `${++files}.db`);
    const store = open(path);
    for (const id of ['b', 'd', 'f']) await store.create(id, value(id, 0));
    const holder = StateDatabase.open(path);
    holder.connection.exec('BEGIN IMMEDIATE');
    const writes: Array<Promise<unknown>> = [
      store.create('a', value('a', 1)),
      store.create('e', value('e', 1)),
      store.delete('d'),
    ];
    const first = store.page(null, 2);
    const gone = store.get('d');
    const notUpdated = Promise.resolve(store.update('d', (current) => current));
    writes.push(store.create('d', value('d', 2)), store.create('a', value('a', 3)));
    const all = store.page(null, 10);
    holder.connection.exec('COMMIT');
    expect(await Promise.all(writes)).toEqual(['created', 'created', true, 'created', 'exists']);
    const page = await first;
    expect(page.values.map((read) => read.id)).toEqual(['a', 'b']);
    const second = await store.page(page.next, 2);
    expect(second.values.map((read) => [read.id, read.count])).toEqual([
      ['d', 2],
      ['e', 1],
    ]);
    // Deleted before the read, created again after it (the read may see the later write, never the deleted value).
    expect([undefined, 2]).toContain((await gone)?.count);
    expect(await notUpdated).toBeUndefined();
    expect((await all).values.map((read) => read.id)).toEqual(['a', 'b', 'd', 'e', 'f']);
    expect(await store.size()).toBe(5);
    const reopened = open(path);
    expect((await reopened.values()).map((read) => [read.id, read.count]).sort()).toEqual([
      ['a', 1],
      ['b', 0],
      ['d', 2],
      ['e', 1],
      ['f', 0],
    ]);
    holder.close();
    await reopened.close();
    await store.close();
  });

  it('fails the writes of an id made on top of a failed one, and builds the next on what was committed', async () => {
    const path = join(folder, `${++files}.db`);
    const store = open(path);
    await store.create('a', value('a', 1, 0, [1]));
    const holder = StateDatabase.open(path);
    // Held past the busy timeout (5 s): the writer's transaction fails.
    holder.connection.exec('BEGIN IMMEDIATE');
    const plusTen = (current: Value) => ({ ...current, count: current.count + 10, log: { items: [2] } });
    const failing = [
      Promise.resolve(store.update('a', plusTen)),
      Promise.resolve(store.update('a', plusTen)),
    ];
    const outcomes = await Promise.allSettled(failing);
    holder.connection.exec('ROLLBACK');
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(await store.get('a')).toEqual(value('a', 1, 0, [1]));
    expect(
      await store.update('a', (current) => ({ ...current, count: current.count + 1, log: { items: [3] } })),
    ).toEqual(value('a', 2, 0, [3]));
    const reopened = open(path);
    expect(await reopened.get('a')).toEqual(value('a', 2, 0, [1, 3]));
    holder.close();
    await reopened.close();
    await store.close();
  });

  it('folds the log into the file from its checkpointer thread, not in the commits (the file grows as writes go on)', async () => {
    const path = join(folder, `${++files}.db`);
    const store = open(path);
    const size = () => statSync(path).size;
    await store.create('a', value('a', 0));
    const before = size();
    // About 1,000 pages of log: far below the 10,000 pages at which a connection would checkpoint by itself.
    const text = 'x'.repeat(4000);
    for (let write = 1; write <= 1000; write++)
      await store.update(
        'a',
        (current) => ({ ...current, count: write, log: { items: [write] }, text }) as Value,
      );
    // The checkpointer runs beside the commits: the pages it copied are in the file before the store closes.
    await vi.waitFor(() => expect(size()).toBeGreaterThan(before), { timeout: 10_000 });
    await store.close();
  });

  it('rejects with BR_ERR_STORE_UNAVAILABLE naming the file when its writer thread dies, and never hangs', async () => {
    const path = join(folder, `${++files}.db`);
    const store = open(path);
    await store.create('a', value('a', 0));
    const updates = Array.from({ length: 100 }, () =>
      Promise.resolve(store.update('a', (current) => ({ ...current, count: current.count + 1 }))),
    );
    // Watched from now on: terminate also waits for the checkpointer thread to stop, after the writes failed.
    const outcomes = Promise.allSettled(updates);
    await store.writer?.terminate();
    const settled = await outcomes;
    const answered = settled.filter((outcome) => outcome.status === 'fulfilled').length;
    for (const outcome of settled)
      if (outcome.status === 'rejected')
        expect(outcome.reason).toMatchObject({
          code: 'BR_ERR_STORE_UNAVAILABLE',
          message: expect.stringContaining(path),
        });
    await expect(
      Promise.resolve(store.update('a', (current) => ({ ...current, count: -1 }))),
    ).rejects.toMatchObject({ code: 'BR_ERR_STORE_UNAVAILABLE', message: expect.stringContaining(path) });
    await expect(store.create('b', value('b', 0))).rejects.toMatchObject({
      code: 'BR_ERR_STORE_UNAVAILABLE',
    });
    // Reads go on from the file: every acknowledged update is in it (some committed ones may be unanswered).
    expect((await store.get('a'))?.count).toBeGreaterThanOrEqual(answered);
    expect(await store.size()).toBe(1);
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
