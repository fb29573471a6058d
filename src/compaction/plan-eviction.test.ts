import { describe, expect, it } from 'vitest';
import type { HistoryItem } from './history-item.js';
import { buildHistoryIndex, indexItems, planEviction } from './plan-eviction.js';

const big = 'x'.repeat(1000);
const history: HistoryItem[] = [
  { kind: 'user', id: 'u1', text: 'start' },
  { kind: 'tool-call', id: 'c1', callId: 'c1', name: 'read_file', input: { path: 'a.ts' }, taskId: 't1' },
  { kind: 'tool-result', id: 'c1:result', callId: 'c1', content: big, taskId: 't1' },
  // Only the result is tagged: the call still belongs to the same unit.
  { kind: 'tool-call', id: 'c2', callId: 'c2', name: 'write_file', input: { path: 'b.ts', content: big } },
  { kind: 'tool-result', id: 'c2:result', callId: 'c2', content: big, taskId: 't1' },
  { kind: 'tool-call', id: 'c3', callId: 'c3', name: 'bash', input: { command: 'ls' }, taskId: 't2' },
  { kind: 'tool-result', id: 'c3:result', callId: 'c3', content: big, taskId: 't2' },
  { kind: 'tool-result', id: 'c4:result', callId: 'c4', content: 'short output', taskId: 't1' },
];

describe('planEviction', () => {
  it("plans a task's long results and long call inputs, in history order", () => {
    const steps = planEviction(history, 't1');
    expect(steps.map(({ position, field }) => [position, field])).toEqual([
      [2, 'content'],
      [3, 'input'],
      [4, 'content'],
    ]);
    expect(steps[1]?.original).toBe(JSON.stringify({ path: 'b.ts', content: big }));
  });

  it('keeps short content (a path argument, a short output) in place', () => {
    const positions = planEviction(history, 't1').map((step) => step.position);
    expect(positions).not.toContain(1);
    expect(positions).not.toContain(7);
  });

  it('honours keepUpToChars', () => {
    expect(planEviction(history, 't1', { keepUpToChars: 5 }).map((step) => step.position)).toEqual([
      1, 2, 3, 4, 7,
    ]);
  });

  it('skips items already archived', () => {
    const evicted = history.map((item) =>
      item.id === 'c1:result' ? { ...item, archivedTo: '/a#c1:result' } : item,
    );
    expect(planEviction(evicted, 't1').map((step) => step.position)).toEqual([3, 4]);
  });

  it('gives the same plan with a prebuilt index, and rebuilds an index that does not match', () => {
    const index = buildHistoryIndex(history);
    expect(planEviction(history, 't1', { index })).toEqual(planEviction(history, 't1'));
    const stale = buildHistoryIndex(history.slice(3));
    expect(planEviction(history, 't1', { index: stale })).toEqual(planEviction(history, 't1'));
  });

  it('extends an index with appended items', () => {
    const index = buildHistoryIndex(history.slice(0, 5));
    indexItems(index, history.slice(5), 5);
    expect(index).toEqual(buildHistoryIndex(history));
  });

  it('plans nothing for an unknown task', () => {
    expect(planEviction(history, 'nope')).toEqual([]);
  });
});
