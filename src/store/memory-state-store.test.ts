import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockDataDir } from './data-dir-lock.js';
import { MemoryStateStore } from './memory-state-store.js';
import { StateSnapshot } from './state-snapshot.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
function folder(): string {
  const created = mkdtempSync(join(tmpdir(), 'barometer-memory-store-'));
  folders.push(created);
  return created;
}
function snapshot(directory: string, sliceMs?: number): StateSnapshot<{ n: number }> {
  return new StateSnapshot({
    directory,
    parse: (value) => ({ ok: true, value: value as { n: number } }),
    ...(sliceMs === undefined ? {} : { sliceMs }),
  });
}

describe('MemoryStateStore.page (F6)', () => {
  it('lists every value once, in id order, a page at a time, following creates and deletes', async () => {
    const store = new MemoryStateStore<{ n: number }>({ maxEntries: 1000 });
    for (const n of [5, 3, 9, 1, 7]) await store.create(`id-${n}`, { n });
    const first = await store.page(null, 2);
    expect(first).toEqual({ values: [{ n: 1 }, { n: 3 }], next: 'id-3' });
    await store.create('id-4', { n: 4 });
    await store.delete('id-5');
    const second = await store.page(first.next, 2);
    expect(second).toEqual({ values: [{ n: 4 }, { n: 7 }], next: 'id-7' });
    expect(await store.page(second.next, 2)).toEqual({ values: [{ n: 9 }], next: null });
    // A cursor whose session was deleted meanwhile still finds its place.
    await store.delete('id-3');
    expect((await store.page('id-3', 10)).values).toEqual([{ n: 4 }, { n: 7 }, { n: 9 }]);
  });
});

describe('MemoryStateStore background load (F8)', () => {
  it('answers before the values are read, and reads a value asked for before its turn', async () => {
    const directory = folder();
    const writer = snapshot(directory);
    for (let n = 0; n < 50; n++) writer.changed(`s${n}`, { n });
    await writer.close();

    // Slices of 0 ms: one name listed, or one value read, per turn of the event loop.
    const store = await MemoryStateStore.open({ snapshot: snapshot(directory, 0), background: true });
    // Asked for while the names are still being listed: waits for the list, then reads it first.
    const early = store.get('s7');
    expect(store.unloaded).toBeLessThan(50);
    expect(await early).toEqual({ n: 7 });
    // Counted once listed, read later; an update of one not read yet reads it first.
    expect(await store.size()).toBe(50);
    expect(store.unloaded).toBeGreaterThan(40);
    expect(await store.update('s49', (value) => ({ n: value.n + 1 }))).toEqual({ n: 50 });
    expect(await store.create('s3', { n: -1 })).toBe('exists');
    // A page before the load is done: its values read first, in id order (s10 < s2 in code units).
    const page = await store.page('s1', 3);
    expect(store.unloaded).toBeGreaterThan(0);
    expect(page).toEqual({ values: [{ n: 10 }, { n: 11 }, { n: 12 }], next: 's12' });
    expect(await store.delete('s12')).toBe(true);
    expect(await store.page('s11', 2)).toEqual({ values: [{ n: 13 }, { n: 14 }], next: 's14' });
    await store.ready();
    expect(store.unloaded).toBe(0);
    expect((await store.page(null, 100)).values).toHaveLength(49);
    await store.close();
  });
});

describe('lockDataDir (F5)', () => {
  it('refuses a dir held by another live process, takes over a stale lock, and shares within a process', () => {
    const directory = folder();
    const path = join(directory, 'barometer.lock');
    // Held by a live process: pid 1 (init) always runs.
    const other = {
      pid: 1,
      startedAt: '2026-01-01T00:00:00.000Z',
      hostname: hostname(),
      command: 'barometer serve',
    };
    writeFileSync(path, JSON.stringify(other));
    expect(() => lockDataDir(directory)).toThrow(/in use by process 1 .*barometer serve/);
    // Its process gone (a pid above the kernel's maximum): taken over, and whose it was is said.
    writeFileSync(path, JSON.stringify({ ...other, pid: 4_194_304 + 7 }));
    const lock = lockDataDir(directory);
    expect(lock.tookOverFrom?.pid).toBe(4_194_311);
    const again = lockDataDir(directory);
    again.release();
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    lock.release();
    expect(existsSync(path)).toBe(false);
  });
});
