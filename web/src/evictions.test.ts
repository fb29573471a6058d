import { describe, expect, it } from 'vitest';
import type { TimelineMarker } from '../../src/contract/index.js';
import { evictionRows } from './evictions.js';

const marker = (index: number, subTask: string, tokensFreed: number): TimelineMarker => ({
  type: 'compaction',
  timestamp: `2026-12-02T01:0${index}:00.000Z`,
  index,
  detail: `barometer evicted 3 items (${tokensFreed} tokens) of ${subTask}`,
  evicted: {
    items: 3,
    tokensFreed,
    subTask,
    boundary: 'command: git add -A && git commit',
    archive: { sessionId: 'a b', taskId: subTask },
  },
});

describe('evictionRows', () => {
  it('lists each eviction newest first, with the calls made since and a link to its archive', () => {
    const rows = evictionRows({
      generations: 9,
      markers: [
        marker(4, 'subtask-1', 20_000),
        { type: 'compaction', timestamp: '2026-12-02T01:05:00.000Z', index: 5, detail: 'auto compaction' },
        marker(7, 'subtask-2', 5_000),
      ],
    });
    expect(rows.map((row) => [row.subTask, row.tokensFreed, row.callsSince])).toEqual([
      ['subtask-2', 5_000, 2],
      ['subtask-1', 20_000, 5],
    ]);
    expect(rows[0]).toMatchObject({
      generation: 7,
      items: 3,
      boundary: 'command: git add -A && git commit',
      archiveHref: '/sessions/a%20b/archives/subtask-2',
      archiveApi: '/api/v1/archives/a%20b/subtask-2',
    });
  });

  it('lists nothing for compactions that were not barometer’s evictions', () => {
    expect(
      evictionRows({
        generations: 3,
        markers: [{ type: 'compaction', timestamp: '2026-12-02T01:05:00.000Z', index: 2, detail: 'auto' }],
      }),
    ).toEqual([]);
  });
});
