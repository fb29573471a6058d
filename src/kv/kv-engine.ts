import { CellLedger, type KvLayout } from './cell-ledger.js';
import type { ContextPressure } from './context-pressure.js';
import { prefillPlan } from './prefill-plan.js';
import { type ProduceResult, produce, type ToolCall } from './produce.js';
import { type SettleResult, settle, type ToolResultSize } from './settle.js';

/**
 * A llama.cpp engine's KV cache seen through its branch operations: what barometer needs to keep its ledger equal
 * to the engine's cells. Adapters: `lloyalKvEngine` (lloyal's native context, unified cache) and
 * `nodeLlamaCppKvEngine` (node-llama-cpp, a cache per sequence), both in barometer/internal.
 */
export interface KvEngine {
  /** How the cache is laid out: one shared pool, or cells of their own per sequence. */
  readonly layout: KvLayout;
  /** The cells a caller can fill: the pool (unified) or one sequence (per sequence). */
  readonly nCtx: number;
  /** Tokens per decode call; a prefill is cut into chunks of this size. */
  readonly nBatch: number;
  /** Opens an empty branch (a sequence of its own). @returns the engine's id for it */
  open(): Promise<string>;
  /** Forks a branch at its current position: unified engines share the prefix, per-sequence ones copy it. */
  fork(parent: string): Promise<string>;
  /** Decodes at most `nBatch` tokens on a branch in one call; rejects when the engine fails (nothing written). */
  decode(branch: string, tokens: readonly number[]): Promise<void>;
  /** Frees a branch's cells (a branch without live forks). */
  release(branch: string): Promise<void>;
  /** Keeps only `branch`; every other branch is freed. */
  retainOnly(branch: string): Promise<void>;
  /** The engine's own count of cells in use, where it keeps one (lloyal's `_storeKvPressure`). */
  cellsUsed?(): number;
}

/** What a prefill did: all of it, or nothing and why (barometer refused it, or the engine failed a chunk). */
export type PrefillOutcome =
  | { readonly ok: true; readonly written: number }
  | {
      readonly ok: false;
      readonly code: 'would_half_commit' | 'engine_failed';
      /** Tokens the engine holds from this prefill (whole chunks before a failed one). */
      readonly written: number;
      readonly reason: string;
    };

export interface KvEngineBudgetOptions {
  /** @default 1024 */
  softLimit?: number;
  /** @default the engine's nBatch (a decode of one batch needs that many free cells) */
  hardLimit?: number;
}

/**
 * Barometer's KV budget fed by a real engine: every operation goes to the engine and, when the engine did it, to
 * a `CellLedger` kept for the engine's layout, so that the figures SETTLE and PRODUCE read are the engine's.
 * A prefill is decoded chunk by chunk and recorded chunk by chunk, and a prefill larger than the free cells is
 * refused before the engine sees it (it would write its first chunks and fail). A branch with live forks is
 * refused before the engine sees it (lloyal's native binary aborts the process on it).
 *
 * @example
 * const budget = new KvEngineBudget(lloyalKvEngine(context, { nBatch: 64 }), { softLimit: 256 });
 * const root = await budget.open();
 * await budget.prefill(root, promptTokens);
 * const verdict = budget.settle(root, [{ id: 'call-1', tokens: result.length }]);
 */
export class KvEngineBudget {
  readonly engine: KvEngine;
  readonly ledger: CellLedger;
  #engineFailures = 0;

  constructor(engine: KvEngine, options: KvEngineBudgetOptions = {}) {
    this.engine = engine;
    this.ledger = new CellLedger({
      nCtx: engine.nCtx,
      nBatch: engine.nBatch,
      layout: engine.layout,
      ...(options.softLimit === undefined ? {} : { softLimit: options.softLimit }),
      ...(options.hardLimit === undefined ? {} : { hardLimit: options.hardLimit }),
    });
  }

  /** Engine calls that failed (each left the ledger equal to what the engine holds). */
  get engineFailures(): number {
    return this.#engineFailures;
  }

  async open(): Promise<string> {
    return this.ledger.open(await this.engine.open());
  }

  async fork(parent: string): Promise<string> {
    this.ledger.position(parent); // an unknown branch fails here, before the engine sees it
    return this.ledger.fork(parent, await this.engine.fork(parent));
  }

  /** Decodes `tokens` on a branch in `nBatch` chunks, each recorded once the engine has it. */
  async prefill(branch: string, tokens: readonly number[]): Promise<PrefillOutcome> {
    const { remaining } = this.ledger.pressure(branch);
    const plan = prefillPlan({ remaining, tokens: tokens.length, nBatch: this.engine.nBatch });
    if (!plan.fits) {
      return {
        ok: false,
        code: 'would_half_commit',
        written: 0,
        reason:
          `${tokens.length} tokens exceed the ${remaining} free KV cells: the engine would write ` +
          `${plan.committed} in chunks of ${this.engine.nBatch} and then fail; nothing was decoded`,
      };
    }
    let written = 0;
    for (let start = 0; start < tokens.length; start += this.engine.nBatch) {
      const chunk = tokens.slice(start, start + this.engine.nBatch);
      try {
        await this.engine.decode(branch, chunk);
      } catch (error) {
        this.#engineFailures++;
        return {
          ok: false,
          code: 'engine_failed',
          written,
          reason: `the engine failed a chunk of ${chunk.length} tokens after ${written}: ${String(error)}`,
        };
      }
      this.ledger.decode(branch, chunk.length);
      written += chunk.length;
    }
    return { ok: true, written };
  }

  /** Releases a branch; one with live forks is refused (a validation error) and the engine is not called. */
  async release(branch: string): Promise<number> {
    const freed = this.ledger.release(branch);
    await this.engine.release(branch);
    return freed;
  }

  async retainOnly(branch: string): Promise<void> {
    this.ledger.position(branch);
    await this.engine.retainOnly(branch);
    this.ledger.retainOnly(branch);
  }

  /** The budget now: the shared pool (unified), or the branch's own sequence (per sequence). */
  pressure(branch?: string): ContextPressure {
    return this.ledger.pressure(branch);
  }

  /** SETTLE against the branch's real headroom: which tool results may be decoded, in order. */
  settle(branch: string, toolResults: readonly ToolResultSize[]): SettleResult {
    return settle(this.pressure(branch), toolResults);
  }

  /** PRODUCE against the branch's real budget: stop when critical, cut non-terminal calls when over. */
  produce(branch: string, toolCalls: readonly ToolCall[]): ProduceResult {
    return produce(this.pressure(branch), toolCalls);
  }

  /** The engine's count minus the ledger's, where the engine keeps one (0 when they agree). */
  drift(): number | undefined {
    const engineCells = this.engine.cellsUsed?.();
    return engineCells === undefined ? undefined : engineCells - this.ledger.cellsUsed;
  }
}
