import { describe, expect, it } from 'vitest';
import { type KvFigures, kvListText, kvText } from './kv-text.js';

const figures = (overrides: Partial<KvFigures> = {}): KvFigures => ({
  nCtx: 2048,
  cellsUsed: 1800,
  remaining: 248,
  softLimit: 256,
  hardLimit: 64,
  nBatch: 64,
  headroom: -8,
  critical: false,
  percentAvailable: 12,
  unbounded: false,
  source: 'engine',
  ...overrides,
});

describe('kvText', () => {
  it('says the cells, the headroom over the soft limit, the nBatch floor and the engine as the source', () => {
    expect(kvText(figures())).toEqual({
      cells: '1,800',
      of: 'of 2,048 cells',
      headroom: '248 free · headroom -8 over the soft limit of 256',
      floor: 'crash floor 64 (nBatch 64)',
      source: 'as the engine counts its cells',
      critical: false,
    });
  });

  it('says critical below the floor, and that 128 is the documented default when nBatch is unknown', () => {
    const { nBatch: _, ...withoutBatch } = figures();
    const text = kvText({
      ...withoutBatch,
      cellsUsed: 1950,
      remaining: 98,
      hardLimit: 128,
      critical: true,
      source: 'usage',
    });
    expect(text.floor).toBe('critical: below the crash floor 128 (nBatch unknown: the documented default)');
    expect(text.source).toBe('from the last prompt and completion');
    expect(text.critical).toBe(true);
  });

  it('says an unbounded cache has no limit', () => {
    const text = kvText(
      figures({ nCtx: 0, remaining: null, headroom: null, unbounded: true, percentAvailable: 100 }),
    );
    expect(text.of).toBe('cells, no limit');
    expect(text.headroom).toBe('headroom unbounded');
  });
});

describe('kvListText', () => {
  it('says the cells of n_ctx, with the card’s other lines as the title', () => {
    expect(kvListText(figures())).toEqual({
      cells: '1,800 / 2,048',
      critical: false,
      title:
        '248 free · headroom -8 over the soft limit of 256; crash floor 64 (nBatch 64); as the engine counts its cells',
    });
  });

  it('says critical below the floor (remaining 40 < hardLimit 64), and no limit for an unbounded cache', () => {
    const critical = kvListText(figures({ cellsUsed: 2008, remaining: 40, headroom: -216, critical: true }));
    expect(critical.cells).toBe('2,008 / 2,048');
    expect(critical.critical).toBe(true);
    expect(critical.title).toContain('critical: below the crash floor 64 (nBatch 64)');
    const unbounded = kvListText(
      figures({ nCtx: 0, remaining: null, headroom: null, unbounded: true, percentAvailable: 100 }),
    );
    expect(unbounded.cells).toBe('1,800, no limit');
    expect(unbounded.critical).toBe(false);
  });
});
