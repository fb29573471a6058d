import { describe, expect, it } from 'vitest';
import type { StateStore } from '../store/state-store.js';
import { SessionMonitor, type SessionRecord } from './session-monitor.js';
import type { UsageUpdate } from './session-options.js';

/** A store that is not the memory store: asynchronous, and calling each change twice (optimistic retries). */
class RetryingStore implements StateStore<SessionRecord> {
  readonly records = new Map<string, SessionRecord>();
  async get(id: string) {
    return this.records.get(id);
  }
  async values() {
    return [...this.records.values()];
  }
  async page(after: string | null, limit: number) {
    const ids = [...this.records.keys()].sort().filter((id) => after === null || id > after);
    const chosen = ids.slice(0, limit);
    return {
      values: chosen.map((id) => this.records.get(id) as SessionRecord),
      next: ids.length > limit ? (chosen[chosen.length - 1] as string) : null,
    };
  }
  async create(id: string, value: SessionRecord) {
    if (this.records.has(id)) return 'exists' as const;
    this.records.set(id, value);
    return 'created' as const;
  }
  async update(id: string, change: (current: SessionRecord) => SessionRecord) {
    const current = this.records.get(id);
    if (current === undefined) return undefined;
    await Promise.resolve();
    change(current); // a lost race: its result is thrown away
    const next = change(current);
    this.records.set(id, next);
    return next;
  }
  async delete(id: string) {
    return this.records.delete(id);
  }
  async size() {
    return this.records.size;
  }
  async close() {}
}

let at = Date.parse('2026-11-22T12:00:00Z');
// Each update carries its time: a store that applies a change twice reads the monitor's clock twice.
function usage(promptTokens: number): UsageUpdate {
  at += 1500;
  return {
    timestamp: at,
    usage: {
      available: true,
      source: 'manual',
      promptTokens,
      completionTokens: 500,
      totalTokens: promptTokens + 500,
      cachedReadTokens: 0,
      cachedWriteTokens: 0,
      reasoningTokens: 0,
    },
  };
}

function monitorOver(store?: StateStore<SessionRecord>): SessionMonitor {
  let clock = Date.parse('2026-11-22T12:00:00Z');
  return new SessionMonitor({
    ...(store ? { store } : {}),
    now: () => (clock += 1500),
    // The updates' own times run ahead of this clock (each test goes on from the last): not what these tests are about.
    clockSkewMs: 365 * 86_400_000,
    generateId: () => 's',
  });
}

