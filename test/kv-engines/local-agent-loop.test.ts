import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalAgentLoop } from '../../examples/local-agent-loop.js';
import { lloyalKvEngine } from '../../src/integrations/lloyal-kv-engine.js';
import { KvEngineBudget } from '../../src/kv/kv-engine.js';
import {
  type LloyalTestContext,
  lloyalContext,
  probeFreeCells,
  skipWithoutEngine,
  tinyModelFile,
} from '../../src/test-helpers/kv-engines.js';

const N_CTX = 2048;
const N_BATCH = 64;
const skip = skipWithoutEngine('lloyal', 'local agent loop');

describe.skipIf(skip)('a local agent loop gated by the KV budget on lloyal’s real cache', () => {
  let model: ReturnType<typeof tinyModelFile>;
  let context: LloyalTestContext;

  beforeAll(async () => {
    model = tinyModelFile('barometer-loop');
    context = await lloyalContext(model.path, { nCtx: N_CTX, nBatch: N_BATCH, nSeqMax: 2 });
  });
  afterAll(() => {
    context?.dispose();
    model?.remove();
  });

  async function loop(options: { terminalFrom?: number; gates?: boolean }) {
    const budget = new KvEngineBudget(lloyalKvEngine(context, { nBatch: N_BATCH }), { softLimit: 256 });
    const branch = await budget.open();
    await budget.prefill(
      branch,
      Array.from({ length: 200 }, (_, i) => 3 + i),
    );
    const figures: Array<{ remaining: number; critical: boolean }> = [];
    const result = await runLocalAgentLoop({
      budget,
      branch,
      sample: (id) => context._branchSample(Number(id)),
      resultSizes: [120, 40, 300, 80, 500],
      onTurn: (turn) => figures.push(turn),
      ...options,
    });
    return { budget, branch, result, figures };
  }

  it('settles, cuts and stops before producing when critical, and the engine never fails', async () => {
    const { budget, branch, result, figures } = await loop({});
    expect(result.ended).toBe('kv_critical');
    expect(budget.engineFailures).toBe(0);
    expect(result.refusedPrefills).toBe(0);
    expect(result.settled).toBeGreaterThan(0);
    expect(result.rejected).toBeGreaterThan(0);
    expect(result.cut).toBeGreaterThan(0);
    // Stopped below the crash floor (nBatch), never past the end of the cache.
    const { remaining, hardLimit } = budget.pressure();
    expect(hardLimit).toBe(N_BATCH);
    expect(remaining).toBeLessThan(N_BATCH);
    expect(figures.at(-1)).toMatchObject({ remaining, critical: true });
    // barometer's figures are the engine's: its store ledger, and the real cache's free cells.
    expect(budget.drift()).toBe(0);
    expect(await probeFreeCells(context, N_BATCH, remaining)).toEqual({ filled: true, oneMore: false });
    await budget.release(branch);
  });

  it('lets a terminal tool through once over budget, so the agent can finish', async () => {
    // Over budget from turn 6 on: turn 5 ends at 1,792 of 2,048 cells, headroom 256 − 256 = 0.
    const { budget, branch, result } = await loop({ terminalFrom: 7 });
    expect(result.ended).toBe('final_answer');
    expect(result.turns).toBe(8);
    // The read and grep of turns 6 and 7 were cut; turn 7's final answer passed.
    expect(result.cut).toBe(4);
    expect(budget.engineFailures).toBe(0);
    await budget.release(branch);
  });

  it('runs into the engine’s failure with the gates ignored (what the gated runs are checked against)', async () => {
    const { branch, result } = await loop({ gates: false });
    expect(result.ended).toBe('engine_failed');
    context._branchPrune(Number(branch));
  });
});
