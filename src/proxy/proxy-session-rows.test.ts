import { describe, expect, it } from 'vitest';
import { KeyValueTable } from '../store/key-value-table.js';
import { StateDatabase } from '../store/state-database.js';
import { newProxySession } from './proxy-session.js';
import { readProxySession, writeProxySession } from './proxy-session-rows.js';

describe("a proxy session's row", () => {
  it('is read back whole (edits, policy states, the observe mark) and written only when it changed', () => {
    const database = StateDatabase.open(':memory:');
    const table = new KeyValueTable(database, 'proxy-sessions');
    const entry = newProxySession('s1');
    entry.edits.set('call_1', { result: '[evicted]' });
    entry.observed = true;
    writeProxySession(table, entry);
    const again = newProxySession('s1');
    readProxySession(table, again);
    expect([...again.edits]).toEqual([['call_1', { result: '[evicted]' }]]);
    expect(again.observed).toBe(true);
    // Unchanged: no write (a row changed behind its back stays as it is).
    table.set('s1', 'changed elsewhere');
    writeProxySession(table, entry);
    expect(table.get('s1')).toBe('changed elsewhere');
    database.close();
  });

  it('keeps the window policy’s decision per sub-agent conversation across a restart, and writes none without one', () => {
    const database = StateDatabase.open(':memory:');
    const table = new KeyValueTable(database, 'proxy-sessions');
    const plain = newProxySession('s0');
    plain.edits.set('call_1', { result: '[evicted]' });
    writeProxySession(table, plain);
    // A session the policy never decided for: its row as before the window policy existed.
    expect(JSON.parse(table.get('s0') as string)).not.toHaveProperty('conversations');
    const entry = newProxySession('s2');
    entry.conversations.set('agent-a', { lowered: true });
    entry.conversations.set('agent-b', { lowered: false });
    writeProxySession(table, entry);
    const again = newProxySession('s2');
    readProxySession(table, again);
    expect([...again.conversations]).toEqual([
      ['agent-a', { lowered: true }],
      ['agent-b', { lowered: false }],
    ]);
    database.close();
  });

  it('refuses a row that is not a saved session', () => {
    const database = StateDatabase.open(':memory:');
    const table = new KeyValueTable(database, 'proxy-sessions');
    table.set('s1', JSON.stringify({ edits: 'none' }));
    expect(() => readProxySession(table, newProxySession('s1'))).toThrow(/edits/);
    database.close();
  });
});
