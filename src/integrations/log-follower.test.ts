import { appendFileSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LogFollower } from './log-follower.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
function tempFile(): string {
  const folder = mkdtempSync(join(tmpdir(), 'barometer-follow-'));
  folders.push(folder);
  return join(folder, 'log.jsonl');
}

describe('LogFollower', () => {
  it('returns only complete lines and keeps a partial last line until its newline arrives', () => {
    const path = tempFile();
    writeFileSync(path, '{"a":1}\n{"b":');
    const follower = new LogFollower(path);
    expect(follower.read().lines).toEqual(['{"a":1}']);
    expect(follower.partial).toBe('{"b":');
    appendFileSync(path, '2}');
    expect(follower.read().lines).toEqual([]);
    appendFileSync(path, '\n{"c":3}\n');
    expect(follower.read().lines).toEqual(['{"b":2}', '{"c":3}']);
    expect(follower.partial).toBe('');
  });

  it('reads only the bytes added since the last read', () => {
    const path = tempFile();
    writeFileSync(path, `${'x'.repeat(1000)}\n`);
    const follower = new LogFollower(path);
    follower.read();
    expect(follower.offset).toBe(1001);
    expect(follower.changed()).toBe(false);
    appendFileSync(path, 'y\n');
    expect(follower.changed()).toBe(true);
    expect(follower.read().lines).toEqual(['y']);
    expect(follower.offset).toBe(1003);
  });

  it('decodes a UTF-8 character split between two writes', () => {
    const path = tempFile();
    const line = Buffer.from('{"text":"ü€😀"}\n', 'utf8');
    const follower = new LogFollower(path);
    writeFileSync(path, line.subarray(0, 11)); // inside the euro sign
    expect(follower.read().lines).toEqual([]);
    appendFileSync(path, line.subarray(11));
    expect(follower.read().lines).toEqual(['{"text":"ü€😀"}']);
  });

  it('starts again from the top when the file is truncated', () => {
    const path = tempFile();
    writeFileSync(path, '{"a":1}\n{"b":2}\n');
    const follower = new LogFollower(path);
    follower.read();
    truncateSync(path, 0);
    appendFileSync(path, '{"c":3}\n');
    const result = follower.read();
    expect(result).toEqual({ lines: ['{"c":3}'], restarted: true, gone: false });
  });

  it('starts again from the top when another file replaces it (rotation)', () => {
    const path = tempFile();
    writeFileSync(path, '{"old":1}\n{"old":2}\n{"old":3}\n');
    const follower = new LogFollower(path);
    follower.read();
    const replacement = `${path}.new`;
    writeFileSync(replacement, '{"new":1}\n{"new":2}\n{"new":3}\n{"new":4}\n');
    renameSync(replacement, path);
    const result = follower.read();
    expect(result.restarted).toBe(true);
    expect(result.lines).toEqual(['{"new":1}', '{"new":2}', '{"new":3}', '{"new":4}']);
  });

  it('says when the file is gone, and hands over a last line without newline only when it is JSON', () => {
    const path = tempFile();
    writeFileSync(path, '{"a":1}\n{"b":2}');
    const follower = new LogFollower(path);
    follower.read();
    expect(follower.flushPartial()).toBe('{"b":2}');
    writeFileSync(path, '{"a":1}\n{"b":2}\n{"c":');
    follower.read();
    expect(follower.flushPartial()).toBeUndefined();
    rmSync(path);
    expect(follower.read().gone).toBe(true);
  });
});
