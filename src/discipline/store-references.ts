import { BarometerError } from '../errors/barometer-error.js';
import type { BudgetDecision } from './enforce-budget.js';

/** Where extracted lists are stored: the artifact registry, or anything with the same `putText`. */
export interface ArtifactSink {
  putText(content: string): Promise<{ id: string }>;
}

/** The store answered with an id other than the content's sha256: the reference would point elsewhere. */
export class ReferenceIdMismatchError extends BarometerError {
  declare readonly code: 'BR_ERR_INTEGRITY';
  readonly expected: string;
  readonly actual: string;
  constructor(expected: string, actual: string) {
    super('BR_ERR_INTEGRITY', `Artifact store returned id ${actual} for content whose sha256 is ${expected}`);
    this.name = 'ReferenceIdMismatchError';
    this.expected = expected;
    this.actual = actual;
  }
}

/**
 * Stores the lists a `reference` decision moved out of the hot state, so that its new artifact references
 * resolve; other decisions pass through untouched. Call it before using the decision's state.
 *
 * @throws ReferenceIdMismatchError when the store's id is not the content hash the state refers to
 * @example
 * const decision = await storeReferences(enforceBudget(state), registry);
 */
export async function storeReferences(decision: BudgetDecision, sink: ArtifactSink): Promise<BudgetDecision> {
  if (decision.type !== 'reference') return decision;
  for (const reference of decision.references) {
    const { id } = await sink.putText(reference.content);
    if (id !== reference.artifactId) throw new ReferenceIdMismatchError(reference.artifactId, id);
  }
  return decision;
}
