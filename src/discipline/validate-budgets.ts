import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import { type ChatMessage, ChatMessageSchema, countMessages } from '../tokens/count-messages.js';
import { type TokenCounter, TokenCounterSchema } from '../tokens/token-counter.js';
import { type BudgetLimits, BudgetLimitsSchema, resolveBudgetLimits } from './budget-limits.js';
import { formatHotStateJson, type HotState, HotStateSchema } from './hot-state.js';
import { defaultTokenCounter, tryCount } from './try-count.js';

/** Which budget a violation is about. */
export const BUDGET_VIOLATION_CODES = [
  'hot_state_tokens',
  'artifact_index_entries',
  'prompt_tokens',
  'rag_chunks',
  'inline_artifact_chars',
] as const;
export type BudgetViolationCode = (typeof BUDGET_VIOLATION_CODES)[number];

/** One budget exceeded, or one budget that could not be checked (which counts as exceeded: fail closed). */
export interface BudgetViolation {
  code: BudgetViolationCode;
  /** The measured figure; null when it could not be measured. */
  actual: number | null;
  limit: number;
  reason: 'over_limit' | 'unmeasurable';
  /** For `inline_artifact_chars`: which inline artifact. */
  index?: number;
}

/** What a prompt is made of, besides the hot state. Every text is counted with the same counter. */
export const PromptPartsSchema = z
  .strictObject({
    systemPrompt: z.string().optional(),
    userContent: z.string().optional(),
    /** Chat messages, counted with ChatML framing. */
    messages: z.array(ChatMessageSchema).optional(),
    ragChunks: z.array(z.string()).optional(),
    /** Artifacts passed inline rather than by reference. */
    inlineArtifacts: z.array(z.string()).optional(),
    /** The prompt's size as the provider measured it; used instead of counting when given. */
    promptTokens: z.number().int().min(0).optional(),
  })
  .meta({ id: 'PromptParts', description: 'The parts of a prompt checked against the context budget' });
export type PromptParts = Omit<z.infer<typeof PromptPartsSchema>, 'messages'> & {
  messages?: readonly ChatMessage[];
};

/** Options of the budget checks; unknown keys are rejected. */
export const BudgetCheckOptionsSchema = z.strictObject({
  limits: BudgetLimitsSchema.optional(),
  /** @default createTokenCounter() (o200k_base) */
  counter: TokenCounterSchema.optional(),
});
export type BudgetCheckOptions = z.infer<typeof BudgetCheckOptionsSchema>;

/** The figures a budget check measured; null where a figure could not be measured. */
export interface BudgetMeasurements {
  hotStateTokens: number | null;
  artifactIndexEntries: number;
  promptTokens: number | null;
  ragChunks: number;
  inlineArtifactChars: number[];
}

/** The outcome of a budget check, as data. */
export interface BudgetCheck {
  /** True only when every budget was measured and none is exceeded. */
  ok: boolean;
  violations: BudgetViolation[];
  measured: BudgetMeasurements;
  limits: BudgetLimits;
  counter: string;
  estimate: boolean;
}

/** Resolved limits and counter for a check. @throws BarometerValidationError on invalid options */
export function resolveBudgetCheckOptions(options: BudgetCheckOptions): {
  limits: BudgetLimits;
  counter: TokenCounter;
} {
  const parsed = parseWith(BudgetCheckOptionsSchema, options);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'budget check options');
  return {
    limits: resolveBudgetLimits(parsed.value.limits),
    counter: parsed.value.counter ?? defaultTokenCounter,
  };
}

function overLimit(code: BudgetViolationCode, actual: number | null, limit: number): BudgetViolation | null {
  if (actual === null) return { code, actual, limit, reason: 'unmeasurable' };
  return actual > limit ? { code, actual, limit, reason: 'over_limit' } : null;
}

/**
 * The hot-state budgets of an already validated state: its tokens and its artifact references.
 * Used by the budgeter for each candidate state.
 */
export function checkHotStateBudget(
  state: HotState,
  limits: BudgetLimits,
  counter: TokenCounter,
): { violations: BudgetViolation[]; hotStateTokens: number | null; artifactIndexEntries: number } {
  const hotStateTokens = tryCount(counter, formatHotStateJson(state));
  const artifactIndexEntries = state.artifact_index?.length ?? 0;
  const violations = [
    overLimit('hot_state_tokens', hotStateTokens, limits.maxHotStateTokens),
    overLimit('artifact_index_entries', artifactIndexEntries, limits.maxArtifactIndexEntries),
  ].filter((violation) => violation !== null);
  return { violations, hotStateTokens, artifactIndexEntries };
}

