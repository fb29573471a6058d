import { describe, expect, it } from 'vitest';
import { archiveRows } from './archive-view.js';

describe('archiveRows', () => {
  it('shows each record as it was archived, a tool input as indented JSON, and counts unreadable bytes', () => {
    const { rows, skippedBytes } = archiveRows({
      sessionId: 's',
      taskId: 'subtask-1',
      records: [
        {
          itemId: 'toolu_0_read:result',
          kind: 'tool-result',
          field: 'content',
          content: 'alpha line 0\nalpha line 1',
          sessionId: 's',
          taskId: 'subtask-1',
          archivedAt: '2026-12-02T01:00:00.000Z',
        },
        {
          itemId: 'toolu_1_bash:input',
          kind: 'tool-call',
          field: 'input',
          content: '{"command":"ls"}',
          json: true,
          sessionId: 's',
          taskId: 'subtask-1',
          archivedAt: '2026-12-02T01:00:00.000Z',
        },
      ],
      skipped: [{ offset: 10, bytes: 25 }],
    });
    expect(rows.map((row) => [row.label, row.lines])).toEqual([
      ['Tool result', 2],
      ['Tool input', 1],
    ]);
    expect(rows[0]?.pretty).toBe('alpha line 0\nalpha line 1');
    expect(rows[1]?.pretty).toBe('{\n  "command": "ls"\n}');
    expect(skippedBytes).toBe(25);
  });
});
