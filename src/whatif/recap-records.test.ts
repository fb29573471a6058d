import { describe, expect, it } from 'vitest';
import type { HistoryItem } from '../compaction/history-item.js';
import { recapRecords } from './recap-records.js';

const item = (id: string): HistoryItem => ({ kind: 'user', id, text: id });

describe('recapRecords', () => {
  const kept = item('kept');
  const logged = item('logged');
  const reread = item('reread');
  const recap = item('recap');
  const sources = new Map<HistoryItem, number>([
    [kept, 0],
    [logged, 3],
    [reread, -1],
  ]);
  const sourceOf = (value: HistoryItem) => sources.get(value) ?? -1;

  it('records each logged item the recap replaced at its id in the recap’s archive', () => {
    expect(recapRecords([logged, reread, kept], [recap, kept], sourceOf, '/a/recap-1.log')).toEqual([
      { location: '/a/recap-1.log#logged', source: 3, field: 'item' },
    ]);
  });

  it('records nothing without an archive path', () => {
    expect(recapRecords([logged, kept], [recap, kept], sourceOf, undefined)).toEqual([]);
  });
});
