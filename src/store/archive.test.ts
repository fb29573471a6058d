import { appendFile, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { ArchiveEntry } from '../compaction/archive-sink.js';
import { BarometerValidationError } from '../errors/validation.js';
import { ArchiveError, ArchiveStore, decodeArchive, encodeRecord } from './archive.js';

const roots: string[] = [];
let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-archive-'));
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
        BarometerValidationError,
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

  it('answers BR_ERR_ARCHIVE_NOT_FOUND for an archive never written', async () => {
    const store = new ArchiveStore({ root });
    await expect(store.readArchive('s', 'none')).rejects.toMatchObject({ code: 'BR_ERR_ARCHIVE_NOT_FOUND' });
  });

  it('reads no file a link planted in the archive folder leads to outside it, file or session folder (issue 40)', async () => {
    // A real archive file outside the store's folder: a link must not make it readable through the store.
    const outside = await mkdtemp(join(tmpdir(), 'barometer-outside-'));
    roots.push(outside);
    const elsewhere = new ArchiveStore({ root: outside });
    const { path } = await elsewhere.append('x', 'secret', [entry('a', 'not yours')]);
    const store = new ArchiveStore({ root });
    await store.append('s', 'kept', [entry('a', 'yours')]);
    await symlink(path, join(root, 's', 'linked.log'));
    await symlink(join(outside, 'x'), join(root, 'folder'));
    for (const [session, task] of [
      ['s', 'linked'],
      ['folder', 'secret'],
    ] as const) {
      await expect(store.readArchive(session, task)).rejects.toMatchObject({
        code: 'BR_ERR_ARCHIVE_NOT_FOUND',
        message: expect.stringContaining('outside the archive folder'),
      });
      await expect(store.readItem(session, task, 'a')).rejects.toBeInstanceOf(ArchiveError);
    }
    // A link inside the folder reads as its target does.
    await symlink(join(root, 's', 'kept.log'), join(root, 's', 'alias.log'));
    expect((await store.readArchive('s', 'alias')).map((record) => record.content)).toEqual(['yours']);
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

  it('skips a damaged record mid-file and returns the records before and after it, reporting what it skipped', async () => {
    const damaged = Buffer.from(whole);
    damaged[lastStart - 4] = 'X'.charCodeAt(0);
    const decoded = decodeArchive(damaged);
    expect(decoded.records.map((record) => record.itemId)).toEqual(['i0', 'i2']);
    const middleStart = (records[0] as Buffer).length;
    expect(decoded.skipped).toEqual([{ offset: middleStart, bytes: lastStart - middleStart }]);
    expect(decoded.tornTail).toBe(false);
    const store = new ArchiveStore({ root });
    await store.append('s', 't', [entry('a', 'x')]);
    await writeFile(store.pathFor('s', 't'), damaged);
    expect((await store.readArchive('s', 't')).map((record) => record.itemId)).toEqual(['i0', 'i2']);
    expect((await store.inspectArchive('s', 't')).skipped).toHaveLength(1);
  });

  it('never returns a record whose hash fails, even when its payload is valid JSON', () => {
    const damaged = Buffer.from(whole);
    const at = damaged.indexOf('alpha');
    damaged[at] = 'A'.charCodeAt(0);
    const decoded = decodeArchive(damaged);
    expect(decoded.records.map((record) => record.itemId)).toEqual(['i1', 'i2']);
    expect(decoded.records.some((record) => record.content.includes('Alpha'))).toBe(false);
    expect(decoded.skipped).toEqual([{ offset: 0, bytes: (records[0] as Buffer).length }]);
  });

  it('reads back every valid record of a file with garbage between them, whatever the garbage', () => {
    const fakeHeader = Buffer.from(`HRA1 5 ${'0'.repeat(64)}\nhello\n`, 'latin1');
    const garbages = [
      Buffer.alloc(4096),
      Buffer.from('HRA1 999999 abc\nnot a record\n'),
      fakeHeader,
      Buffer.from('HRA1 12'),
      (records[1] as Buffer).subarray(0, 40),
      (records[1] as Buffer).subarray(0, 120),
      Buffer.from('HRA1 HRA1 HRA1 '),
    ];
    for (const garbage of garbages) {
      const file = Buffer.concat([
        records[0] as Buffer,
        garbage,
        records[1] as Buffer,
        garbage,
        records[2] as Buffer,
      ]);
      const decoded = decodeArchive(file);
      expect(decoded.records.map((record) => record.itemId)).toEqual(['i0', 'i1', 'i2']);
      expect(decoded.skipped).toEqual([
        { offset: (records[0] as Buffer).length, bytes: garbage.length },
        {
          offset: (records[0] as Buffer).length + garbage.length + (records[1] as Buffer).length,
          bytes: garbage.length,
        },
      ]);
      expect(decoded.tornTail).toBe(false);
      expect(decoded.validBytes).toBe(file.length);
    }
  });

  it('appends after a torn tail without truncating it: the torn bytes are skipped and the next record reads back', async () => {
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
    const decoded = decodeArchive(await readFile(path));
    expect(decoded.tornTail).toBe(false);
    expect(decoded.skipped).toHaveLength(1);
  });

  it("a record torn by a killed process and buried by another process's append never makes the file unreadable", async () => {
    // Regression: the CLI was killed mid-append, then the server appended; every read answered BR_ERR_INTEGRITY.
    const cli = new ArchiveStore({ root });
    const server = new ArchiveStore({ root });
    await cli.append('s', 't', [entry('before', 'kept before')]);
    const path = cli.pathFor('s', 't');
    const intact = (await readFile(path)).length;
    for (const cut of [3, 30, 90, 200]) {
      // A torn append: the first `cut` bytes of a record, as a kill between two write calls leaves them.
      const torn = encodeRecord({
        sessionId: 's',
        taskId: 't',
        archivedAt: 'x',
        ...entry(`torn${cut}`, 'y'.repeat(300)),
      });
      await appendFile(path, torn.subarray(0, cut));
      await server.append('s', 't', [entry(`after${cut}`, `kept after ${cut}`)]);
    }
    const decoded = await server.inspectArchive('s', 't');
    expect(decoded.records.map((record) => record.itemId)).toEqual([
      'before',
      'after3',
      'after30',
      'after90',
      'after200',
    ]);
    expect(decoded.skipped.map((region) => region.bytes)).toEqual([3, 30, 90, 200]);
    expect(decoded.skipped[0]?.offset).toBe(intact);
    await expect(server.readLocation(`${path}#after200`)).resolves.toMatchObject({
      content: 'kept after 200',
    });
  });
});

describe('json entries', () => {
  const message = {
    role: 'tool',
    tool_call_id: 'call_1',
    content: 'npm test output line one\nsecond line with "quotes" and \\ backslash\nplain words to grep for',
  };

  it('stores a JSON entry encoded once, so grep on the file finds its text, and reads it back byte for byte', async () => {
    const store = new ArchiveStore({ root });
    const content = JSON.stringify(message);
    const { path } = await store.append('s', 'c', [
      { itemId: 'call_1:result', kind: 'message', field: 'message', json: true, content },
    ]);
    const file = await readFile(path, 'utf8');
    expect(file).toContain('plain words to grep for');
    expect(file).toContain('npm test output line one\\nsecond line with \\"quotes\\"');
    const [record] = await store.readArchive('s', 'c');
    expect(record?.content === content).toBe(true);
    expect(JSON.parse(record?.content ?? '')).toEqual(message);
    expect(record).toMatchObject({ json: true, kind: 'message', field: 'message' });
  });

  it('stores JSON text that is a primitive or not canonical as a string, still byte for byte', async () => {
    const store = new ArchiveStore({ root });
    const samples = ['"just a string"', '42', 'null', '{ "spaced": true }', '{"a":1.0}', 'not json at all'];
    await store.append(
      's',
      'p',
      samples.map((content, index) => ({
        itemId: `p${index}`,
        kind: 'message',
        field: 'message',
        json: true,
        content,
      })),
    );
    expect((await store.readArchive('s', 'p')).map((record) => record.content)).toEqual(samples);
  });
});

describe('reserve', () => {
  it('creates an archive once: a second store asking for the same name is told it exists', async () => {
    const first = new ArchiveStore({ root });
    const second = new ArchiveStore({ root });
    const answers = await Promise.all([
      first.reserve('s', 'compaction-1'),
      second.reserve('s', 'compaction-1'),
      first.reserve('s', 'compaction-1'),
    ]);
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(await first.readArchive('s', 'compaction-1')).toEqual([]);
    await expect(first.reserve('../x', 'compaction-1')).rejects.toBeInstanceOf(BarometerValidationError);
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
      code: 'BR_ERR_ARCHIVE_NOT_FOUND',
    });
  });

  it('refuses a location outside the archive root', async () => {
    const store = new ArchiveStore({ root });
    await expect(store.readLocation('/etc/passwd.log#x')).rejects.toBeInstanceOf(BarometerValidationError);
    await expect(store.readLocation(`${root}/../x/y.log#x`)).rejects.toBeInstanceOf(BarometerValidationError);
    await expect(store.readLocation(`${root}/s/../../t.log#x`)).rejects.toBeInstanceOf(
      BarometerValidationError,
    );
  });
});

