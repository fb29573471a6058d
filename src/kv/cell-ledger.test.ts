import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { CellLedger } from './cell-ledger.js';

describe('CellLedger decode and fork', () => {
  it('adds decoded cells to the total', () => {
    const ledger = new CellLedger({ nCtx: 16384 });
    const root = ledger.open('root');
    ledger.decode(root, 3000);
    ledger.decode(root, 500);
    expect(ledger.cellsUsed).toBe(3500);
    expect(ledger.position(root)).toBe(3500);
  });

  it('shares the parent prefix with a fork instead of counting it twice', () => {
    const ledger = new CellLedger({ nCtx: 16384 });
    const root = ledger.open('root');
    ledger.decode(root, 4000);
    const child = ledger.fork(root, 'child');
    expect(ledger.cellsUsed).toBe(4000);
    expect(ledger.position(child)).toBe(4000);
    ledger.decode(child, 250);
    ledger.decode(root, 100);
    expect(ledger.cellsUsed).toBe(4350);
  });

  it('names branches with a deterministic counter unless told otherwise', () => {
    const ledger = new CellLedger({ nCtx: 1000 });
    const root = ledger.open();
    expect([root, ledger.fork(root), ledger.fork(root)]).toEqual(['branch-1', 'branch-2', 'branch-3']);
    let next = 0;
    const custom = new CellLedger({ nCtx: 1000, generateId: () => `agent-${++next}` });
    expect(custom.open()).toBe('agent-1');
  });
});

describe('CellLedger release', () => {
  it('frees only the cells above the fork point', () => {
    const ledger = new CellLedger({ nCtx: 16384 });
    const root = ledger.open('root');
    ledger.decode(root, 4000);
    const child = ledger.fork(root, 'child');
    ledger.decode(child, 600);
    expect(ledger.release(child)).toBe(600);
    expect(ledger.cellsUsed).toBe(4000);
    expect(ledger.branches).toEqual(['root']);
  });

  it('frees all the cells of a root', () => {
    const ledger = new CellLedger({ nCtx: 16384 });
    const root = ledger.open('root');
    ledger.decode(root, 900);
    expect(ledger.release(root)).toBe(900);
    expect(ledger.cellsUsed).toBe(0);
  });

  it('refuses to release a branch whose forks still share its cells', () => {
    const ledger = new CellLedger({ nCtx: 16384 });
    const root = ledger.open('root');
    ledger.fork(root, 'child');
    expect(() => ledger.release(root)).toThrow(/live forks \(child\)/);
  });
});

describe('CellLedger bulk operations', () => {
  it('retainOnly keeps one branch, which then owns its whole sequence', () => {
    const ledger = new CellLedger({ nCtx: 16384 });
    const root = ledger.open('root');
    ledger.decode(root, 4000);
    const a = ledger.fork(root, 'a');
    const b = ledger.fork(root, 'b');
    ledger.decode(a, 300);
    ledger.decode(b, 700);
    ledger.retainOnly(b);
    expect(ledger.branches).toEqual(['b']);
    expect(ledger.cellsUsed).toBe(4700);
    expect(ledger.release(b)).toBe(4700);
  });

  it('drain removes every branch and cell', () => {
    const ledger = new CellLedger({ nCtx: 16384 });
    const root = ledger.open('root');
    ledger.decode(root, 4000);
    ledger.fork(root);
    ledger.drain();
    expect(ledger.cellsUsed).toBe(0);
    expect(ledger.branches).toEqual([]);
  });
});

describe('CellLedger.pressure', () => {
  it('snapshots the cells in use against the ledger limits', () => {
    const ledger = new CellLedger({ nCtx: 16384, softLimit: 512 });
    const root = ledger.open('root');
    ledger.decode(root, 14000);
    const child = ledger.fork(root);
    ledger.decode(child, 1800);
    const pressure = ledger.pressure();
    // 15,800 of 16,384 cells: remaining 584, headroom 584 − 512 = 72.
    expect(pressure.cellsUsed).toBe(15800);
    expect(pressure.headroom).toBe(72);
  });

  it('rejects bad limits at construction', () => {
    expect(() => new CellLedger({ nCtx: 16384, hardLimit: 64, nBatch: 512 })).toThrow(
      BarometerValidationError,
    );
  });
});

describe('CellLedger errors', () => {
  it('names an unknown branch, a duplicate id and a bad cell count', () => {
    const ledger = new CellLedger({ nCtx: 100 });
    ledger.open('root');
    expect(() => ledger.decode('nope', 1)).toThrow(/branch: no such branch/);
    expect(() => ledger.open('root')).toThrow(/already exists/);
    expect(() => ledger.decode('root', -2)).toThrow(/cells: must be a whole number/);
    expect(() => ledger.decode('root', 1.5)).toThrow(BarometerValidationError);
  });
});

describe('CellLedger per-sequence layout (node-llama-cpp: kv_unified = false)', () => {
  it('counts a fork’s copied prefix again and frees all of a sequence’s cells on release', () => {
    const ledger = new CellLedger({ nCtx: 255, layout: 'perSequence' });
    const root = ledger.open('root');
    ledger.decode(root, 100);
    const child = ledger.fork(root, 'child');
    expect(ledger.cellsUsed).toBe(200);
    ledger.decode(child, 20);
    // The parent can go first: the fork owns its own copy.
    expect(ledger.release(root)).toBe(100);
    expect(ledger.cellsUsed).toBe(120);
    expect(ledger.release(child)).toBe(120);
    expect(ledger.cellsUsed).toBe(0);
  });

  it('measures each sequence against its own nCtx, and the fullest one without a branch', () => {
    const ledger = new CellLedger({ nCtx: 255, softLimit: 32, layout: 'perSequence' });
    const a = ledger.open('a');
    const b = ledger.open('b');
    ledger.decode(a, 200);
    ledger.decode(b, 50);
    expect(ledger.pressure(a)).toMatchObject({ cellsUsed: 200, remaining: 55, headroom: 23 });
    expect(ledger.pressure(b)).toMatchObject({ cellsUsed: 50, remaining: 205 });
    expect(ledger.pressure().remaining).toBe(55);
  });

  it('shares one pool in the unified layout, whichever branch is asked about', () => {
    const ledger = new CellLedger({ nCtx: 1000 });
    const a = ledger.open('a');
    ledger.decode(a, 300);
    const b = ledger.fork(a, 'b');
    ledger.decode(b, 100);
    expect(ledger.pressure(a).remaining).toBe(600);
    expect(ledger.pressure(b).remaining).toBe(600);
    expect(() => ledger.pressure('missing')).toThrow(BarometerValidationError);
  });

  it('rejects an unknown layout by name', () => {
    expect(() => new CellLedger({ nCtx: 10, layout: 'paged' as never })).toThrow(/layout/);
  });
});
