import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
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

/** A folder holding `{ n }` under the id `id(n)` for n from 0 to count − 1, written and closed. */
async function folderWith(count: number, id: (n: number) => string): Promise<string> {
  const directory = folder();
  const writer = snapshot(directory);
  for (let n = 0; n < count; n++) writer.changed(id(n), { n });
  await writer.close();
  return directory;
}

/**
 * A store loading `directory` in the background in slices of 0 ms: one name listed, or one value read, per turn of
 * the event loop. No read budget for a page unless given (a slow machine's turns would end one early).
 */
function loading(
  directory: string,
  pageReadMs = Number.POSITIVE_INFINITY,
): Promise<MemoryStateStore<{ n: number }>> {
  return MemoryStateStore.open({ snapshot: snapshot(directory, 0), background: true, pageReadMs });
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
    const store = await loading(await folderWith(50, (n) => `s${n}`));
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

describe('MemoryStateStore page during a background load', () => {
  it('reads its values in slices, other requests running between them, and leaves out one deleted meanwhile', async () => {
    // One value read per turn, by the page or by the background load.
    const store = await loading(await folderWith(10, (n) => `p${n}`));
    await store.size();
    const page = store.page(null, 10);
    let unloadedMeanwhile = 0;
    const deleted = (async () => {
      // A turn for another request while the page reads: it deletes a value the page has not reached yet.
      await new Promise((resolve) => setImmediate(resolve));
      unloadedMeanwhile = store.unloaded;
      return store.delete('p9');
    })();
    expect(await deleted).toBe(true);
    expect(unloadedMeanwhile).toBeGreaterThan(0);
    expect((await page).values.map((value) => value.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    await store.close();
  });
});

describe('MemoryStateStore page read budget (decision 091)', () => {
  it('ends a page at its budget with a cursor, reads at least one value a page, and lists every value once', async () => {
    // A budget of 0 ms: a page reads one value off disk and ends before the next one still there. The background
    // load reads one value a turn (b00 first, once the folder is listed) and waits while a page reads.
    const store = await loading(await folderWith(12, (n) => `b${String(n).padStart(2, '0')}`), 0);
    const first = await store.page(null, 5);
    // It ends after the first value it had to read (the one before it, if any, read by the background load): fewer
    // than 5, with the cursor of its last; with no budget it would hold 5 (the test before).
    expect(first.values.length).toBeGreaterThanOrEqual(1);
    expect(first.values.length).toBeLessThan(5);
    expect(first.next).toBe(`b${String(first.values.length - 1).padStart(2, '0')}`);
    expect(store.unloaded).toBeGreaterThan(0);
    // Every value once, in order, following the cursors however short the pages.
    const seen: number[] = first.values.map((value) => value.n);
    let cursor = first.next;
    while (cursor !== null) {
      const page = await store.page(cursor, 5);
      expect(page.values.length).toBeGreaterThan(0);
      seen.push(...page.values.map((value) => value.n));
      cursor = page.next;
    }
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    await store.close();
  });
});

describe('MemoryStateStore ids kept by a clean close', () => {
  async function closedWith(directory: string, count: number): Promise<void> {
    const writer = await MemoryStateStore.open({ snapshot: snapshot(directory) });
    for (let n = count - 1; n >= 0; n--) await writer.create(`s${n}`, { n });
    await writer.close();
  }

  it('starts from the ids a clean close wrote, and a kill after the start leaves the folder to be listed', async () => {
    const directory = folder();
    await closedWith(directory, 20);
    const index = `${directory}.ids`;
    folders.push(index);
    const written = readFileSync(index, 'utf8').split('\n').slice(1, -1);
    expect(written).toEqual([...written].sort());
    expect(written).toHaveLength(20);

    // Slices of 0 ms list one name per turn (and read one value): nearly every id known at once is the index.
    const writes = snapshot(directory, 0);
    const store = await MemoryStateStore.open({
      snapshot: writes,
      background: true,
      pageReadMs: Number.POSITIVE_INFINITY,
    });
    expect(store.unloaded).toBeGreaterThanOrEqual(19);
    expect(existsSync(index)).toBe(false);
    expect((await store.page(null, 3)).values).toEqual([{ n: 0 }, { n: 1 }, { n: 10 }]);
    // A session created and one deleted, written out, then the process killed (no close).
    expect(await store.create('s20', { n: 20 })).toBe('created');
    expect(await store.delete('s3')).toBe(true);
    await writes.flush();

    const after = await MemoryStateStore.open({ snapshot: snapshot(directory, 0), background: true });
    await after.ready();
    expect(await after.get('s20')).toEqual({ n: 20 });
    expect(await after.get('s3')).toBeUndefined();
    expect(await after.size()).toBe(20);
    await after.close();
    await store.close();
  });

  it('lists the folder when it changed after the index was written (a file added, one removed)', async () => {
    const directory = folder();
    await closedWith(directory, 5);
    const index = `${directory}.ids`;
    folders.push(index);
    expect(existsSync(index)).toBe(true);
    // The kernel stamps a folder's changes with a clock that ticks every few ms: the changes below come after a tick.
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Changed by a process that knows no index (an older build, a copy): one value added, one removed.
    const other = snapshot(directory);
    other.changed('s9', { n: 9 });
    await other.close();
    unlinkSync(join(directory, 's2.json'));

    const problems: unknown[] = [];
    const store = await MemoryStateStore.open({
      snapshot: new StateSnapshot({
        directory,
        parse: (value) => ({ ok: true, value: value as { n: number } }),
        onProblem: (problem) => problems.push(problem),
      }),
      background: true,
    });
    expect(existsSync(index)).toBe(false);
    await store.ready();
    expect((await store.page(null, 10)).values).toEqual([{ n: 0 }, { n: 1 }, { n: 3 }, { n: 4 }, { n: 9 }]);
    expect(problems).toEqual([]);
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
