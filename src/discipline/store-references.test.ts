import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { enforceBudget } from './enforce-budget.js';
import { buildHotState } from './hot-state.js';
import { type ArtifactSink, ReferenceIdMismatchError, storeReferences } from './store-references.js';

const constraints = Array.from({ length: 500 }, (_, i) => `constraint ${i}: keep the public API stable`);

/** A sink that keeps what it is given under its sha256, as the artifact registry does. */
function memorySink(): ArtifactSink & { stored: Map<string, string> } {
  const stored = new Map<string, string>();
  return {
    stored,
    async putText(content: string) {
      const id = createHash('sha256').update(content).digest('hex');
      stored.set(id, content);
      return { id };
    },
  };
}

describe('storeReferences', () => {
  it('stores each extracted list so that the new references resolve', async () => {
    const sink = memorySink();
    const decision = await storeReferences(
      enforceBudget(buildHotState({ session_id: 's1', constraints })),
      sink,
    );
    expect(decision.type).toBe('reference');
    const entry = decision.state.artifact_index?.[0];
    expect(JSON.parse(sink.stored.get(entry?.artifact_id ?? '') ?? 'null')).toEqual(constraints);
  });

  it('passes other decisions through without storing anything', async () => {
    const sink = memorySink();
    const decision = enforceBudget(buildHotState({ session_id: 's1' }));
    expect(await storeReferences(decision, sink)).toBe(decision);
    expect(sink.stored.size).toBe(0);
  });

  it('refuses a store that answers with another id', async () => {
    const liar: ArtifactSink = { putText: async () => ({ id: 'f'.repeat(64) }) };
    const decision = enforceBudget(buildHotState({ session_id: 's1', constraints }));
    await expect(storeReferences(decision, liar)).rejects.toMatchObject({
      name: 'ReferenceIdMismatchError',
      code: 'BR_ERR_INTEGRITY',
    });
    await expect(storeReferences(decision, liar)).rejects.toBeInstanceOf(ReferenceIdMismatchError);
  });
});
