import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tombstoneText } from '../compaction/archive-sink.js';
import { apiAddresses, archiveApiAddress, findArchiveAddress } from './archive-address.js';

const ROOT = join(sep, 'data dir', 'archives');

describe('findArchiveAddress', () => {
  it('reads a whole tombstone, as an agent pastes it back', () => {
    const tombstone = `${tombstoneText('t1', join(ROOT, 's1', 't1.log'), 'call_7:result')}\nTask t1 result: done and tested`;
    expect(findArchiveAddress(tombstone, ROOT)).toEqual({
      sessionId: 's1',
      taskId: 't1',
      itemId: 'call_7:result',
    });
  });

  it('reads the API address that apiAddresses writes for the same tombstone', () => {
    const tombstone = tombstoneText('t1', join(ROOT, 's1', 't1.log'), 'call_7:result');
    const overHttp = apiAddresses(tombstone, ROOT);
    expect(overHttp).toBe(
      '[Task t1 completed: output evicted to archive] /api/v1/archives/s1/t1?item=call_7%3Aresult',
    );
    expect(findArchiveAddress(overHttp, ROOT)).toEqual(findArchiveAddress(tombstone, ROOT));
    expect(findArchiveAddress(`http://127.0.0.1:8797${archiveApiAddress('s1', 't1')}`, ROOT)).toEqual({
      sessionId: 's1',
      taskId: 't1',
    });
  });

  it('finds nothing in a path under another root, or in plain text', () => {
    expect(findArchiveAddress(join(sep, 'elsewhere', 's1', 't1.log#x'), ROOT)).toBeUndefined();
    expect(findArchiveAddress('the output of the tests', ROOT)).toBeUndefined();
    expect(findArchiveAddress('/api/v1/archives/s1/t1?item=%E0%A4%A', ROOT)).toBeUndefined();
  });
});
