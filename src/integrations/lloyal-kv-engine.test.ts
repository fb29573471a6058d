import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { KvEngineBudget } from '../kv/kv-engine.js';
import {
  type LloyalTestContext,
  lloyalContext,
  probeFreeCells,
  skipWithoutEngine,
  tinyModelFile,
} from '../test-helpers/kv-engines.js';
import { lloyalKvEngine } from './lloyal-kv-engine.js';

const N_CTX = 1024;
const N_BATCH = 64;
const N_SEQ_MAX = 8;
const tokens = (count: number, offset = 0) =>
  Array.from({ length: count }, (_, i) => 3 + ((offset + i) % 350));

type Operation =
  | { kind: 'fork'; pick: number }
  | { kind: 'prefill'; pick: number; count: number }
  | { kind: 'generate'; pick: number }
  | { kind: 'release'; pick: number }
  | { kind: 'retainOnly'; pick: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('fork' as const), pick: fc.nat() }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('prefill' as const),
      pick: fc.nat(),
      count: fc.integer({ min: 1, max: 180 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('generate' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retainOnly' as const), pick: fc.nat() }) },
);

const skip = skipWithoutEngine('lloyal', 'lloyal native context');

describe.skipIf(skip)('lloyal native context (unified cache) against barometer’s KV budget', () => {
  let model: ReturnType<typeof tinyModelFile>;
  let context: LloyalTestContext;

  beforeAll(async () => {
    model = tinyModelFile();
    context = await lloyalContext(model.path, { nCtx: N_CTX, nBatch: N_BATCH, nSeqMax: N_SEQ_MAX });
  });
  afterAll(() => {
    context?.dispose();
    model?.remove();
  });

  async function freshBudget(softLimit = 256): Promise<{ budget: KvEngineBudget; root: string }> {
    // A root branch that keeps every earlier one away: retainOnly on it frees the rest, then pruning it empties the cache.
    const budget = new KvEngineBudget(lloyalKvEngine(context, { nBatch: N_BATCH }), { softLimit });
    const root = await budget.open();
    return { budget, root };
  }

  async function empty(budget: KvEngineBudget): Promise<void> {
    const [first] = budget.ledger.branches;
    if (first === undefined) return;
    await budget.retainOnly(first);
    await budget.release(first);
    expect(context._storeKvPressure().cellsUsed).toBe(0);
  }

  it('reads the pool from the engine: nCtx, nBatch as the crash floor, a unified layout', async () => {
    const { budget } = await freshBudget();
    expect(budget.engine.layout).toBe('unified');
    expect(budget.pressure().nCtx).toBe(N_CTX);
    expect(budget.pressure().hardLimit).toBe(N_BATCH);
    await empty(budget);
  });

  it('keeps the ledger equal to the engine after every operation of 10 random runs of 100', async () => {
    const runs = fc.sample(fc.array(operation, { minLength: 100, maxLength: 100 }), {
      seed: 42,
      numRuns: 10,
    });
    let operations = 0;
    let refusedHalfCommits = 0;
    let refusedReleases = 0;
    for (const run of runs) {
      const { budget, root } = await freshBudget();
      await budget.prefill(root, tokens(200));
      for (const step of run) {
        const live = budget.ledger.branches;
        const branch = live[step.pick % live.length]!;
        if (step.kind === 'fork' && live.length < N_SEQ_MAX - 1) await budget.fork(branch);
        else if (step.kind === 'prefill') {
          const outcome = await budget.prefill(branch, tokens(step.count, step.pick));
          if (!outcome.ok) {
            expect(outcome.code).toBe('would_half_commit');
            refusedHalfCommits++;
          }
        } else if (step.kind === 'generate') {
          const token = context._branchSample(Number(branch));
          await budget.prefill(branch, [token]);
        } else if (step.kind === 'release' && live.length > 1) {
          const hasForks = context._branchChildren(Number(branch)).length > 0;
          if (hasForks) {
            // The native binary aborts the process on this; barometer refuses it first.
            await expect(budget.release(branch)).rejects.toThrow(BarometerValidationError);
            refusedReleases++;
          } else await budget.release(branch);
        } else if (step.kind === 'retainOnly') await budget.retainOnly(branch);
        operations++;
        // The seed system's own ledger, and each branch's position, after every operation.
        expect(budget.drift()).toBe(0);
        for (const id of budget.ledger.branches)
          expect(budget.ledger.position(id)).toBe(context._branchGetPosition(Number(id)));
      }
      // The real cache: exactly barometer's remaining cells are free.
      const { remaining } = budget.pressure();
      expect(await probeFreeCells(context, N_BATCH, remaining)).toEqual({ filled: true, oneMore: false });
      expect(budget.engineFailures).toBe(0);
      await empty(budget);
    }
    expect(operations).toBe(1000);
    expect(refusedHalfCommits).toBeGreaterThan(0);
    expect(refusedReleases).toBeGreaterThan(0);
  });

  it('fills the last free cell and refuses one more, as the engine does', async () => {
    const { budget, root } = await freshBudget(0);
    await budget.prefill(root, tokens(300));
    const child = await budget.fork(root);
    expect((await budget.prefill(child, tokens(N_CTX - 300))).ok).toBe(true);
    expect(budget.pressure()).toMatchObject({ remaining: 0, critical: true });
    const refused = await budget.prefill(child, [9]);
    expect(refused).toMatchObject({ ok: false, code: 'would_half_commit', written: 0 });
    // The engine agrees: one more token has no cell.
    await expect(context._branchPrefill(Number(child), [9])).rejects.toThrow();
    expect(budget.drift()).toBe(0);
    await empty(budget);
  });

  it('puts the crash floor at nBatch: nBatch free cells decode a full batch, nBatch − 1 do not', async () => {
    const { budget, root } = await freshBudget(0);
    await budget.prefill(root, tokens(N_CTX - N_BATCH));
    expect(budget.pressure()).toMatchObject({ remaining: N_BATCH, critical: false });
    const atFloor = budget.ledger.fork(root, String(context._branchFork(Number(root))));
    await context._branchPrefill(Number(atFloor), tokens(N_BATCH));
    budget.ledger.decode(atFloor, N_BATCH);
    expect(budget.drift()).toBe(0);
    await budget.release(atFloor);

    await budget.prefill(root, [5]);
    expect(budget.pressure()).toMatchObject({ remaining: N_BATCH - 1, critical: true });
    expect(budget.produce(root, [{ id: 'c', name: 'read' }]).action).toBe('stop');
    // What the documented default of 128 would call "not critical" at 127..: here a full batch fails at 63.
    await expect(context._branchPrefill(Number(root), tokens(N_BATCH))).rejects.toThrow();
    expect(budget.drift()).toBe(0);
    await empty(budget);
  });

  it('refuses the prefill that would half-commit, where the engine alone writes its first chunks and breaks the branch', async () => {
    const { budget, root } = await freshBudget(0);
    await budget.prefill(root, tokens(603));
    const free = N_CTX - 603; // 421
    const refused = await budget.prefill(root, tokens(500));
    expect(refused).toMatchObject({ ok: false, code: 'would_half_commit', written: 0 });
    expect(refused.ok ? '' : refused.reason).toContain('would write 384 in chunks of 64');
    expect(budget.settle(root, [{ id: 'big', tokens: 500 }]).decisions[0]).toMatchObject({
      accepted: false,
      code: 'would_half_commit',
    });
    expect(await probeFreeCells(context, N_BATCH, free)).toEqual({ filled: true, oneMore: false });

    // Without barometer: the engine writes 6 chunks of 64, fails the 7th, and its own ledger still says 421 free.
    await expect(context._branchPrefill(Number(root), tokens(500))).rejects.toThrow();
    expect(context._storeKvPressure().remaining).toBe(free);
    expect(await probeFreeCells(context, N_BATCH, free - 384)).toEqual({ filled: true, oneMore: false });
    // And every later decode on that branch fails (its position no longer follows the cache's): through the
    // budget that is an engine failure, counted, with nothing recorded.
    await expect(context._branchPrefill(Number(root), [5])).rejects.toThrow();
    const before = budget.ledger.cellsUsed;
    expect(await budget.prefill(root, [5])).toMatchObject({ ok: false, code: 'engine_failed', written: 0 });
    expect(budget.engineFailures).toBe(1);
    expect(budget.ledger.cellsUsed).toBe(before);
    await empty(budget);
  });
});
