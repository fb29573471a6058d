import { describe, expect, it } from 'vitest';
import { parseWith } from '../errors/validation.js';
import { countHistoryTokens, type HistoryItem, HistorySchema, itemRole, itemText } from './history-item.js';

const items: HistoryItem[] = [
  { kind: 'system', id: 's', text: 'rules' },
  { kind: 'tool-call', id: 'c', callId: 'c', name: 'grep', input: { pattern: 'x' } },
  { kind: 'tool-result', id: 'c:result', callId: 'c', content: 'a.ts:1' },
  {
    kind: 'opaque',
    id: 'o',
    role: 'user',
    provider: 'openai',
    value: { type: 'image_url', image_url: { url: 'data:…' } },
  },
];

describe('history items', () => {
  it('give each item the role it plays in a provider message', () => {
    expect(items.map(itemRole)).toEqual(['system', 'assistant', 'tool', 'user']);
  });

  it('count a call as its name and JSON arguments, a result as its content, and opaque parts not at all', () => {
    expect(itemText(items[1] as HistoryItem)).toBe('grep {"pattern":"x"}');
    const chars = { name: 'chars', estimate: true, count: (text: string) => text.length };
    expect(countHistoryTokens(items, chars)).toBe(
      'rules'.length + 'grep {"pattern":"x"}'.length + 'a.ts:1'.length,
    );
  });

  it('validate strictly: an unknown kind or key is an issue naming the field', () => {
    expect(parseWith(HistorySchema, items).ok).toBe(true);
    const bad = parseWith(HistorySchema, [{ kind: 'user', id: 'u', text: 'x', extra: 1 }]);
    expect(bad.ok === false && bad.issues[0]?.field).toBe('[0].extra');
    expect(parseWith(HistorySchema, [{ kind: 'robot', id: 'r' }]).ok).toBe(false);
  });
});
