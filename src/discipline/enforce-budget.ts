import { createHash } from 'node:crypto';
import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { BudgetLimits } from './budget-limits.js';
import {
  type ArtifactIndexEntry,
  HOT_STATE_LIST_FIELDS,
  type HotState,
  type HotStateListField,
  HotStateSchema,
} from './hot-state.js';
import { tryCount } from './try-count.js';
import {
  BudgetCheckOptionsSchema,
  type BudgetViolation,
  checkHotStateBudget,
  resolveBudgetCheckOptions,
} from './validate-budgets.js';

/** Options of {@link enforceBudget}; unknown keys are rejected. */
export const EnforceBudgetOptionsSchema = BudgetCheckOptionsSchema.extend({
  /** Try compression when the state is over budget. @default true */
  compress: z.boolean().optional(),
  /** Try moving large lists to artifact references when compression is not enough. @default true */
  reference: z.boolean().optional(),
});
export type EnforceBudgetOptions = z.infer<typeof EnforceBudgetOptionsSchema>;

/** One thing compression changed. */
export interface CompressionChange {
  field: string;
  change: 'dropped-empty' | 'deduplicated' | 'dropped-summaries';
  /** Entries (or summaries) removed. */
  removed: number;
}

/** A list moved out of the hot state: the caller stores `content` and gets `artifactId` back. */
export interface ExtractedReference {
  field: HotStateListField;
  /** sha256 hex of `content`: the id the artifact registry gives it. */
  artifactId: string;
  /** The list as JSON text, exactly as it was in the original state. */
  content: string;
  entries: number;
}

/** The budgeter's decision, tried in this order: pass → compress → reference → reject. */
export type BudgetDecision =
  | { type: 'pass'; state: HotState; tokens: number; counter: string }
  | {
      type: 'compress';
      state: HotState;
      tokens: number;
      originalTokens: number | null;
      changes: CompressionChange[];
      counter: string;
    }
  | {
      type: 'reference';
      state: HotState;
      tokens: number;
      originalTokens: number | null;
      /** Lists to store in the artifact registry before the new state is used. */
      references: ExtractedReference[];
      changes: CompressionChange[];
      counter: string;
    }
  | {
      type: 'reject';
      /** The state as given, unchanged. */
      state: HotState;
      originalTokens: number | null;
      /** The violations of the original state. */
      violations: BudgetViolation[];
      /** The strategies tried before rejecting. */
      tried: ('compress' | 'reference')[];
      counter: string;
    };

function dedupe<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const itemKey = key(item);
    if (seen.has(itemKey)) return false;
    seen.add(itemKey);
    return true;
  });
}

/**
 * Shrinks a hot state without touching what it decides: drops empty lists and strings, removes exact
 * duplicate list entries and artifact references, and drops artifact summaries (the artifact itself holds
 * the content, retrievable by id). Returns the new state and what changed.
 * @throws BarometerValidationError when the state is invalid
 */
export function compressHotState(state: HotState): { state: HotState; changes: CompressionChange[] } {
  const parsed = parseWith(HotStateSchema, state);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'hot state');
  const changes: CompressionChange[] = [];
  const compressed: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(parsed.value)) {
    if ((typeof value === 'string' || Array.isArray(value)) && value.length === 0) {
      changes.push({ field, change: 'dropped-empty', removed: 1 });
      continue;
    }
    compressed[field] = value;
  }
  for (const field of HOT_STATE_LIST_FIELDS) {
    const list = compressed[field] as string[] | undefined;
    if (!list) continue;
    const unique = dedupe(list, (entry) => entry);
    if (unique.length < list.length) {
      changes.push({ field, change: 'deduplicated', removed: list.length - unique.length });
      compressed[field] = unique;
    }
  }
  const index = compressed.artifact_index as ArtifactIndexEntry[] | undefined;
  if (index) {
    const unique = dedupe(index, (entry) => JSON.stringify([entry.artifact_id, entry.label, entry.version]));
    if (unique.length < index.length) {
      changes.push({
        field: 'artifact_index',
        change: 'deduplicated',
        removed: index.length - unique.length,
      });
    }
    const summaries = unique.filter((entry) => entry.summary !== undefined).length;
    if (summaries > 0)
      changes.push({ field: 'artifact_index', change: 'dropped-summaries', removed: summaries });
    compressed.artifact_index = unique.map(({ summary: _summary, ...entry }) => entry);
  }
  // Built from a valid state by removing entries only, so it is valid without parsing it again.
  return { state: compressed as HotState, changes };
}

function referenceFor(field: HotStateListField, list: readonly string[]): ExtractedReference {
  const content = JSON.stringify(list);
  const artifactId = createHash('sha256').update(content, 'utf8').digest('hex');
  return { field, artifactId, content, entries: list.length };
}

