import { describe, expect, it } from 'vitest';
import { MemoryPoolStore } from '../pools/memory-pool-store.js';
import { SqliteStateStore } from '../store/sqlite-state-store.js';
import type { UsageRecord } from '../usage/usage-record.js';
import { SessionMonitor, type SessionRecord } from './session-monitor.js';

const usage = (promptTokens: number): UsageRecord => ({
  available: true,
  source: 'manual',
  promptTokens,
  completionTokens: 500,
  totalTokens: promptTokens + 500,
  cachedReadTokens: 0,
  cachedWriteTokens: 0,
  reasoningTokens: 0,
});

const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;

async function setUp() {
  const pools = new MemoryPoolStore();
  const monitor = new SessionMonitor({ pools });
  await pools.create({ id: 'team', tokenBudget: 100_000 });
  for (const priority of PRIORITIES) {
    await monitor.create({
      id: `agent-${priority}`,
      model: 'custom',
      contextWindow: 200_000,
      poolId: 'team',
      poolPriority: priority,
    });
  }
  return { pools, monitor };
}

const poolSays = (answer: {
  verdict: { reasons: Array<{ model: string; action: string; reason: string }> };
}) => answer.verdict.reasons.find((reason) => reason.model === 'pool');

describe('sessions in a pool (seed 000: one continues while the other defers, by priority)', () => {
  it('at a HIGH pool (75% held), low and normal agents defer while high and urgent continue', async () => {
    const { pools, monitor } = await setUp();
    const grant = await pools.reserve('team', { agentId: 'big', tokens: 75_000, priority: 'urgent' });
    expect(grant.ok).toBe(true);
    const actions: Record<string, string> = {};
    for (const priority of PRIORITIES) {
      const answer = await monitor.postUsage(`agent-${priority}`, { usage: usage(10_000) });
      actions[priority] = answer.verdict.action;
      expect(poolSays(answer)?.reason).toContain('pool team holds 75% of its limits (HIGH)');
    }
    // Ceilings low 0.5, normal 0.7 (both ≤ 0.75: defer), high 0.85, urgent 1.0 (continue).
    expect(actions).toEqual({ low: 'optimize', normal: 'optimize', high: 'continue', urgent: 'continue' });
  });

  it('lets every agent continue again once the reservation is settled for less', async () => {
    const { pools, monitor } = await setUp();
    const grant = await pools.reserve('team', { agentId: 'big', tokens: 75_000, priority: 'urgent' });
    if (!grant.ok) throw new Error('not admitted');
    await pools.settle('team', grant.reservation.reservationId, { actualTokens: 10_000 });
    const answer = await monitor.postUsage('agent-low', { usage: usage(10_000) });
    expect(poolSays(answer)).toMatchObject({ action: 'continue' });
    expect(poolSays(answer)?.reason).toContain('10% of its limits (LOW)');
    expect(answer.verdict.action).toBe('continue');
  });

  it('says so, and counts nothing, when the pool does not exist', async () => {
    const monitor = new SessionMonitor({ pools: new MemoryPoolStore() });
    await monitor.create({ id: 'lonely', model: 'custom', contextWindow: 200_000, poolId: 'gone' });
    const answer = await monitor.postUsage('lonely', { usage: usage(10_000) });
    expect(poolSays(answer)).toMatchObject({
      action: 'continue',
      reason: 'pool gone does not exist (or could not be read): not counted',
    });
  });

  it('has no pool model for a session outside any pool', async () => {
    const { monitor } = await setUp();
    await monitor.create({ id: 'solo', model: 'custom', contextWindow: 200_000 });
    const answer = await monitor.postUsage('solo', { usage: usage(10_000) });
    expect(poolSays(answer)).toBeUndefined();
  });

  it('reads the pool of a session another instance created on its first update here, and applies the update once', async () => {
    const pools = new MemoryPoolStore();
    await pools.create({ id: 'team', tokenBudget: 100_000 });
    await pools.reserve('team', { agentId: 'big', tokens: 75_000, priority: 'urgent' });
    const store = new SqliteStateStore<SessionRecord>({ touchedAt: (record) => record.touchedAt });
    const creator = new SessionMonitor({ store, pools });
    await creator.create({
      id: 'shared',
      model: 'custom',
      contextWindow: 200_000,
      poolId: 'team',
      poolPriority: 'low',
    });
    // This monitor has never updated the session: its update finds the pool, reads it, and only then applies.
    const other = new SessionMonitor({ store, pools });
    const changes: number[] = [];
    other.subscribe((event) => {
      if (event.type === 'changed') changes.push(event.state.generations);
    });
    const first = await other.postUsage('shared', { usage: usage(10_000) });
    expect(first.generation).toBe(1);
    expect(poolSays(first)).toMatchObject({ action: 'optimize' });
    expect(poolSays(first)?.reason).toContain('pool team holds 75% of its limits (HIGH)');
    expect((await store.get('shared'))?.state.generations).toBe(1);
    // Known now: the next update reads the pool first and is applied at once.
    const second = await other.postUsage('shared', { usage: usage(10_000) });
    expect(second.generation).toBe(2);
    expect(changes).toEqual([1, 2]);
  });

  it('judges a session made again at another priority by its new priority, not the one this instance remembered', async () => {
    const pools = new MemoryPoolStore();
    await pools.create({ id: 'team', tokenBudget: 100_000 });
    await pools.reserve('team', { agentId: 'big', tokens: 75_000, priority: 'urgent' });
    const store = new SqliteStateStore<SessionRecord>({ touchedAt: (record) => record.touchedAt });
    const creator = new SessionMonitor({ store, pools });
    const other = new SessionMonitor({ store, pools });
    const options = { id: 'again', model: 'custom', contextWindow: 200_000, poolId: 'team' };
    await creator.create({ ...options, poolPriority: 'low' });
    // At 75% held, the low ceiling (50%) defers.
    expect((await other.postUsage('again', { usage: usage(10_000) })).verdict.action).toBe('optimize');
    await creator.delete('again');
    await creator.create({ ...options, poolPriority: 'urgent' });
    // The urgent ceiling (100%) continues: the update is judged by the session as it is now.
    const answer = await other.postUsage('again', { usage: usage(10_000) });
    expect(answer.generation).toBe(1);
    expect(poolSays(answer)).toMatchObject({ action: 'continue' });
    expect(answer.verdict.action).toBe('continue');
  });
});