function sumCounts(counter: TokenCounter, texts: readonly (string | undefined)[]): number | null {
  let total = 0;
  for (const text of texts) {
    if (text === undefined) continue;
    const tokens = tryCount(counter, text);
    if (tokens === null) return null;
    total += tokens;
  }
  return total;
}

// A prompt with parts a text tokenizer cannot count (images, audio) has no honest local figure: unless the
// provider measured it, the prompt budget is unmeasurable rather than passed on a lower bound.
function countPromptMessages(messages: readonly ChatMessage[], counter: TokenCounter): number | null {
  try {
    const counted = countMessages(messages, counter);
    return counted.uncounted === 0 && Number.isInteger(counted.tokens) ? counted.tokens : null;
  } catch {
    return null;
  }
}

function promptTokens(
  parts: PromptParts,
  hotStateTokens: number | null,
  counter: TokenCounter,
): number | null {
  if (parts.promptTokens !== undefined) return parts.promptTokens;
  if (hotStateTokens === null) return null;
  const texts = sumCounts(counter, [
    parts.systemPrompt,
    parts.userContent,
    ...(parts.ragChunks ?? []),
    ...(parts.inlineArtifacts ?? []),
  ]);
  const messages = parts.messages === undefined ? 0 : countPromptMessages(parts.messages, counter);
  return texts === null || messages === null ? null : hotStateTokens + texts + messages;
}

/**
 * Checks the hot state alone: its tokens and its number of artifact references.
 * @throws BarometerValidationError when the state or the options are invalid
 */
export function validateHotStateBudget(hotState: HotState, options: BudgetCheckOptions = {}): BudgetCheck {
  return validateBudgets(hotState, undefined, options);
}

/**
 * Checks a turn against the context budget: hot state tokens, artifact references, whole-prompt tokens
 * (hot state + system prompt + user content + messages + RAG chunks + inline artifacts, counted with a real
 * tokenizer, or the provider's measured figure), RAG chunk count and each inline artifact's characters.
 * Every violation is reported, not just the first. Fails closed: a figure that cannot be measured (the
 * counter throws, content it cannot count) is a violation with `reason: 'unmeasurable'`.
 *
 * @param prompt the prompt's other parts; omitted, only the hot state's budgets are checked
 * @throws BarometerValidationError when the hot state, the prompt parts or the options are invalid
 * @example
 * validateBudgets(state, { systemPrompt, userContent }, { limits: { maxPromptTokens: 5000 } }).ok;
 */
export function validateBudgets(
  hotState: HotState,
  prompt?: PromptParts,
  options: BudgetCheckOptions = {},
): BudgetCheck {
  const { limits, counter } = resolveBudgetCheckOptions(options);
  const state = parseWith(HotStateSchema, hotState);
  if (!state.ok) throw new BarometerValidationError(state.issues, 'hot state');
  const hot = checkHotStateBudget(state.value, limits, counter);
  const measured: BudgetMeasurements = {
    hotStateTokens: hot.hotStateTokens,
    artifactIndexEntries: hot.artifactIndexEntries,
    promptTokens: null,
    ragChunks: 0,
    inlineArtifactChars: [],
  };
  const violations = [...hot.violations];
  if (prompt !== undefined) {
    const parsed = parseWith(PromptPartsSchema, prompt);
    if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'prompt');
    // The caller's object is used from here on: parsing only validated it, and messages keep their own type.
    measured.promptTokens = promptTokens(prompt, hot.hotStateTokens, counter);
    measured.ragChunks = prompt.ragChunks?.length ?? 0;
    measured.inlineArtifactChars = (prompt.inlineArtifacts ?? []).map((artifact) => artifact.length);
    const promptViolation = overLimit('prompt_tokens', measured.promptTokens, limits.maxPromptTokens);
    if (promptViolation) violations.push(promptViolation);
    const ragViolation = overLimit('rag_chunks', measured.ragChunks, limits.maxRagChunks);
    if (ragViolation) violations.push(ragViolation);
    measured.inlineArtifactChars.forEach((chars, index) => {
      const violation = overLimit('inline_artifact_chars', chars, limits.maxInlineArtifactChars);
      if (violation) violations.push({ ...violation, index });
    });
  }
  return {
    ok: violations.length === 0,
    violations,
    measured,
    limits,
    counter: counter.name,
    estimate: counter.estimate,
  };
}
