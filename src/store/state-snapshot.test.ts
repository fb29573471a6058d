import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StateSnapshot } from './state-snapshot.js';

interface Item {
  n: number;
}
interface Value {
  name: string;
  timeline: { points: Item[] };
}

const LIMIT = 5;
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function snapshotIn(directory: string, problems: string[] = [], key?: string): StateSnapshot<Value> {
  return new StateSnapshot<Value>({
    directory,
    parse: (value) => ({ ok: true, value: value as Value }),
    lists: [{ path: ['timeline', 'points'], limit: LIMIT, ...(key === undefined ? {} : { key }) }],
    flushIntervalMs: 60_000,
    onProblem: (problem) => problems.push(`${problem.id} ${problem.action}: ${problem.reason}`),
  });
}

function folder(): string {
  const directory = mkdtempSync(join(tmpdir(), 'barometer-snapshot-'));
  folders.push(directory);
  return directory;
}

const lineCount = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).length;
const items = (...numbers: number[]) => numbers.map((n) => ({ n }));

describe('StateSnapshot with an append-only list', () => {
  it('keeps the list in a file of its own and appends only the new items to it', async () => {
    const directory = folder();
    const snapshot = snapshotIn(directory);
    const value: Value = { name: 'a', timeline: { points: items(1, 2) } };
    snapshot.changed('a', value);
    await snapshot.flush();
    const listFile = join(directory, 'a.timeline.points.jsonl');
    expect(JSON.parse(readFileSync(join(directory, 'a.json'), 'utf8'))).toEqual({
      name: 'a',
      timeline: { points: [] },
    });
    expect(readFileSync(listFile, 'utf8')).toBe('{"n":1}\n{"n":2}\n');

    // Appended in place, as the monitor does over its memory store: only {"n":3} is written.
    value.timeline.points.push({ n: 3 });
    snapshot.changed('a', value);
    // What the file holds is not written again: a marker put in its place stays, the new item follows it.
    writeFileSync(listFile, 'written before\n');
    await snapshot.flush();
    expect(readFileSync(listFile, 'utf8')).toBe('written before\n{"n":3}\n');
    writeFileSync(listFile, '{"n":1}\n{"n":2}\n{"n":3}\n');
    expect(await snapshotIn(directory).load()).toEqual(new Map([['a', value]]));
  });

  it('writes the file anew once it holds twice the limit, and reads back the last `limit` items', async () => {
    const directory = folder();
    const snapshot = snapshotIn(directory);
    const value: Value = { name: 'a', timeline: { points: [] } };
    const listFile = join(directory, 'a.timeline.points.jsonl');
    const counts: number[] = [];
    for (let n = 1; n <= 12; n++) {
      value.timeline.points.push({ n });
      while (value.timeline.points.length > LIMIT) value.timeline.points.shift();
      snapshot.changed('a', value);
      await snapshot.flush();
      counts.push(lineCount(listFile));
    }
    // 1..5 appended, 6..10 appended past the limit up to twice it, then the 11th rewrites the last five.
    expect(counts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 5, 6]);
    expect((await snapshotIn(directory).load()).get('a')?.timeline.points).toEqual(items(8, 9, 10, 11, 12));
  });

  it('skips a torn last line (a kill during an append) and writes the list anew at the next flush', async () => {
    const directory = folder();
    const snapshot = snapshotIn(directory);
    snapshot.changed('a', { name: 'a', timeline: { points: items(1, 2) } });
    await snapshot.flush();
    const listFile = join(directory, 'a.timeline.points.jsonl');
    appendFileSync(listFile, '{"n":3');

    const problems: string[] = [];
    const restarted = snapshotIn(directory, problems);
    const loaded = (await restarted.load()).get('a')!;
    expect(loaded.timeline.points).toEqual(items(1, 2));
    expect(problems).toEqual([]);
    loaded.timeline.points.push({ n: 4 });
    restarted.changed('a', loaded);
    await restarted.flush();
    expect(readFileSync(listFile, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":4}\n');
  });

  it('reports a damaged line that is not the last, and keeps the others', async () => {
    const directory = folder();
    writeFileSync(join(directory, 'a.json'), '{"name":"a","timeline":{"points":[]}}');
    writeFileSync(join(directory, 'a.timeline.points.jsonl'), '{"n":1}\nnot json\n{"n":3}\n');
    const problems: string[] = [];
    expect((await snapshotIn(directory, problems).load()).get('a')?.timeline.points).toEqual(items(1, 3));
    expect(problems).toEqual([
      `a skip: 1 line of ${join(directory, 'a.timeline.points.jsonl')} skipped (not a valid timeline.points item): line 2`,
    ]);
  });

  it('reads a file written before the list had a file of its own (the list inside it)', async () => {
    const directory = folder();
    writeFileSync(join(directory, 'a.json'), '{"name":"a","timeline":{"points":[{"n":1},{"n":2}]}}');
    const snapshot = snapshotIn(directory);
    const loaded = (await snapshot.load()).get('a')!;
    expect(loaded.timeline.points).toEqual(items(1, 2));
    snapshot.changed('a', loaded);
    await snapshot.flush();
    expect(readdirSync(directory).sort()).toEqual(['a.json', 'a.timeline.points.jsonl']);
    expect((await snapshotIn(directory).load()).get('a')).toEqual(loaded);
  });

  it('writes the list anew when its items are not the ones it wrote (a rebuilt list)', async () => {
    const directory = folder();
    const snapshot = snapshotIn(directory);
    snapshot.changed('a', { name: 'a', timeline: { points: items(1, 2) } });
    await snapshot.flush();
    snapshot.changed('a', { name: 'a', timeline: { points: items(7, 8) } });
    await snapshot.flush();
    expect(readFileSync(join(directory, 'a.timeline.points.jsonl'), 'utf8')).toBe('{"n":7}\n{"n":8}\n');
  });

  it('with a key, appends the new items of a list whose items are made anew each time it is read', async () => {
    const directory = folder();
    const snapshot = snapshotIn(directory, [], 'n');
    const listFile = join(directory, 'a.timeline.points.jsonl');
    let kept = [1, 2];
    // Each read makes new objects, as a timeline kept in columns does.
    const value = {
      name: 'a',
      timeline: {
        get points() {
          return items(...kept);
        },
      },
    } as Value;
    snapshot.changed('a', value);
    await snapshot.flush();
    kept = [2, 3, 4];
    snapshot.changed('a', value);
    await snapshot.flush();
    expect(readFileSync(listFile, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n{"n":4}\n');
    // More came than the list keeps (its last written item is gone): the file is written anew.
    kept = [10, 11, 12, 13, 14];
    snapshot.changed('a', value);
    await snapshot.flush();
    expect(readFileSync(listFile, 'utf8')).toBe('{"n":10}\n{"n":11}\n{"n":12}\n{"n":13}\n{"n":14}\n');
    expect((await snapshotIn(directory, [], 'n').load()).get('a')?.timeline.points).toEqual(
      items(10, 11, 12, 13, 14),
    );
  });

  it('reads no item of a list whose holder gives its own new items (regression: every flush made a column timeline build its points)', async () => {
    const directory = folder();
    const snapshot = snapshotIn(directory, [], 'n');
    const kept = [1, 2];
    let reads = 0;
    // As a column timeline: the items are made when read (a getter on the prototype, which a spread leaves
    // alone), and the new items are made from the holder's own data.
    class Holder {
      get points(): Item[] {
        reads++;
        return items(...kept);
      }
      itemsAfter(name: string, last: unknown) {
        if (name !== 'points') return null;
        const from = last === undefined ? 0 : kept.indexOf(last as number) + 1;
        if (last !== undefined && from === 0) return undefined;
        return items(...kept.slice(from));
      }
    }
    const value = { name: 'a', timeline: new Holder() } as Value;
    snapshot.changed('a', value);
    await snapshot.flush();
    kept.push(3);
    snapshot.changed('a', value);
    await snapshot.flush();
    expect(readFileSync(join(directory, 'a.timeline.points.jsonl'), 'utf8')).toBe(
      '{"n":1}\n{"n":2}\n{"n":3}\n',
    );
    expect(JSON.parse(readFileSync(join(directory, 'a.json'), 'utf8'))).toEqual({
      name: 'a',
      timeline: { points: [] },
    });
    expect(reads).toBe(0);
  });

  it('does not read a value replaced while the flush waited, and writes the newer one (on close too)', async () => {
    const directory = folder();
    const snapshot = snapshotIn(directory);
    let readsOfOld = 0;
    const old = {
      name: 'old',
      timeline: {
        get points() {
          readsOfOld++;
          return items(1);
        },
      },
    } as Value;
    snapshot.changed('a', old);
    const flushing = snapshot.flush();
    // The flush waits for its folder first: the value changes meanwhile, and again during the last flush.
    snapshot.changed('a', { name: 'new', timeline: { points: items(1, 2) } });
    await flushing;
    expect(readsOfOld).toBe(0);
    const closing = snapshot.close();
    snapshot.changed('a', { name: 'newest', timeline: { points: items(1, 2, 3) } });
    await closing;
    const loaded = (await snapshotIn(directory).load()).get('a');
    expect(loaded).toEqual({ name: 'newest', timeline: { points: items(1, 2, 3) } });
  });

  it('lets the event loop run between slices of a long flush, and writes every value', async () => {
    // What the event loop sees of the folder while a flush of twenty values runs: how many value files exist.
    const seenDuringFlush = async (sliceMs: number) => {
      const directory = folder();
      const snapshot = new StateSnapshot<Value>({
        directory,
        parse: (value) => ({ ok: true, value: value as Value }),
        lists: [{ path: ['timeline', 'points'], limit: LIMIT }],
        flushIntervalMs: 60_000,
        sliceMs,
      });
      for (let n = 0; n < 20; n++)
        snapshot.changed(`v${n}`, { name: `v${n}`, timeline: { points: items(n) } });
      const seen = new Set<number>();
      let done = false;
      const look = () => {
        if (done) return;
        seen.add(readdirSync(directory).filter((name) => name.endsWith('.json')).length);
        setImmediate(look);
      };
      setImmediate(look);
      await snapshot.flush();
      done = true;
      expect((await snapshotIn(directory).load()).size).toBe(20);
      return [...seen].filter((count) => count > 0 && count < 20);
    };
    // A slice of 0 ms yields after every value; one of a minute writes the twenty in one go.
    expect((await seenDuringFlush(0)).length).toBeGreaterThan(0);
    expect(await seenDuringFlush(60_000)).toEqual([]);
  });

  it('removes the value and its list files together', async () => {
    const directory = folder();
    const snapshot = snapshotIn(directory);
    snapshot.changed('a', { name: 'a', timeline: { points: items(1) } });
    snapshot.changed('b', { name: 'b', timeline: { points: items(1) } });
    await snapshot.flush();
    // A second flush of 'a' appended its state to a log: removed with the rest.
    snapshot.changed('a', { name: 'a', timeline: { points: items(1, 2) } });
    await snapshot.flush();
    expect(readdirSync(directory)).toContain('a.state.jsonl');
    snapshot.removed('a');
    await snapshot.flush();
    expect(readdirSync(directory).sort()).toEqual(['b.json', 'b.timeline.points.jsonl']);
  });
});

describe('StateSnapshot state log', () => {
  const snapshotEvery = (directory: string, checkpointEvery: number, problems: string[] = []) =>
    new StateSnapshot<Value>({
      directory,
      parse: (value) =>
        typeof (value as Value).name === 'string'
          ? { ok: true, value: value as Value }
          : { ok: false, reason: 'no name' },
      lists: [{ path: ['timeline', 'points'], limit: LIMIT }],
      flushIntervalMs: 60_000,
      checkpointEvery,
      onProblem: (problem) => problems.push(`${problem.id} ${problem.action}: ${problem.reason}`),
    });
  const named = (name: string) => ({ name, timeline: { points: [] } });
  const fileOf = (directory: string) => JSON.parse(readFileSync(join(directory, 'a.json'), 'utf8'));
  const logOf = (directory: string) =>
    readFileSync(join(directory, 'a.state.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line).name);

  it('appends each flush to the log between files written whole, and reads the newest state back', async () => {
    const directory = folder();
    const snapshot = snapshotEvery(directory, 2);
    const value: Value = { name: 'v1', timeline: { points: items(1) } };
    snapshot.changed('a', value);
    await snapshot.flush();
    // The first flush in a process writes the file whole and leaves no log.
    expect(fileOf(directory)).toEqual(named('v1'));
    expect(readdirSync(directory).sort()).toEqual(['a.json', 'a.timeline.points.jsonl']);
    for (const name of ['v2', 'v3']) {
      value.name = name;
      snapshot.changed('a', value);
      await snapshot.flush();
    }
    expect(fileOf(directory)).toEqual(named('v1'));
    expect(logOf(directory)).toEqual(['v2', 'v3']);
    expect((await snapshotEvery(directory, 2).load()).get('a')?.name).toBe('v3');
    // The third flush after the file: written whole again, the log removed.
    value.name = 'v4';
    snapshot.changed('a', value);
    await snapshot.flush();
    expect(fileOf(directory)).toEqual(named('v4'));
    expect(readdirSync(directory)).not.toContain('a.state.jsonl');
    expect((await snapshotEvery(directory, 2).load()).get('a')).toEqual(value);
  });

  it('at 0, writes the file whole at every flush and keeps no log', async () => {
    const directory = folder();
    const snapshot = snapshotEvery(directory, 0);
    for (const name of ['v1', 'v2', 'v3']) {
      snapshot.changed('a', { name, timeline: { points: [] } });
      await snapshot.flush();
      expect(fileOf(directory)).toEqual(named(name));
      expect(readdirSync(directory)).not.toContain('a.state.jsonl');
    }
  });

  it("reads the log's last whole line: a line torn by a kill during an append is skipped", async () => {
    const directory = folder();
    writeFileSync(join(directory, 'a.json'), JSON.stringify(named('v1')));
    writeFileSync(join(directory, 'a.state.jsonl'), `${JSON.stringify(named('v2'))}\n{"name":"v3","time`);
    const problems: string[] = [];
    expect((await snapshotEvery(directory, 2, problems).load()).get('a')?.name).toBe('v2');
    expect(problems).toEqual([]);
    // A log whose only line is torn: the file's state.
    writeFileSync(join(directory, 'a.state.jsonl'), '{"name":"v3","time');
    expect((await snapshotEvery(directory, 2).load()).get('a')?.name).toBe('v1');
  });

  it('loads a value whose process was killed before its first file was renamed into place (a log alone)', async () => {
    const directory = folder();
    writeFileSync(join(directory, 'a.state.jsonl'), `${JSON.stringify(named('v1'))}\n`);
    expect((await snapshotEvery(directory, 2).load()).get('a')?.name).toBe('v1');
  });

  it('after a restart, the first flush writes the file whole and removes the old log', async () => {
    const directory = folder();
    const first = snapshotEvery(directory, 8);
    for (const name of ['v1', 'v2']) {
      first.changed('a', { name, timeline: { points: [] } });
      await first.flush();
    }
    expect(logOf(directory)).toEqual(['v2']);
    const second = snapshotEvery(directory, 8);
    const loaded = (await second.load()).get('a') as Value;
    expect(loaded.name).toBe('v2');
    second.changed('a', { ...loaded, name: 'v3' });
    await second.flush();
    expect(fileOf(directory)).toEqual(named('v3'));
    expect(readdirSync(directory)).not.toContain('a.state.jsonl');
  });

  it('sets aside the file and the log of a value that does not pass, and reports it', async () => {
    const directory = folder();
    writeFileSync(join(directory, 'a.json'), JSON.stringify(named('v1')));
    writeFileSync(join(directory, 'a.state.jsonl'), '{"timeline":{"points":[]}}\n');
    const problems: string[] = [];
    expect((await snapshotEvery(directory, 2, problems).load()).size).toBe(0);
    expect(problems).toEqual(['a load: no name']);
    expect(readdirSync(directory).sort()).toEqual(['a.json.invalid', 'a.state.jsonl.invalid']);
  });
});
