import * as z from 'zod';
import { compileValidator, maxKeys } from '../errors/compiled-validator.js';
import type { Result } from '../errors/validation.js';
import { UsageWindowSchema } from '../quota/windows/usage-window.js';
import { normalizeUsage } from '../usage/normalize-usage.js';
import { UsageFormatSchema } from '../usage/usage-format.js';
import type { UsageSource } from '../usage/usage-record.js';
import type { UsageUpdate } from './session-options.js';
import { definedOf } from './session-state.js';

const count = z.number().int('must be a whole number of tokens').min(0, 'must be ≥ 0');
const timestamp = z.union([z.iso.datetime({ offset: true }), z.number().int().min(0)], {
  error: 'must be an ISO 8601 time (2026-11-22T12:00:00Z) or epoch milliseconds',
});
const shared = {
  timestamp: timestamp.optional(),
  driftPercent: z.number().min(0).max(100).optional(),
  taskCompleted: z.boolean().optional(),
  /** The provider response's headers; the rate-limit ones override the session's quota estimate. */
  headers: maxKeys(
    z.record(z.string().max(200), z.union([z.string().max(2000), z.number()])),
    200,
    'at most 200 headers',
  ).optional(),
  /** Subscription windows seen with this generation (a status line's `rate_limits`, a log's). */
  windows: z.array(UsageWindowSchema).max(16).optional(),
  /**
   * The KV cells a local engine's cache holds after this generation, as the engine counts them (lloyal's
   * `_storeKvPressure().cellsUsed`, or a `KvEngineBudget` ledger kept equal to the engine). A session with `kv`
   * settings reads its KV budget from it instead of prompt + completion (docs/rules.md, KV budget on a real engine).
   */
  kvCellsUsed: z.number().int('must be a whole number of cells').min(0, 'must be ≥ 0').optional(),
};

/** A usage record as the caller measured it; only `promptTokens` is required. */
export const ManualUsageInputSchema = z.strictObject({
  promptTokens: count,
  completionTokens: count.optional(),
  cachedReadTokens: count.optional(),
  cachedWriteTokens: count.optional(),
  /**
   * Of the cache writes, those written for 1 hour (Anthropic `cache_creation.ephemeral_1h_input_tokens`): priced at
   * 2 × the input price, the others at the 5-minute write price, as replay prices them.
   */
  cachedWrite1hTokens: count.optional(),
  reasoningTokens: count.optional(),
  model: z.string().max(200).optional(),
  ...shared,
});

/** A provider's raw response; barometer normalizes its usage. */
export const RawUsageInputSchema = z.strictObject({
  format: UsageFormatSchema,
  response: z
    .unknown()
    .refine((value) => value !== undefined, 'must be the provider response')
    // A number, null or an empty list is no provider's response: a client's mistake, not a call without usage.
    .refine(
      (value) =>
        value === undefined ||
        typeof value === 'string' ||
        (Array.isArray(value) ? value.length > 0 : typeof value === 'object' && value !== null),
      'must be the provider response: its JSON object, its stream events (a list, not empty) or its stream text',
    ),
  ...shared,
});

/** The body of `POST /api/v1/sessions/:id/usage`: a normalized record, or `{ format, response }`. */
export const UsageInputSchema = z.union([ManualUsageInputSchema, RawUsageInputSchema]);

/** The two shapes' validators, compiled from their schemas (decision 104): every usage post passes here. */
const manualUsageValidator = compileValidator(ManualUsageInputSchema);
const rawUsageValidator = compileValidator(RawUsageInputSchema);

/**
 * Parses an untrusted usage body. The shape is chosen by the presence of `format`, so that errors name the
 * fields of the shape the caller meant rather than both.
 */
export function parseUsageInput(raw: unknown): Result<UsageUpdate> {
  const isRaw = typeof raw === 'object' && raw !== null && 'format' in raw;
  if (isRaw) {
    const parsed = rawUsageValidator.parse(raw);
    if (!parsed.ok) return parsed;
    const { format, response, ...rest } = parsed.value;
    const usage = normalizeUsage(format, response);
    return { ok: true, value: { usage, ...definedOf(rest) } };
  }
  const parsed = manualUsageValidator.parse(raw ?? {});
  if (!parsed.ok) return parsed;
  return { ok: true, value: manualUpdate(parsed.value) };
}

type ManualUsageInput = z.infer<typeof ManualUsageInputSchema>;

function manualUpdate(value: ManualUsageInput): UsageUpdate {
  const completionTokens = value.completionTokens ?? 0;
  const source: UsageSource = 'manual';
  const usage: UsageUpdate['usage'] = {
    available: true,
    source,
    promptTokens: value.promptTokens,
    completionTokens,
    totalTokens: value.promptTokens + completionTokens,
    cachedReadTokens: value.cachedReadTokens ?? 0,
    cachedWriteTokens: value.cachedWriteTokens ?? 0,
    reasoningTokens: value.reasoningTokens ?? 0,
  };
  if (value.cachedWrite1hTokens)
    usage.cachedWrite1hTokens = Math.min(value.cachedWrite1hTokens, usage.cachedWriteTokens);
  if (value.model !== undefined) usage.model = value.model;
  // Field by field rather than through definedOf: every usage post passes here.
  const update: UsageUpdate = { usage };
  if (value.timestamp !== undefined) update.timestamp = value.timestamp;
  if (value.driftPercent !== undefined) update.driftPercent = value.driftPercent;
  if (value.taskCompleted !== undefined) update.taskCompleted = value.taskCompleted;
  if (value.headers !== undefined) update.headers = value.headers;
  if (value.windows !== undefined) update.windows = value.windows;
  if (value.kvCellsUsed !== undefined) update.kvCellsUsed = value.kvCellsUsed;
  return update;
}
