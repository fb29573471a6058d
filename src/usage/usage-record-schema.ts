import * as z from 'zod';

const count = z.number().int().min(0);

/** Every source a usage record can name; keep in step with `UsageSource`. */
export const USAGE_SOURCES = [
  'openai-chat',
  'openai-responses',
  'anthropic',
  'gemini',
  'ai-sdk',
  'ollama',
  'llama-cpp',
  'claude-code',
  'codex',
  'gemini-cli',
  'openhands',
  'pi',
  'manual',
] as const;

export const UsageSourceSchema = z.enum(USAGE_SOURCES, {
  error: `must be one of ${USAGE_SOURCES.join(', ')}`,
});

export const UsageIterationSchema = z.strictObject({
  type: z.string(),
  promptTokens: count,
  completionTokens: count,
  cachedReadTokens: count,
  cachedWriteTokens: count,
});

/** A usage record as data (HTTP bodies, stored events). Mirrors `UsageRecord`. */
export const UsageRecordSchema = z
  .discriminatedUnion('available', [
    z.strictObject({
      available: z.literal(true),
      source: UsageSourceSchema,
      promptTokens: count,
      completionTokens: count,
      totalTokens: count,
      cachedReadTokens: count,
      cachedWriteTokens: count,
      cachedWrite1hTokens: count.optional(),
      reasoningTokens: count,
      model: z.string().optional(),
      timestamp: z.iso.datetime({ offset: true }).optional(),
      iterations: z.array(UsageIterationSchema).optional(),
    }),
    z.strictObject({
      available: z.literal(false),
      source: UsageSourceSchema,
      reason: z.string().min(1),
      model: z.string().optional(),
      timestamp: z.iso.datetime({ offset: true }).optional(),
    }),
  ])
  .meta({ id: 'UsageRecord', description: "One generation's usage, or why there is none" });
