/**
 * The real llama.cpp engines of the KV tests: lloyal's native context (the seed 001 system's own binary,
 * `@lloyal-labs/lloyal.node-linux-x64`) and node-llama-cpp (with its CPU build `@node-llama-cpp/linux-x64`), running
 * a model written by `tinyGguf` in a temp folder. They live in `test/kv-engines/node_modules`, installed apart from
 * the project by `npm run kv-engines` from that folder's own lock file, without node-llama-cpp's optional GPU builds
 * (docs/decisions/101-kv-engines-installed-apart.md); `.ci/run` runs it. They are built for linux-x64 only: elsewhere
 * the suites skip and say why. On linux-x64 a missing engine skips with the reason outside CI and fails under
 * `CI=true`.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { LloyalNativeContext } from '../integrations/lloyal-kv-engine.js';
import type { NodeLlamaCppContext } from '../integrations/node-llama-cpp-kv-engine.js';
import { writeTinyGguf } from './tiny-gguf.js';

/** The engines' own package folder: its node_modules holds them, resolved from there and nowhere else. */
export const KV_ENGINES_FOLDER = fileURLToPath(new URL('../../test/kv-engines/', import.meta.url));
const requireEngine = createRequire(join(KV_ENGINES_FOLDER, 'package.json'));

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
    // The packages' `exports` hide package.json: look for the folder itself.
    if (!existsSync(join(KV_ENGINES_FOLDER, 'node_modules', name, 'package.json')))
      return `${name} is not installed in test/kv-engines (npm run kv-engines installs it)`;
  }
  return undefined;
}

/**
 * Whether a KV engine suite skips: on another platform (it cannot run there, CI or not), or on linux-x64 outside
 * CI when an engine is missing. The reason is printed. Under CI=true on linux-x64 the suite runs, and fails on what
 * is missing.
 */
export function skipWithoutEngine(engine: KvEngineName, suite: string): boolean {
  const missing = engineMissing(engine);
  if (missing === undefined) return false;
  if (supported && process.env.CI) return false;
  console.warn(
    `Skipping the KV engine suite "${suite}": ${missing}.${supported ? ' Under CI=true it fails instead.' : ''}`,
  );
  return true;
}

/** Under CI=true a suite runs without its engine, and fails here with the reason rather than a bare resolve error. */
function assertInstalled(engine: KvEngineName): void {
  const missing = engineMissing(engine);
  if (missing !== undefined) throw new Error(`the ${engine} KV engine cannot run: ${missing}`);
}

/** The part of node-llama-cpp's `Llama` and `LlamaModel` the tests call, declared by shape (node-llama-cpp docs). */
export interface NodeLlamaCppLoaded {
  /** `stateSize`: the bytes of the context's state, which grow by a fixed size per occupied cell. */
  context: NodeLlamaCppContext & { readonly stateSize: number };
  /** Disposes of the context, the model and the llama, in that order. */
  dispose(): Promise<void>;
}

interface NodeLlamaCppModule {
  getLlama(options: Record<string, unknown>): Promise<{
    loadModel(options: { modelPath: string }): Promise<{
      createContext(
        options: Record<string, unknown>,
      ): Promise<NodeLlamaCppLoaded['context'] & { dispose(): Promise<void> }>;
      dispose(): Promise<void>;
    }>;
    dispose(): Promise<void>;
  }>;
}

/**
 * node-llama-cpp's context on the model, one thread, its CPU build (`gpu: false`) and never a build from source
 * (`build: 'never'`: there is no network for its source download, and the prebuilt binary is installed).
 */
export async function nodeLlamaCppContext(
  modelPath: string,
  options: { contextSize: number; sequences: number; batchSize: number },
): Promise<NodeLlamaCppLoaded> {
  assertInstalled('node-llama-cpp');
  const entry = pathToFileURL(requireEngine.resolve('node-llama-cpp')).href;
  const { getLlama } = (await import(entry)) as NodeLlamaCppModule;
  const llama = await getLlama({ gpu: false, build: 'never', maxThreads: 1, logLevel: 'error' });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ ...options, threads: 1 });
  return {
    context,
    dispose: async () => {
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
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
  assertInstalled('lloyal');
  const native = requireEngine(LLOYAL_PACKAGE) as {
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
