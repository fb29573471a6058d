import type { KvEngine } from '../kv/kv-engine.js';

/** The part of a node-llama-cpp `LlamaContextSequence` the KV budget drives, declared by shape. */
export interface NodeLlamaCppSequence {
  readonly contextTokens: readonly number[];
  readonly nextTokenIndex: number;
  evaluateWithoutGeneratingNewTokens(tokens: number[]): Promise<void>;
  dispose(): void;
}

/** The part of a node-llama-cpp `LlamaContext` the KV budget drives, declared by shape. */
export interface NodeLlamaCppContext {
  readonly contextSize: number;
  readonly batchSize: number;
  readonly sequencesLeft: number;
  getSequence(options?: {
    contextShift?: { strategy?: (options: { sequence: unknown; size: number }) => never };
  }): NodeLlamaCppSequence;
}

/**
 * Waits until node-llama-cpp has freed a disposed sequence's cells: `dispose()` returns at once and frees them
 * under the context's lock (`LlamaContext._reclaimUnusedSequenceId`), after which the sequence is counted in
 * `sequencesLeft` again. A bounded wait on that state, not on a clock.
 */
export async function reclaimed(context: { readonly sequencesLeft: number }, before: number): Promise<void> {
  for (let turn = 0; context.sequencesLeft <= before; turn++) {
    if (turn > 100_000) throw new Error('node-llama-cpp did not free a disposed sequence');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * A node-llama-cpp context as a `KvEngine`. node-llama-cpp creates its llama.cpp context with `kv_unified = false`
 * and `contextSize × sequences` cells, so each sequence has cells of its own and a fork re-decodes its parent's
 * tokens into a new sequence. It keeps one cell of a sequence free (`freeSpace = contextSize − 1 − nextTokenIndex`
 * in `LlamaContextSequence._decodeTokens`), so a sequence holds `contextSize − 1` tokens. Its context shift (which
 * erases the oldest tokens of a full sequence to make room) is refused: the budget stops the agent first, and a
 * shift would silently drop what the agent said.
 */
export function nodeLlamaCppKvEngine(context: NodeLlamaCppContext): KvEngine {
  const sequences = new Map<string, NodeLlamaCppSequence>();
  let counter = 0;
  const refuseShift = (): never => {
    throw new Error('context shift refused: the KV budget keeps the sequence from filling');
  };
  const get = (branch: string): NodeLlamaCppSequence => {
    const sequence = sequences.get(branch);
    if (!sequence) throw new Error(`no node-llama-cpp sequence ${branch}`);
    return sequence;
  };
  const open = (): string => {
    const id = `sequence-${++counter}`;
    sequences.set(id, context.getSequence({ contextShift: { strategy: refuseShift } }));
    return id;
  };
  const release = async (branch: string): Promise<void> => {
    const before = context.sequencesLeft;
    get(branch).dispose();
    sequences.delete(branch);
    await reclaimed(context, before);
  };
  return {
    layout: 'perSequence',
    nCtx: context.contextSize - 1,
    nBatch: context.batchSize,
    open: async () => open(),
    fork: async (parent) => {
      const prefix = [...get(parent).contextTokens];
      const id = open();
      try {
        for (let start = 0; start < prefix.length; start += context.batchSize)
          await get(id).evaluateWithoutGeneratingNewTokens(prefix.slice(start, start + context.batchSize));
      } catch (error) {
        await release(id);
        throw error;
      }
      return id;
    },
    decode: (branch, tokens) => get(branch).evaluateWithoutGeneratingNewTokens([...tokens]),
    release,
    retainOnly: async (branch) => {
      get(branch);
      for (const id of [...sequences.keys()]) if (id !== branch) await release(id);
    },
  };
}
