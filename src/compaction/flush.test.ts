import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { findCut, flush } from './flush.js';
import type { HistoryItem } from './history-item.js';

const user = (id: string): HistoryItem => ({ kind: 'user', id, text: `request ${id}` });
const assistant = (id: string): HistoryItem => ({ kind: 'assistant', id, text: `answer ${id}` });
const call = (callId: string): HistoryItem => ({
  kind: 'tool-call',
  id: callId,
  callId,
  name: 'bash',
  input: {},
});
const result = (callId: string): HistoryItem => ({
  kind: 'tool-result',
  id: `${callId}:result`,
  callId,
  content: 'out',
});

const history: HistoryItem[] = [
  { kind: 'system', id: 's', text: 'system prompt' },
  user('u1'),
  call('c1'),
  result('c1'),
  assistant('a1'),
  user('u2'),
  assistant('a2'),
  user('u3'),
  call('c3'),
  result('c3'),
  assistant('a3'),
];

describe('flush', () => {
  it('keeps the system items, puts the recap next, then the last keepTurns turns', () => {
    const flushed = flush(history, 'RECAP', { keepTurns: 2 });
    expect(flushed.map((item) => item.id)).toEqual([
      's',
      'recap-1',
      'u2',
      'a2',
      'u3',
      'c3',
      'c3:result',
      'a3',
    ]);
    expect(flushed[1]).toEqual({ kind: 'user', id: 'recap-1', text: 'RECAP', recap: true });
  });

  it('keeps two turns by default', () => {
    expect(flush(history, 'R').map((item) => item.id)).toEqual([
      's',
      'recap-1',
      'u2',
      'a2',
      'u3',
      'c3',
      'c3:result',
      'a3',
    ]);
  });

  it('keeps only the system items and the recap with keepTurns 0', () => {
    expect(flush(history, 'R', { keepTurns: 0 }).map((item) => item.id)).toEqual(['s', 'recap-1']);
  });

  it('keeps everything when there are fewer turns than keepTurns', () => {
    expect(flush(history, 'R', { keepTurns: 5 }).map((item) => item.id)).toEqual([
      'recap-1',
      ...history.map((item) => item.id),
    ]);
  });

  it('numbers recaps past the highest one, even once the earlier recap is gone', () => {
    const once = flush(history, 'R1', { keepTurns: 1 });
    const twice = flush([...once, user('u4')], 'R2', { keepTurns: 1 });
    expect(twice.map((item) => item.id)).toEqual(['s', 'recap-2', 'u4']);
    const thrice = flush([...twice, user('u5')], 'R3', { keepTurns: 1 });
    expect(thrice[1]?.id).toBe('recap-3');
  });

  it('does not count a recap as a turn', () => {
    const once = flush(history, 'R1', { keepTurns: 1 });
    expect(findCut(once, 1)).toBe(once.findIndex((item) => item.id === 'u3'));
  });

  it('rejects a negative or fractional keepTurns', () => {
    expect(() => flush(history, 'R', { keepTurns: -1 })).toThrow(BarometerValidationError);
    expect(() => flush(history, 'R', { keepTurns: 1.5 })).toThrow(/keepTurns/);
  });
});

describe('findCut never separates a call from its result', () => {
  it('moves the cut back to the turn of a call whose result is kept', () => {
    // The user spoke (u2) while c1 was running: the result of c1 arrives in u2's turn.
    const interleaved: HistoryItem[] = [
      user('u1'),
      call('c1'),
      user('u2'),
      result('c1'),
      assistant('a2'),
      user('u3'),
      assistant('a3'),
    ];
    expect(findCut(interleaved, 2)).toBe(0);
    expect(flush(interleaved, 'R', { keepTurns: 2 }).map((item) => item.id)).toEqual([
      'recap-1',
      ...interleaved.map((item) => item.id),
    ]);
  });

  it('follows a chain of such pairs back as far as needed', () => {
    const chained: HistoryItem[] = [
      user('u0'),
      assistant('a0'),
      user('u1'),
      call('c1'),
      user('u2'),
      result('c1'),
      call('c2'),
      user('u3'),
      result('c2'),
      assistant('a3'),
    ];
    // Keeping u3 keeps c2's result, so c2 (in u2's turn) too, so c1's result, so c1 (in u1's turn).
    expect(findCut(chained, 1)).toBe(2);
  });

  it('leaves every kept result with its call, for any keepTurns', () => {
    const interleaved: HistoryItem[] = [
      user('u1'),
      call('c1'),
      user('u2'),
      result('c1'),
      call('c2'),
      result('c2'),
      user('u3'),
      call('c3'),
      user('u4'),
      result('c3'),
    ];
    for (let keepTurns = 0; keepTurns <= 5; keepTurns += 1) {
      const kept = interleaved.slice(findCut(interleaved, keepTurns));
      const calls = new Set(kept.flatMap((item) => (item.kind === 'tool-call' ? [item.callId] : [])));
      const results = new Set(kept.flatMap((item) => (item.kind === 'tool-result' ? [item.callId] : [])));
      expect(calls).toEqual(results);
    }
  });
});
