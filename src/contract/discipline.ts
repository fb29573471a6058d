import * as z from 'zod';
import { BudgetLimitsSchema } from '../discipline/budget-limits.js';
import { HOT_STATE_LIST_FIELDS, HotStateSchema } from '../discipline/hot-state.js';
import { BUDGET_VIOLATION_CODES, PromptPartsSchema } from '../discipline/validate-budgets.js';
import { DiffOnlyOptionsSchema } from '../discipline/validate-diff-only.js';

/**
 * Context discipline (seed 002) on the wire: `/api/v1/hot-state/check`, `/api/v1/hot-state/enforce`,
 * `/api/v1/diff/check`, `/api/v1/artifacts/:id`. The hot state, the prompt parts and the limits are the library's
 * own schemas (src/discipline); the answers agree with the library's types (a type-level test checks it).
 */

export { BudgetLimitsSchema } from '../discipline/budget-limits.js';
export { ArtifactIndexEntrySchema, HotStateSchema } from '../discipline/hot-state.js';
export { PromptPartsSchema } from '../discipline/validate-budgets.js';
export { DiffOnlyOptionsSchema } from '../discipline/validate-diff-only.js';

const count = z.number().int().min(0);

/** `POST /api/v1/hot-state/check`. */
export const HotStateCheckSchema = z.strictObject({
  hotState: z.unknown(),
  /** Cap in tokens; the state falls back to its minimal form above it. @default 1000 */
  maxTokens: z.number().int().min(1).optional(),
  /** A prompt to check against the budgets together with the hot state. */
  prompt: PromptPartsSchema.optional(),
  limits: BudgetLimitsSchema.optional(),
});

/** `POST /api/v1/hot-state/enforce`. */
export const EnforceRequestSchema = z.strictObject({
  hotState: z.unknown(),
  limits: BudgetLimitsSchema.optional(),
  compress: z.boolean().optional(),
  reference: z.boolean().optional(),
});

/** `POST /api/v1/diff/check`. */
export const DiffCheckSchema = DiffOnlyOptionsSchema.extend({ output: z.string() });

/** `/api/v1/artifacts/:id`: the artifact's sha256. */
export const ArtifactParamsSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 in hex'),
});

/** A hot state held to a token cap, and how it got there. */
export const CappedHotStateSchema = z.strictObject({
  state: HotStateSchema,
  /** Tokens of the returned state; null when the counter failed. */
  tokens: count.nullable(),
  /** The state was over the cap (or could not be counted) and was replaced by the minimal state. */
  truncated: z.boolean(),
  /** False when even the minimal state is over the cap or could not be counted: treat it as a violation. */
  fits: z.boolean(),
  counter: z.string(),
});

/** One budget exceeded, or one that could not be checked (which counts as exceeded: fail closed). */
export const BudgetViolationSchema = z.strictObject({
  code: z.enum(BUDGET_VIOLATION_CODES),
  actual: z.number().nullable(),
  limit: z.number(),
  reason: z.enum(['over_limit', 'unmeasurable']),
  /** For `inline_artifact_chars`: which inline artifact. */
  index: count.optional(),
});

/** The limits in force, every one resolved. */
export const ResolvedBudgetLimitsSchema = z.strictObject({
  maxHotStateTokens: count,
  maxArtifactIndexEntries: count,
  maxPromptTokens: count,
  maxRagChunks: count,
  maxInlineArtifactChars: count,
});

/** The outcome of a budget check. */
export const BudgetCheckSchema = z.strictObject({
  /** True only when every budget was measured and none is exceeded. */
  ok: z.boolean(),
  violations: z.array(BudgetViolationSchema),
  measured: z.strictObject({
    hotStateTokens: count.nullable(),
    artifactIndexEntries: count,
    promptTokens: count.nullable(),
    ragChunks: count,
    inlineArtifactChars: z.array(count),
  }),
  limits: ResolvedBudgetLimitsSchema,
  counter: z.string(),
  estimate: z.boolean(),
});

/** `POST /api/v1/hot-state/check` answers the capped state and the budget check. */
export const HotStateCheckAnswerSchema = z
  .strictObject({ capped: CappedHotStateSchema, budgets: BudgetCheckSchema })
  .meta({ id: 'HotStateCheckAnswer' });

const CompressionChangeSchema = z.strictObject({
  field: z.string(),
  change: z.enum(['dropped-empty', 'deduplicated', 'dropped-summaries']),
  removed: count,
});

const ExtractedReferenceSchema = z.strictObject({
  field: z.enum(HOT_STATE_LIST_FIELDS),
  /** sha256 hex of `content`: the id the artifact registry gave it. */
  artifactId: z.string(),
  /** The list as JSON text, exactly as it was in the original state. */
  content: z.string(),
  entries: count,
});

/** `POST /api/v1/hot-state/enforce`: the budgeter's decision, tried in order pass → compress → reference → reject. */
export const BudgetDecisionSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('pass'), state: HotStateSchema, tokens: count, counter: z.string() }),
    z.strictObject({
      type: z.literal('compress'),
      state: HotStateSchema,
      tokens: count,
      originalTokens: count.nullable(),
      changes: z.array(CompressionChangeSchema),
      counter: z.string(),
    }),
    z.strictObject({
      type: z.literal('reference'),
      state: HotStateSchema,
      tokens: count,
      originalTokens: count.nullable(),
      /** The lists stored in the artifact registry (already, when the service answers). */
      references: z.array(ExtractedReferenceSchema),
      changes: z.array(CompressionChangeSchema),
      counter: z.string(),
    }),
    z.strictObject({
      type: z.literal('reject'),
      state: HotStateSchema,
      originalTokens: count.nullable(),
      violations: z.array(BudgetViolationSchema),
      tried: z.array(z.enum(['compress', 'reference'])),
      counter: z.string(),
    }),
  ])
  .meta({ id: 'BudgetDecision' });

const DiffOnlyReasonSchema = z.discriminatedUnion('code', [
  z.strictObject({ code: z.literal('full_file_rewrite'), lines: count, diffLines: count }),
  z.strictObject({ code: z.literal('large_code_block'), chars: count }),
  z.strictObject({ code: z.literal('malformed_unified_diff'), detail: z.string() }),
  z.strictObject({ code: z.literal('no_hunks') }),
  z.strictObject({ code: z.literal('malformed_json_patch'), field: z.string(), detail: z.string() }),
]);

/** `POST /api/v1/diff/check`: whether an output is diff-only, what it looks like, and why it was refused. */
export const DiffOnlyResultSchema = z
  .strictObject({
    ok: z.boolean(),
    kind: z.enum(['unified-diff', 'json-patch', 'full-file-rewrite', 'empty', 'other']),
    /** False when the task is not a code modification: the output is then accepted whatever it is. */
    checked: z.boolean(),
    /** Files a unified diff touches (without `a/` `b/` prefixes and `/dev/null`). */
    files: z.array(z.string()),
    reasons: z.array(DiffOnlyReasonSchema),
  })
  .meta({ id: 'DiffOnlyResult' });
