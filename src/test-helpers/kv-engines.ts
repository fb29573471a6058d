/**
 * The real llama.cpp engines of the KV tests: lloyal's native context (the seed 001 system's own binary,
 * `@lloyal-labs/lloyal.node-linux-x64`) and node-llama-cpp, both installed by `npm ci` through the optional
 * dependencies of `test/kv-engines/package.json`, running a model written by `tinyGguf` in a temp folder.
 * They are built for linux-x64 only: elsewhere the suites skip and say why. On linux-x64 a missing engine skips
 * with the reason outside CI and fails in CI (`CI` set).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LloyalNativeContext } from '../integrations/lloyal-kv-engine.js';
import { writeTinyGguf } from './tiny-gguf.js';

const require = createRequire(import.meta.url);

export const LLOYAL_PACKAGE = '@lloyal-labs/lloyal.node-linux-x64';
const supported = process.platform === 'linux' && process.arch === 'x64';

export type KvEngineName = 'lloyal' | 'node-llama-cpp';
const PACKAGES: Record<KvEngineName, string[]> = {
  lloyal: [LLOYAL_PACKAGE],
  'node-llama-cpp': ['node-llama-cpp', '@node-llama-cpp/linux-x64'],
};

/** Why an engine cannot run here, or undefined when it can. */
export function engineMissing(engine: KvEngineName): string | undefined {
  if (!supported)
    return `the native llama.cpp engines are built for linux-x64 only (this is ${process.platform}-${process.arch})`;
  for (const name of PACKAGES[engine]) {
    // The packages' `exports` hide package.json: look for the folder the way Node's resolution would.
    const found = (require.resolve.paths(name) ?? []).some((folder) =>
      existsSync(join(folder, name, 'package.json')),
    );
    if (!found) return `${name} is not installed (npm ci installs it)`;
  }
  return undefined;
}

/**
 * Whether a KV engine suite skips: on another platform (it cannot run there, CI or not), or on linux-x64 outside
 * CI when an engine is missing. The reason is printed. In CI on linux-x64 the suite runs, and fails on what is missing.
 */
export function skipWithoutEngine(engine: KvEngineName, suite: string): boolean {
  const missing = engineMissing(engine);
  if (missing === undefined) return false;
  if (supported && process.env.CI) return false;
  console.warn(
    `Skipping the KV engine suite "${suite}": ${missing}.${supported ? ' With CI set it fails instead.' : ''}`,
  );
  return true;
}

/** A temp folder holding a freshly generated tiny model; `remove()` deletes it. */
export function tinyModelFile(seed = 'barometer-kv'): { path: string; remove(): void } {
  const folder = mkdtempSync(join(tmpdir(), 'barometer-kv-'));
  const path = writeTinyGguf(join(folder, 'tiny.gguf'), { seed });
  return { path, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

/** The native binding's own entry (lloyal.node's `createContext`), typed by what the tests call. */
export interface LloyalTestContext extends LloyalNativeContext {
  _branchGetPosition(handle: number): number;
  _branchSample(handle: number): number;
  _branchChildren(handle: number): number[];
  dispose(): void;
}

export interface LloyalContextOptions {
  nCtx: number;
  nBatch: number;
  nSeqMax: number;
}

/** lloyal's native context on the model, one thread. */
export async function lloyalContext(
  modelPath: string,
  options: LloyalContextOptions,
): Promise<LloyalTestContext> {
  const native = require(LLOYAL_PACKAGE) as {
    createContext(options: Record<string, unknown>): Promise<LloyalTestContext>;
  };
  return native.createContext({ modelPath, nThreads: 1, ...options });
}

const probeTokens = (count: number, offset: number) =>
  Array.from({ length: count }, (_, i) => 3 + ((offset + i) % 350));

/**
 * The real cache's free cells, measured: a fresh branch takes `expected` tokens (in `nBatch` chunks) and then
 * refuses one more. The probe branch is pruned afterwards, so the cache is as it was.
 */
export async function probeFreeCells(
  context: LloyalTestContext,
  nBatch: number,
  expected: number,
): Promise<{ filled: boolean; oneMore: boolean }> {
  const probe = context._branchCreate(0, {}, nBatch);
  let filled = true;
  try {
    for (let start = 0; start < expected; start += nBatch)
      await context._branchPrefill(probe, probeTokens(Math.min(nBatch, expected - start), start));
  } catch {
    filled = false;
  }
  const oneMore = await context._branchPrefill(probe, [7]).then(
    () => true,
    () => false,
  );
  context._branchPrune(probe);
  return { filled, oneMore };
}
