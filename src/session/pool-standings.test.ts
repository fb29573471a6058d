import { describe, expect, it } from 'vitest';
import { type PoolLookup, PoolStandings, poolOfOptions, samePool } from './pool-standings.js';

const lookup: PoolLookup = {
  async view(poolId) {
    if (poolId !== 'team') throw new Error('no such pool');
    return {
      level: 'MODERATE',
      usedFraction: 0.6,
      priorityCeilings: { low: 0.5, normal: 0.7, high: 0.85, urgent: 1 },
    };
  },
};

describe('poolOfOptions', () => {
  it('names the pool at normal priority unless given, and none without a pool id', () => {
    expect(poolOfOptions({ poolId: 'team' })).toEqual({ id: 'team', priority: 'normal' });
    expect(poolOfOptions({ poolId: 'team', poolPriority: 'high' })).toEqual({ id: 'team', priority: 'high' });
    expect(poolOfOptions({})).toBeNull();
  });
});

describe('samePool', () => {
  it('is one pool at one priority', () => {
    expect(samePool({ id: 'team', priority: 'low' }, { id: 'team', priority: 'low' })).toBe(true);
    expect(samePool({ id: 'team', priority: 'low' }, { id: 'team', priority: 'high' })).toBe(false);
    expect(samePool({ id: 'team', priority: 'low' }, { id: 'other', priority: 'low' })).toBe(false);
    expect(samePool(null, null)).toBe(true);
    expect(samePool(undefined, { id: 'team', priority: 'low' })).toBe(false);
  });
});

describe('PoolStandings', () => {
  it('knows a session’s pool only once noted, notes it again when it changed, and forgets it on request', () => {
    const pools = new PoolStandings(lookup);
    expect(pools.poolOf('a')).toBeUndefined();
    pools.note('a', { poolId: 'team', poolPriority: 'low' });
    pools.note('b', {});
    expect(pools.poolOf('a')).toEqual({ id: 'team', priority: 'low' });
    expect(pools.poolOf('b')).toBeNull();
    pools.note('a', { poolId: 'team', poolPriority: 'low' });
    expect(pools.poolOf('a')).toEqual({ id: 'team', priority: 'low' });
    // Made again (another instance deleted and created it) at another priority.
    pools.note('a', { poolId: 'team', poolPriority: 'urgent' });
    expect(pools.poolOf('a')).toEqual({ id: 'team', priority: 'urgent' });
    pools.forget('a');
    expect(pools.poolOf('a')).toBeUndefined();
  });

  it('remembers 10,000 sessions, the oldest forgotten first', () => {
    const pools = new PoolStandings(lookup);
    for (let index = 0; index <= 10_000; index++) pools.note(`s${index}`, {});
    expect(pools.poolOf('s0')).toBeUndefined();
    expect(pools.poolOf('s1')).toBeNull();
    expect(pools.poolOf('s10000')).toBeNull();
  });

  it('reads the standing at the priority’s ceiling', async () => {
    const pools = new PoolStandings(lookup);
    expect(await pools.standing({ id: 'team', priority: 'normal' })).toEqual({
      poolId: 'team',
      level: 'MODERATE',
      usedFraction: 0.6,
      ceiling: 0.7,
    });
    // A priority the pool lists no ceiling for is never deferred.
    expect(await pools.standing({ id: 'team', priority: 'other' })).toMatchObject({ ceiling: 1 });
  });

  it('reads a standing with the pool it was read for', async () => {
    const pools = new PoolStandings(lookup);
    expect(await pools.read({ id: 'gone', priority: 'low' })).toEqual({
      of: { id: 'gone', priority: 'low' },
      standing: null,
    });
  });

  it('answers null for a pool that cannot be read, or without a lookup', async () => {
    expect(await new PoolStandings(lookup).standing({ id: 'gone', priority: 'normal' })).toBeNull();
    expect(await new PoolStandings(undefined).standing({ id: 'team', priority: 'normal' })).toBeNull();
  });
});