describe('SessionMonitor.postUsage', () => {
  it('answers over an asynchronous store that applies a change twice exactly as over the memory store', async () => {
    const memory = monitorOver();
    const other = monitorOver(new RetryingStore());
    for (const monitor of [memory, other]) await monitor.create({ id: 'a', model: 'claude-opus-4-6' });
    for (const prompt of [1000, 120_000, 160_000, 90_000, 30_000]) {
      const update = usage(prompt);
      expect(await other.postUsage('a', update)).toEqual(await memory.postUsage('a', update));
    }
    expect(await other.view('a')).toEqual(await memory.view('a'));
    expect((await other.view('a')).timeline).toHaveLength(5);
  });

  it('keeps over the memory store the timeline an asynchronous store keeps, past its 500 points and a compaction', async () => {
    const memory = monitorOver();
    const other = monitorOver(new RetryingStore());
    for (const monitor of [memory, other]) await monitor.create({ id: 'a', model: 'claude-opus-4-6' });
    for (let call = 0; call < 540; call++) {
      const update = usage(20_000 + ((call * 7_919) % 170_000));
      expect(await other.postUsage('a', update)).toEqual(await memory.postUsage('a', update));
      if (call === 300) {
        const compaction = { before: 150_000, after: 40_000, trigger: 'manual', timestamp: at };
        expect(await other.recordCompaction('a', compaction)).toEqual(
          await memory.recordCompaction('a', compaction),
        );
      }
    }
    const view = await memory.view('a');
    expect(view).toEqual(await other.view('a'));
    expect(view.timeline.map((point) => point.index)).toEqual(Array.from({ length: 500 }, (_, n) => n + 40));
    expect(view.markers.map((marker) => marker.type)).toContain('compaction');
  });

  it('answers within the call over the memory store, and with a promise over an asynchronous one', async () => {
    const memory = monitorOver();
    const other = monitorOver(new RetryingStore());
    for (const monitor of [memory, other]) await monitor.create({ id: 'a', model: 'claude-opus-4-6' });
    const update = usage(1000);
    const now = memory.postUsage('a', update);
    expect(now).not.toBeInstanceOf(Promise);
    const later = other.postUsage('a', update);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toEqual(now);
    // A failure is a rejected promise either way, never a throw out of the call.
    const refused = memory.postUsage('missing', usage(1000));
    expect(refused).toBeInstanceOf(Promise);
    await expect(refused).rejects.toThrow(/no session/);
  });

  it('hands listeners a state that later posts leave as it was', async () => {
    const monitor = monitorOver();
    await monitor.create({ id: 'a', model: 'claude-opus-4-6', tpmLimit: 400_000 });
    const told: Array<{ state: unknown; json: string }> = [];
    monitor.subscribe((event) => {
      if (event.type === 'changed') told.push({ state: event.state, json: JSON.stringify(event.state) });
    });
    for (let call = 0; call < 30; call++) await monitor.postUsage('a', usage(10_000 + call * 1_000));
    expect(told).toHaveLength(30);
    for (const { state, json } of told) expect(JSON.stringify(state)).toBe(json);
  });

  it('keeps a view as it was answered while later updates record on the timeline', async () => {
    const monitor = monitorOver();
    await monitor.create({ id: 'a', model: 'claude-opus-4-6' });
    await monitor.postUsage('a', usage(1000));
    const before = await monitor.view('a');
    await monitor.postUsage('a', usage(2000));
    expect(before.timeline).toHaveLength(1);
    expect((await monitor.view('a')).timeline).toHaveLength(2);
  });

  it('applies nothing when an update is refused: the timeline and the state stay as they were', async () => {
    const monitor = monitorOver();
    await monitor.create({ id: 'a', model: 'claude-opus-4-6' });
    await monitor.postUsage('a', usage(1000));
    await expect(monitor.postUsage('a', { ...usage(2000), timestamp: 9e15 })).rejects.toThrow(/timestamp/);
    const view = await monitor.view('a');
    expect(view.timeline).toHaveLength(1);
    expect(view.generations).toBe(1);
  });
});

describe('SessionMonitor.setProxyStatus', () => {
  it('shows the proxy’s standing in the session’s answers, kept through later usage, quota and compaction updates', async () => {
    const monitor = monitorOver();
    await monitor.create({ id: 'a', model: 'claude-opus-4-6' });
    expect((await monitor.view('a')).proxy).toBeNull();
    const since = Date.parse('2026-11-22T12:30:00Z');
    const summary = await monitor.setProxyStatus('a', {
      mode: 'act',
      pause: { stage: 'record', code: 'BR_ERR_STORE_UNAVAILABLE', message: 'away', since, until: null },
    });
    const shown = {
      mode: 'act',
      acting: false,
      pause: {
        stage: 'record',
        code: 'BR_ERR_STORE_UNAVAILABLE',
        message: 'away',
        since: '2026-11-22T12:30:00.000Z',
        until: null,
      },
    };
    expect(summary.proxy).toEqual(shown);
    await monitor.postUsage('a', usage(1000));
    await monitor.observeQuota('a', { headers: { 'retry-after': '1' } });
    await monitor.recordCompaction('a', { before: 1000, after: 500 });
    expect((await monitor.view('a')).proxy).toEqual(shown);
    // A session seen in observe is never acted on, paused or not.
    await monitor.setProxyStatus('a', { mode: 'observe', pause: null });
    expect((await monitor.view('a')).proxy).toEqual({ mode: 'observe', acting: false, pause: null });
  });

  it('refuses a malformed status naming the field, and a session it does not have', async () => {
    const monitor = monitorOver();
    await monitor.create({ id: 'a', model: 'claude-opus-4-6' });
    await expect(monitor.setProxyStatus('a', { mode: 'edit' as 'act', pause: null })).rejects.toMatchObject({
      issues: [expect.objectContaining({ field: 'mode' })],
    });
    await expect(monitor.setProxyStatus('missing', { mode: 'act', pause: null })).rejects.toThrow(
      /no session/,
    );
  });
});