function indexEntryFor(reference: ExtractedReference): ArtifactIndexEntry {
  return {
    artifact_id: reference.artifactId,
    type: 'data',
    label: `${reference.field}.json`,
    summary: `${reference.entries} ${reference.field}`,
  };
}

// Compression runs on what stays in the state, before the reference entries are added, so that the new
// entries keep the summary that says what each artifact holds.
function withReferences(
  original: HotState,
  references: readonly ExtractedReference[],
  compress: boolean,
): { state: HotState; changes: CompressionChange[] } {
  const rest: HotState = { ...original };
  for (const reference of references) delete rest[reference.field];
  const kept = compress ? compressHotState(rest) : { state: rest, changes: [] };
  const state = HotStateSchema.parse({
    ...kept.state,
    artifact_index: [...(kept.state.artifact_index ?? []), ...references.map(indexEntryFor)],
  });
  return { state, changes: kept.changes };
}

interface Attempt {
  state: HotState;
  tokens: number | null;
  violations: BudgetViolation[];
}

function attempt(state: HotState, limits: BudgetLimits, counter: TokenCounter): Attempt {
  const checked = checkHotStateBudget(state, limits, counter);
  return { state, tokens: checked.hotStateTokens, violations: checked.violations };
}

// Lists whose reference entry would cost more tokens than the list itself are not worth moving out.
function referenceCandidates(original: HotState, counter: TokenCounter): ExtractedReference[] {
  const candidates: { reference: ExtractedReference; saved: number }[] = [];
  for (const field of HOT_STATE_LIST_FIELDS) {
    const list = original[field];
    if (!list || list.length === 0) continue;
    const reference = referenceFor(field, list);
    const listTokens = tryCount(counter, reference.content);
    const entryTokens = tryCount(counter, JSON.stringify(indexEntryFor(reference)));
    if (listTokens === null || entryTokens === null || listTokens <= entryTokens) continue;
    candidates.push({ reference, saved: listTokens - entryTokens });
  }
  return candidates.sort((a, b) => b.saved - a.saved).map((candidate) => candidate.reference);
}

/**
 * Holds a hot state to its budget (tokens and artifact references), trying in order:
 * - `pass`: the state fits as it is;
 * - `compress`: {@link compressHotState} makes it fit;
 * - `reference`: moving its largest lists (decisions, questions, constraints) to artifact references makes it
 *   fit; the lists are returned as `references` for the caller to store (see `storeReferences`);
 * - `reject`: nothing fits (fail closed, also when the state cannot be counted).
 * Pure: it computes the artifact ids (sha256 of each list's JSON) but stores nothing.
 *
 * @throws BarometerValidationError when the state or the options are invalid
 * @example
 * const decision = enforceBudget(state, { limits: { maxHotStateTokens: 1000 } });
 * if (decision.type === 'reject') throw new Error('hot state over budget');
 */
export function enforceBudget(hotState: HotState, options: EnforceBudgetOptions = {}): BudgetDecision {
  const parsedOptions = parseWith(EnforceBudgetOptionsSchema, options);
  if (!parsedOptions.ok) throw new BarometerValidationError(parsedOptions.issues, 'budget options');
  const { compress = true, reference = true, ...checkOptions } = parsedOptions.value;
  const { limits, counter } = resolveBudgetCheckOptions(checkOptions);
  const parsedState = parseWith(HotStateSchema, hotState);
  if (!parsedState.ok) throw new BarometerValidationError(parsedState.issues, 'hot state');
  const original = attempt(parsedState.value, limits, counter);
  const base = { counter: counter.name };
  if (original.violations.length === 0 && original.tokens !== null) {
    return { type: 'pass', state: original.state, tokens: original.tokens, ...base };
  }
  const tried: ('compress' | 'reference')[] = [];
  if (compress) {
    tried.push('compress');
    const { state, changes } = compressHotState(original.state);
    const result = attempt(state, limits, counter);
    if (result.violations.length === 0 && result.tokens !== null) {
      return {
        type: 'compress',
        state,
        tokens: result.tokens,
        originalTokens: original.tokens,
        changes,
        ...base,
      };
    }
  }
  if (reference) {
    tried.push('reference');
    // The seed's source extracted references from the already-compressed state, whose lists compression had
    // dropped, so "reference" could never happen. Lists are taken from the original state, verbatim.
    const chosen: ExtractedReference[] = [];
    for (const candidate of referenceCandidates(original.state, counter)) {
      chosen.push(candidate);
      const candidateState = withReferences(original.state, chosen, compress);
      const result = attempt(candidateState.state, limits, counter);
      if (result.violations.length === 0 && result.tokens !== null) {
        return {
          type: 'reference',
          state: result.state,
          tokens: result.tokens,
          originalTokens: original.tokens,
          references: chosen,
          changes: candidateState.changes,
          ...base,
        };
      }
    }
  }
  return {
    type: 'reject',
    state: original.state,
    originalTokens: original.tokens,
    violations: original.violations,
    tried,
    ...base,
  };
}
