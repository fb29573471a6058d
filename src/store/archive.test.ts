import { mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { ArchiveEntry } from '../compaction/archive-sink.js';
import { HeadroomValidationError } from '../errors/validation.js';
import { ArchiveError, ArchiveStore, decodeArchive, encodeRecord } from './archive.js';

const roots: string[] = [];
let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'headroom-archive-'));
  roots.push(root);
});
afterAll(async () => {
  await Promise.all(roots.map((dir) => rm(dir, { recursive: true, force: true })));
});

const entry = (itemId: string, content: string): ArchiveEntry => ({
  itemId,
  kind: 'tool-result',
  field: 'content',
  content,
});
const fixedClock = () => Date.UTC(2026, 10, 3, 12, 0, 0);

describe('ArchiveStore.append and readArchive', () => {
  it('writes <root>/<session>/<task>.log and reads the records back in order', async () => {
    const store = new ArchiveStore({ root, now: fixedClock });
    const { path, records } = await store.append('s1', 't1', [entry('a', 'first'), entry('b', 'second')]);
    expect(path).toBe(join(root, 's1', 't1.log'));
    expect(records).toBe(2);
    await store.append('s1', 't1', [entry('c', 'third')]);
    expect(await store.readArchive('s1', 't1')).toEqual([
      {
        sessionId: 's1',
        taskId: 't1',
        archivedAt: '2026-11-03T12:00:00.000Z',
        itemId: 'a',
        kind: 'tool-result',
        field: 'content',
        content: 'first',
      },
      {
        sessionId: 's1',
        taskId: 't1',
        archivedAt: '2026-11-03T12:00:00.000Z',
        itemId: 'b',
        kind: 'tool-result',
        field: 'content',
        content: 'second',
      },
      {
        sessionId: 's1',
        taskId: 't1',
        archivedAt: '2026-11-03T12:00:00.000Z',
        itemId: 'c',
        kind: 'tool-result',
        field: 'content',
        content: 'third',
      },
    ]);
  });

  it('gives back content byte for byte: unicode, lone surrogates, NUL and control characters, CRLF', async () => {
    const store = new ArchiveStore({ root });
    let everyLatin1 = '';
    for (let code = 0; code < 256; code += 1) everyLatin1 += String.fromCharCode(code);
    const samples = [
      'naïve café — 日本語 — 🦀🧪 — e\u0301',
      '\uD800 lone high, lone low \uDFFF, reversed \uDC00\uD800',
      `\u0000\u0001\u001f\u007f${everyLatin1}`,
      'line one\r\nline two\rline three\n\n',
      'HRA1 12 0000000000000000000000000000000000000000000000000000000000000000\nfake header inside content',
      '',
    ];
    await store.append(
      's',
      't',
      samples.map((content, index) => entry(`i${index}`, content)),
    );
    const back = await store.readArchive('s', 't');
    expect(back.map((record) => record.content)).toEqual(samples);
    for (const [index, sample] of samples.entries()) expect(back[index]?.content === sample).toBe(true);
  });

  it('gives back a huge string unchanged', async () => {
    const store = new ArchiveStore({ root, durable: false });
    const unit = 'log line 🦀 with ünïcödé and "quotes" \\ backslashes\n';
    const huge = unit.repeat(Math.ceil((24 * 1024 * 1024) / unit.length));
    await store.append('s', 'big', [entry('huge', huge)]);
    const [record] = await store.readArchive('s', 'big');
    expect(record?.content.length).toBe(huge.length);
    expect(record?.content === huge).toBe(true);
  });

  it('validates session and task ids before they touch a path, and writes nothing', async () => {
    const store = new ArchiveStore({ root });
    for (const [sessionId, taskId] of [
      ['../outside', 't'],
      ['s', '../../etc/passwd'],
      ['s', 'a/b'],
      ['s', 'a..b'],
      ['', 't'],
      ['.hidden', 't'],
      ['s', 'x'.repeat(129)],
    ] as const) {
      await expect(store.append(sessionId, taskId, [entry('a', 'x')])).rejects.toBeInstanceOf(
        HeadroomValidationError,
      );
    }
    expect(await readdir(root)).toEqual([]);
  });

  it('serializes concurrent appends to one file', async () => {
    const store = new ArchiveStore({ root, durable: false });
    await Promise.all(
      Array.from({ length: 25 }, (_, index) =>
        store.append('s', 't', [entry(`i${index}`, `content ${index}`.repeat(500))]),
      ),
    );
    const records = await store.readArchive('s', 't');
    expect(records.map((record) => record.itemId).sort()).toEqual(
      Array.from({ length: 25 }, (_, index) => `i${index}`).sort(),
    );
  });

  it('answers HR_ERR_ARCHIVE_NOT_FOUND for an archive never written', async () => {
    const store = new ArchiveStore({ root });
    await expect(store.readArchive('s', 'none')).rejects.toMatchObject({ code: 'HR_ERR_ARCHIVE_NOT_FOUND' });
  });
});

