import { describe, expect, it } from 'vitest';
import type { UsageRecord } from '../usage/usage-record.js';
import type { MonitorEvent } from './session-monitor.js';
import { SessionMonitor } from './session-monitor.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const usage = (promptTokens: number, completionTokens: number): UsageRecord => ({
  available: true,
  source: 'manual',
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
  cachedReadTokens: 0,
  cachedWriteTokens: 0,
  reasoningTokens: 0,
});
const MODEL = 'claude-sonnet-4-5';

describe('a session’s sub-agents', () => {
  it('lists the sessions created with it as parent, and adds their calls, tokens and cost to its own', async () => {
    let now = T0;
    const monitor = new SessionMonitor({ now: () => (now += 1000) });
    const events: MonitorEvent[] = [];
    monitor.subscribe((event) => events.push(event));
    await monitor.create({ id: 'parent', model: MODEL });
    await monitor.create({ id: 'child-a', model: MODEL, parentId: 'parent' });
    await monitor.create({ id: 'grandchild', model: MODEL, parentId: 'child-a' });
    await monitor.create({ id: 'child-b', model: MODEL, parentId: 'parent' });
    await monitor.postUsage('parent', { usage: usage(10_000, 1_000) });
    await monitor.postUsage('child-a', { usage: usage(20_000, 2_000) });
    await monitor.postUsage('grandchild', { usage: usage(5_000, 500) });
    await monitor.postUsage('child-b', { usage: usage(1_000, 100) });

    expect((await monitor.view('parent')).subAgents).toEqual(['child-a', 'child-b']);
    // The parent's listeners hear of each new sub-agent (the dashboard's list nests it).
    expect(
      events.some((event) => event.type === 'changed' && event.id === 'parent' && event.points.length === 0),
    ).toBe(true);
    const family = await monitor.subAgents('parent');
    expect(family.subAgents.map((summary) => [summary.id, summary.parentId])).toEqual([
      ['child-a', 'parent'],
      ['child-b', 'parent'],
      ['grandchild', 'child-a'],
    ]);
    const own = (await monitor.view('parent')).signals.costUsd!;
    expect(family.own).toEqual({ calls: 1, tokens: 11_000, costUsd: own, unpricedCalls: 0 });
    const costs = await Promise.all(
      ['parent', 'child-a', 'child-b', 'grandchild'].map(
        async (id) => (await monitor.view(id)).signals.costUsd!,
      ),
    );
    expect(family.withSubAgents.calls).toBe(4);
    expect(family.withSubAgents.tokens).toBe(11_000 + 22_000 + 5_500 + 1_100);
    expect(family.withSubAgents.costUsd).toBeCloseTo(
      costs.reduce((sum, cost) => sum + cost, 0),
      6,
    );
  });

  it('links a sub-agent created before its parent once the parent is created', async () => {
    const monitor = new SessionMonitor({ now: () => T0 });
    await monitor.create({ id: 'early-child', model: MODEL, parentId: 'late-parent' });
    const parent = await monitor.create({ id: 'late-parent', model: MODEL });
    expect(parent.subAgents).toEqual(['early-child']);
    expect((await monitor.subAgents('late-parent')).subAgents.map((summary) => summary.id)).toEqual([
      'early-child',
    ]);
  });

  it('leaves out a deleted sub-agent, and answers 404 for an unknown session', async () => {
    const monitor = new SessionMonitor({ now: () => T0 });
    await monitor.create({ id: 'p', model: MODEL });
    await monitor.create({ id: 'gone', model: MODEL, parentId: 'p' });
    await monitor.delete('gone');
    const family = await monitor.subAgents('p');
    expect(family.subAgents).toEqual([]);
    expect(family.withSubAgents).toEqual(family.own);
    await expect(monitor.subAgents('nobody')).rejects.toMatchObject({ code: 'BR_ERR_SESSION_NOT_FOUND' });
  });
});