describe('readItem', () => {
  it('answers BR_ERR_ARCHIVE_NOT_FOUND for an item not in an undamaged archive, or only in a torn tail', async () => {
    const store = new ArchiveStore({ root, durable: false });
    const { path } = await store.append('s', 't', [entry('a', 'first'), entry('b', 'second')]);
    await expect(store.readItem('s', 't', 'b')).resolves.toMatchObject({ content: 'second' });
    await expect(store.readItem('s', 't', 'z')).rejects.toMatchObject({ code: 'BR_ERR_ARCHIVE_NOT_FOUND' });
    // An append cut short (or still under way) at the end: nothing that resolved is in it.
    const torn = encodeRecord({ ...entry('c', 'third'), sessionId: 's', taskId: 't', archivedAt: 'x' });
    await appendFile(path, torn.subarray(0, torn.length - 5));
    await expect(store.readItem('s', 't', 'c')).rejects.toMatchObject({ code: 'BR_ERR_ARCHIVE_NOT_FOUND' });
  });

  it('answers BR_ERR_INTEGRITY for an item missing from an archive damaged before its last whole record', async () => {
    const store = new ArchiveStore({ root, durable: false });
    const { path } = await store.append('s', 't', [
      entry('a', 'first'),
      entry('b', 'second'),
      entry('c', 'third'),
    ]);
    const bytes = await readFile(path);
    bytes[bytes.indexOf('second')] = 'S'.charCodeAt(0);
    await writeFile(path, bytes);
    const failure = store.readItem('s', 't', 'b');
    await expect(failure).rejects.toBeInstanceOf(ArchiveError);
    await expect(failure).rejects.toMatchObject({ code: 'BR_ERR_INTEGRITY', status: 500, exitCode: 4 });
    await expect(store.readItem('s', 't', 'c')).resolves.toMatchObject({ content: 'third' });
  });
});
