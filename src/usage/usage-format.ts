import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';

/** The response shapes `normalizeUsage` reads. */
export const USAGE_FORMATS = [
  'openai-chat',
  'openai-responses',
  'anthropic',
  'gemini',
  'ai-sdk',
  'ollama',
  'llama-cpp',
] as const;

export type UsageFormat = (typeof USAGE_FORMATS)[number];

export const UsageFormatSchema = z
  .enum(USAGE_FORMATS, { error: `must be one of ${USAGE_FORMATS.join(', ')}` })
  .meta({ id: 'UsageFormat', description: 'The provider response shape to read usage from' });

/** Options of `normalizeUsage` and of every per-provider normalizer. */
export const NormalizeUsageOptionsSchema = z.strictObject({
  /**
   * ISO 8601 time to stamp on the record. When absent, the response's own time is used where it
   * carries one (OpenAI `created`, Responses `created_at`, Ollama `created_at`); Anthropic and Gemini
   * responses carry none.
   */
  timestamp: z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2026-02-12T16:02:27.718Z' })
    .optional(),
});

export type NormalizeUsageOptions = z.infer<typeof NormalizeUsageOptionsSchema>;

/** Validates options (unknown keys rejected); a bad option is a programming error, so it throws. */
export function resolveNormalizeOptions(options: unknown): NormalizeUsageOptions {
  if (options === undefined) return {};
  const parsed = parseWith(NormalizeUsageOptionsSchema, options);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'usage options');
  return parsed.value;
}

/** Throws a BarometerValidationError naming the allowed formats when `format` is not one of them. */
export function assertUsageFormat(format: unknown): asserts format is UsageFormat {
  const parsed = parseWith(UsageFormatSchema, format);
  if (!parsed.ok) {
    throw new BarometerValidationError(
      parsed.issues.map((issue) => ({ ...issue, field: 'format', value: format })),
      'usage format',
    );
  }
}