describe('torn writes', () => {
  const records = ['alpha', 'beta 🦀', 'gamma'].map((content, index) =>
    encodeRecord({
      sessionId: 's',
      taskId: 't',
      archivedAt: 'x',
      itemId: `i${index}`,
      kind: 'tool-result',
      field: 'content',
      content,
    }),
  );
  const whole = Buffer.concat(records);
  const lastStart = whole.length - (records[2] as Buffer).length;

  it('skips a last record cut at any byte, and never returns part of it', () => {
    for (let cut = lastStart; cut < whole.length; cut += 1) {
      const decoded = decodeArchive(whole.subarray(0, cut));
      expect(decoded.records.map((record) => record.itemId)).toEqual(['i0', 'i1']);
      expect(decoded.tornTail).toBe(cut > lastStart);
      expect(decoded.validBytes).toBe(lastStart);
    }
    expect(decodeArchive(whole).records).toHaveLength(3);
  });

  it('treats a full-length last record with garbage (power loss) as torn', () => {
    const damaged = Buffer.from(whole);
    damaged[whole.length - 3] = 0;
    expect(decodeArchive(damaged)).toMatchObject({ tornTail: true, validBytes: lastStart });
  });

  it('reports damage before the last record as HR_ERR_INTEGRITY', async () => {
    const damaged = Buffer.from(whole);
    damaged[lastStart - 4] = 'X'.charCodeAt(0);
    expect(() => decodeArchive(damaged)).toThrow(ArchiveError);
    const store = new ArchiveStore({ root });
    await store.append('s', 't', [entry('a', 'x')]);
    await writeFile(store.pathFor('s', 't'), damaged);
    await expect(store.readArchive('s', 't')).rejects.toMatchObject({ code: 'HR_ERR_INTEGRITY' });
  });

  it('cuts a torn tail off before appending, so the next record is not buried behind it', async () => {
    const store = new ArchiveStore({ root });
    await store.append('s', 't', [entry('a', 'first'), entry('b', 'second '.repeat(100))]);
    const path = store.pathFor('s', 't');
    const size = (await readFile(path)).length;
    await truncate(path, size - 50);
    // A new process (a new store) appends after the crash.
    const next = new ArchiveStore({ root });
    await next.append('s', 't', [entry('c', 'third')]);
    const back = await next.readArchive('s', 't');
    expect(back.map((record) => record.itemId)).toEqual(['a', 'c']);
    expect(decodeArchive(await readFile(path)).tornTail).toBe(false);
  });
});

describe('readLocation', () => {
  it('reads the record a tombstone points at', async () => {
    const store = new ArchiveStore({ root });
    const { path } = await store.append('s', 't', [
      entry('call_1:result', 'output one'),
      entry('call_2:result', 'two'),
    ]);
    await expect(store.readLocation(`${path}#call_2:result`)).resolves.toMatchObject({ content: 'two' });
    await expect(store.readLocation(`${path}#missing`)).rejects.toMatchObject({
      code: 'HR_ERR_ARCHIVE_NOT_FOUND',
    });
  });

  it('refuses a location outside the archive root', async () => {
    const store = new ArchiveStore({ root });
    await expect(store.readLocation('/etc/passwd.log#x')).rejects.toBeInstanceOf(HeadroomValidationError);
    await expect(store.readLocation(`${root}/../x/y.log#x`)).rejects.toBeInstanceOf(HeadroomValidationError);
    await expect(store.readLocation(`${root}/s/../../t.log#x`)).rejects.toBeInstanceOf(
      HeadroomValidationError,
    );
  });
});
