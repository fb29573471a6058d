import { z } from 'zod';
import { parseWith, type Result } from '../errors/validation.js';
import { normalizeUsage } from '../usage/normalize-usage.js';
import { UsageFormatSchema } from '../usage/usage-format.js';
import type { UsageSource } from '../usage/usage-record.js';
import type { UsageUpdate } from './session-options.js';

const count = z.number().int('must be a whole number of tokens').min(0, 'must be ≥ 0');
const timestamp = z.union([z.iso.datetime({ offset: true }), z.number().int().min(0)], {
  error: 'must be an ISO 8601 time (2026-11-22T12:00:00Z) or epoch milliseconds',
});
const shared = {
  timestamp: timestamp.optional(),
  driftPercent: z.number().min(0).max(100).optional(),
  taskCompleted: z.boolean().optional(),
  /** The provider response's headers; the rate-limit ones override the session's quota estimate. */
  headers: z
    .record(z.string().max(200), z.union([z.string().max(2000), z.number()]))
    .refine((value) => Object.keys(value).length <= 200, 'at most 200 headers')
    .optional(),
};

/** A usage record as the caller measured it; only `promptTokens` is required. */
export const ManualUsageInputSchema = z.strictObject({
  promptTokens: count,
  completionTokens: count.optional(),
  cachedReadTokens: count.optional(),
  cachedWriteTokens: count.optional(),
  reasoningTokens: count.optional(),
  model: z.string().max(200).optional(),
  ...shared,
});

/** A provider's raw response; headroom normalizes its usage. */
export const RawUsageInputSchema = z.strictObject({
  format: UsageFormatSchema,
  response: z.unknown().refine((value) => value !== undefined, 'must be the provider response'),
  ...shared,
});

/** The body of `POST /api/v1/sessions/:id/usage`: a normalized record, or `{ format, response }`. */
export const UsageInputSchema = z.union([ManualUsageInputSchema, RawUsageInputSchema]);

/**
 * Parses an untrusted usage body. The shape is chosen by the presence of `format`, so that errors name the
 * fields of the shape the caller meant rather than both.
 */
export function parseUsageInput(raw: unknown): Result<UsageUpdate> {
  const isRaw = typeof raw === 'object' && raw !== null && 'format' in raw;
  if (isRaw) {
    const parsed = parseWith(RawUsageInputSchema, raw);
    if (!parsed.ok) return parsed;
    const { format, response, ...rest } = parsed.value;
    const usage = normalizeUsage(format, response);
    return { ok: true, value: { usage, ...definedOf(rest) } };
  }
  const parsed = parseWith(ManualUsageInputSchema, raw ?? {});
  if (!parsed.ok) return parsed;
  const value = parsed.value;
  const completionTokens = value.completionTokens ?? 0;
  const source: UsageSource = 'manual';
  return {
    ok: true,
    value: {
      usage: {
        available: true,
        source,
        promptTokens: value.promptTokens,
        completionTokens,
        totalTokens: value.promptTokens + completionTokens,
        cachedReadTokens: value.cachedReadTokens ?? 0,
        cachedWriteTokens: value.cachedWriteTokens ?? 0,
        reasoningTokens: value.reasoningTokens ?? 0,
        ...(value.model === undefined ? {} : { model: value.model }),
      },
      ...definedOf({
        timestamp: value.timestamp,
        driftPercent: value.driftPercent,
        taskCompleted: value.taskCompleted,
        headers: value.headers,
      }),
    },
  };
}

function definedOf<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter((entry) => entry[1] !== undefined)) as Partial<T>;
}
