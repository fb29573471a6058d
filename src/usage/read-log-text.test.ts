import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOG_LINE_LIMIT_BYTES, readLogText, skippedLineNotes } from './read-log-text.js';

const dir = mkdtempSync(join(tmpdir(), 'barometer-log-text-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readLogText', () => {
  it('reads a log whole when no line is over the limit, whatever its chunks', async () => {
    const path = join(dir, 'plain.jsonl');
    const text = `${'{"a":"é"}\n'.repeat(20_000)}{"last":true}`;
    writeFileSync(path, text);
    expect(await readLogText(path)).toEqual({ text, skipped: [] });
  });

  it('leaves out a line over the limit as an empty line, keeping every other line and its number (issue 40)', async () => {
    const path = join(dir, 'huge.jsonl');
    const long = 'x'.repeat(200_000);
    writeFileSync(path, `{"n":1}\n${long}\n{"n":3}\n\n${long}`);
    // A limit under the line's size stands for the 64 MiB of a real log (a 1 GiB line made replay fail).
    const read = await readLogText(path, 100_000);
    expect(read.text).toBe('{"n":1}\n\n{"n":3}\n\n');
    expect(read.skipped).toEqual([
      { line: 2, bytes: 200_000 },
      { line: 5, bytes: 200_000 },
    ]);
    expect(skippedLineNotes('huge.jsonl', read.skipped)[0]).toBe(
      `huge.jsonl:2: a line of 200000 bytes, over the ${LOG_LINE_LIMIT_BYTES} a log line may hold; left out`,
    );
  });
});
