import type { KvEngine } from '../kv/kv-engine.js';

/**
 * The part of lloyal's native context (`@lloyal-labs/lloyal.node-<platform>`, `createContext`) the KV budget
 * drives: its branch and store operations (lloyal-ai/lloyal.node `src/SessionContext.cpp`). Declared here by
 * shape, so that barometer loads without the native package.
 */
export interface LloyalNativeContext {
  _branchCreate(position: number, params?: object, nBatch?: number): number;
  _branchFork(handle: number): number;
  _branchPrefill(handle: number, tokens: number[]): Promise<void>;
  _branchPrune(handle: number): void;
  _storeRetainOnly(handle: number): void;
  _storeKvPressure(): { nCtx: number; cellsUsed: number; remaining: number };
}

function handle(branch: string): number {
  const value = Number(branch);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`not a lloyal branch handle: ${branch}`);
  return value;
}

/**
 * lloyal's native context as a `KvEngine`. Its cache is unified (`kv_unified = true`, one pool of `nCtx` cells):
 * a fork shares its parent's prefix, counted once. `nBatch` is the value the context was created with (lloyal
 * cuts a prefill into chunks of it; its default is 512).
 */
export function lloyalKvEngine(context: LloyalNativeContext, options: { nBatch: number }): KvEngine {
  return {
    layout: 'unified',
    nCtx: context._storeKvPressure().nCtx,
    nBatch: options.nBatch,
    open: async () => String(context._branchCreate(0, {}, options.nBatch)),
    fork: async (parent) => String(context._branchFork(handle(parent))),
    decode: (branch, tokens) => context._branchPrefill(handle(branch), [...tokens]),
    release: async (branch) => context._branchPrune(handle(branch)),
    retainOnly: async (branch) => context._storeRetainOnly(handle(branch)),
    cellsUsed: () => context._storeKvPressure().cellsUsed,
  };
}
