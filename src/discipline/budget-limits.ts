import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';

/** Hot state ≤ 1000 tokens. */
export const DEFAULT_MAX_HOT_STATE_TOKENS = 1000;
/** At most 20 artifact references in the hot state's index. */
export const DEFAULT_MAX_ARTIFACT_INDEX_ENTRIES = 20;
/** The whole prompt (hot state, system prompt, user content, messages, RAG chunks, inline artifacts) ≤ 8000 tokens. */
export const DEFAULT_MAX_PROMPT_TOKENS = 8000;
/** At most 10 RAG chunks per prompt. */
export const DEFAULT_MAX_RAG_CHUNKS = 10;
/** An artifact over 2000 characters must be passed by reference, not inline. */
export const DEFAULT_MAX_INLINE_ARTIFACT_CHARS = 2000;

/** The context budget (seed 002). */
export interface BudgetLimits {
  /** @default 1000 */
  maxHotStateTokens: number;
  /** @default 20 */
  maxArtifactIndexEntries: number;
  /** @default 8000 */
  maxPromptTokens: number;
  /** @default 10 */
  maxRagChunks: number;
  /** @default 2000 */
  maxInlineArtifactChars: number;
}

export const DEFAULT_BUDGET_LIMITS: Readonly<BudgetLimits> = Object.freeze({
  maxHotStateTokens: DEFAULT_MAX_HOT_STATE_TOKENS,
  maxArtifactIndexEntries: DEFAULT_MAX_ARTIFACT_INDEX_ENTRIES,
  maxPromptTokens: DEFAULT_MAX_PROMPT_TOKENS,
  maxRagChunks: DEFAULT_MAX_RAG_CHUNKS,
  maxInlineArtifactChars: DEFAULT_MAX_INLINE_ARTIFACT_CHARS,
});

const limit = (fallback: number) => z.number().int().min(0).optional().meta({ default: fallback });

/** Overrides of the budget; each omitted limit keeps its default, an unknown key is an error. */
export const BudgetLimitsSchema = z
  .strictObject({
    maxHotStateTokens: limit(DEFAULT_MAX_HOT_STATE_TOKENS),
    maxArtifactIndexEntries: limit(DEFAULT_MAX_ARTIFACT_INDEX_ENTRIES),
    maxPromptTokens: limit(DEFAULT_MAX_PROMPT_TOKENS),
    maxRagChunks: limit(DEFAULT_MAX_RAG_CHUNKS),
    maxInlineArtifactChars: limit(DEFAULT_MAX_INLINE_ARTIFACT_CHARS),
  })
  .meta({
    id: 'BudgetLimits',
    description: 'Context budget limits of the hot state, artifacts and prompt (context discipline)',
  });
export type BudgetLimitsInput = z.infer<typeof BudgetLimitsSchema>;

/**
 * The defaults with the given overrides applied.
 * @throws BarometerValidationError naming each invalid or unknown limit
 */
export function resolveBudgetLimits(overrides: BudgetLimitsInput = {}): BudgetLimits {
  const parsed = parseWith(BudgetLimitsSchema, overrides);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'budget limits');
  const resolved: BudgetLimits = { ...DEFAULT_BUDGET_LIMITS };
  for (const [key, value] of Object.entries(parsed.value) as [keyof BudgetLimits, number | undefined][]) {
    if (value !== undefined) resolved[key] = value;
  }
  return resolved;
}
