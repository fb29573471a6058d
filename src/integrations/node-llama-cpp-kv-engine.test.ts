import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KvEngineBudget } from '../kv/kv-engine.js';
import {
  type NodeLlamaCppLoaded,
  nodeLlamaCppContext,
  skipWithoutEngine,
  tinyModelFile,
} from '../test-helpers/kv-engines.js';
import { nodeLlamaCppKvEngine, reclaimed } from './node-llama-cpp-kv-engine.js';

const CONTEXT_SIZE = 256; // per sequence (node-llama-cpp allocates contextSize × sequences cells)
const SEQUENCES = 4;
const BATCH = 32;
const tokens = (count: number, offset = 0) =>
  Array.from({ length: count }, (_, i) => 3 + ((offset + i) % 350));

type Operation =
  | { kind: 'open' }
  | { kind: 'fork'; pick: number }
  | { kind: 'prefill'; pick: number; count: number }
  | { kind: 'release'; pick: number }
  | { kind: 'retainOnly'; pick: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('open' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fork' as const), pick: fc.nat() }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('prefill' as const),
      pick: fc.nat(),
      count: fc.integer({ min: 1, max: 90 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retainOnly' as const), pick: fc.nat() }) },
);

const skip = skipWithoutEngine('node-llama-cpp', 'node-llama-cpp context');

interface CacheAddon {
  getSequenceKvCacheMinPosition(sequenceId: number): number;
  getSequenceKvCacheMaxPosition(sequenceId: number): number;
}

describe.skipIf(skip)('node-llama-cpp (a cache per sequence) against barometer’s KV budget', () => {
  let model: ReturnType<typeof tinyModelFile>;
  let loaded: NodeLlamaCppLoaded;
  /** The real cache's occupied cells from its state size: a fixed header plus bytes per cell × cells. */
  let realCells: () => number;

  beforeAll(async () => {
    model = tinyModelFile();
    loaded = await nodeLlamaCppContext(model.path, {
      contextSize: CONTEXT_SIZE,
      sequences: SEQUENCES,
      batchSize: BATCH,
    });
    const { context } = loaded;
    // The real cache, two ways. Each sequence's cells from llama.cpp's own positions (the addon's
    // llama_memory_seq_pos_min/max; the adapter never erases inside a sequence, so a sequence is contiguous), and
    // the context's state size: a base, a header per non-empty sequence and bytes per cell, calibrated here on
    // one sequence of 1 and 2 tokens and a second sequence of 1.
    const addon = (context as unknown as { _ctx: CacheAddon })._ctx;
    const empty = context.stateSize;
    const first = context.getSequence();
    const second = context.getSequence();
    await first.evaluateWithoutGeneratingNewTokens(tokens(1));
    const oneCell = context.stateSize;
    await first.evaluateWithoutGeneratingNewTokens(tokens(1, 1));
    const perCell = context.stateSize - oneCell;
    await second.evaluateWithoutGeneratingNewTokens(tokens(1));
    const perSequence = context.stateSize - oneCell - 2 * perCell;
    const base = oneCell - perSequence - perCell;
    const left = context.sequencesLeft;
    first.dispose();
    second.dispose();
    await reclaimed(context, left + 1);
    expect(context.stateSize).toBe(empty);
    realCells = () => {
      let cells = 0;
      let streams = 0;
      for (let id = 0; id < SEQUENCES; id++) {
        const max = addon.getSequenceKvCacheMaxPosition(id);
        if (max < 0) continue;
        cells += max - addon.getSequenceKvCacheMinPosition(id) + 1;
        streams++;
      }
      const size = loaded.context.stateSize;
      const fromState =
        streams === 0 ? (size === empty ? 0 : Number.NaN) : (size - base - perSequence * streams) / perCell;
      expect(fromState, `state size ${size}: ${streams} sequences, ${cells} cells by position`).toBe(cells);
      return cells;
    };
  });
  afterAll(async () => {
    await loaded?.dispose();
    model?.remove();
  });

  it('reads the layout from the engine: per sequence, contextSize − 1 cells each, nBatch the batch size', () => {
    const engine = nodeLlamaCppKvEngine(loaded.context);
    expect(engine).toMatchObject({ layout: 'perSequence', nCtx: CONTEXT_SIZE - 1, nBatch: BATCH });
  });

  it('counts a copied prefix twice: a fork of 100 cells holds 200 in the real cache', async () => {
    const budget = new KvEngineBudget(nodeLlamaCppKvEngine(loaded.context), { softLimit: 32 });
    const root = await budget.open();
    await budget.prefill(root, tokens(100));
    const child = await budget.fork(root);
    expect(budget.ledger.cellsUsed).toBe(200);
    expect(realCells()).toBe(200);
    expect(budget.pressure(child).remaining).toBe(CONTEXT_SIZE - 1 - 100);
    await budget.retainOnly(child);
    await budget.release(child);
    expect(realCells()).toBe(0);
  });

  it('keeps the ledger equal to the real cache after every operation of 10 random runs of 100', async () => {
    const runs = fc.sample(fc.array(operation, { minLength: 100, maxLength: 100 }), { seed: 7, numRuns: 10 });
    let operations = 0;
    let refused = 0;
    for (const run of runs) {
      const budget = new KvEngineBudget(nodeLlamaCppKvEngine(loaded.context), { softLimit: 32 });
      await budget.open();
      for (const step of run) {
        const live = budget.ledger.branches;
        const branch = live.length === 0 ? undefined : live[('pick' in step ? step.pick : 0) % live.length];
        if (branch === undefined || (step.kind === 'open' && live.length < SEQUENCES)) await budget.open();
        else if (step.kind === 'fork' && live.length < SEQUENCES) await budget.fork(branch);
        else if (step.kind === 'prefill') {
          const outcome = await budget.prefill(branch, tokens(step.count, step.pick));
          if (!outcome.ok) {
            expect(outcome.code).toBe('would_half_commit');
            refused++;
          }
        } else if (step.kind === 'release') await budget.release(branch);
        else if (step.kind === 'retainOnly') await budget.retainOnly(branch);
        operations++;
        expect(budget.ledger.cellsUsed).toBe(realCells());
      }
      expect(budget.engineFailures).toBe(0);
      const [kept] = budget.ledger.branches;
      if (kept !== undefined) {
        await budget.retainOnly(kept);
        await budget.release(kept);
      }
      expect(realCells()).toBe(0);
    }
    expect(operations).toBe(1000);
    expect(refused).toBeGreaterThan(0);
  });

  it('fills a sequence to its last usable cell and refuses one more without a context shift', async () => {
    const budget = new KvEngineBudget(nodeLlamaCppKvEngine(loaded.context), { softLimit: 0 });
    const root = await budget.open();
    const other = await budget.open();
    expect((await budget.prefill(root, tokens(CONTEXT_SIZE - 1))).ok).toBe(true);
    expect(budget.pressure(root)).toMatchObject({ remaining: 0, critical: true });
    // Another sequence's cells are its own: it is still empty.
    expect(budget.pressure(other)).toMatchObject({ remaining: CONTEXT_SIZE - 1, critical: false });
    expect(await budget.prefill(root, [5])).toMatchObject({ ok: false, code: 'would_half_commit' });
    expect(realCells()).toBe(CONTEXT_SIZE - 1);
    await budget.release(other);
    await budget.release(root);
    expect(realCells()).toBe(0);
  });
});
