import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { parseWith, type Result } from '../errors/validation.js';

const tokens = z.int().min(1);

/** One model's entry in a config file, in the file's snake_case. Unknown keys are rejected. */
export const ModelConfigFileSchema = z
  .strictObject({
    context_length: tokens.optional(),
    input_length: tokens.optional(),
    max_output: tokens.optional(),
    optimal_max_tokens: tokens.optional(),
    critical_max_tokens: tokens.optional(),
    tpm_limit: tokens.optional(),
    effective_window: tokens.optional(),
  })
  .superRefine((entry, context) => {
    // With critical at or below optimal the caution level could never be reached: almost surely a typo.
    if (
      entry.optimal_max_tokens !== undefined &&
      entry.critical_max_tokens !== undefined &&
      entry.critical_max_tokens <= entry.optimal_max_tokens
    ) {
      context.addIssue({
        code: 'custom',
        path: ['critical_max_tokens'],
        message: `must be greater than optimal_max_tokens (${entry.optimal_max_tokens})`,
      });
    }
  });

/** A model's configured figures, in code's camelCase. */
export interface ModelConfig {
  contextLength?: number;
  inputLength?: number;
  maxOutput?: number;
  optimalMaxTokens?: number;
  criticalMaxTokens?: number;
  tpmLimit?: number;
  effectiveWindow?: number;
}

/** A parsed, validated `headroom.config.{json,yaml,yml}`. */
export interface HeadroomConfig {
  /** Per-model figures, keyed by model id (`gpt-5`, `openai/gpt-5`, `claude-sonnet-4-20250514`, …). */
  models: Record<string, ModelConfig>;
}

const FIELD_NAMES = {
  context_length: 'contextLength',
  input_length: 'inputLength',
  max_output: 'maxOutput',
  optimal_max_tokens: 'optimalMaxTokens',
  critical_max_tokens: 'criticalMaxTokens',
  tpm_limit: 'tpmLimit',
  effective_window: 'effectiveWindow',
} as const satisfies Record<keyof z.infer<typeof ModelConfigFileSchema>, keyof ModelConfig>;

function toModelConfig(entry: z.infer<typeof ModelConfigFileSchema>): ModelConfig {
  const config: ModelConfig = {};
  for (const [fileName, codeName] of Object.entries(FIELD_NAMES)) {
    const value = entry[fileName as keyof typeof FIELD_NAMES];
    if (value !== undefined) config[codeName] = value;
  }
  return config;
}

/**
 * The config file schema: snake_case keys as written in the file, camelCase in the parsed value, unknown keys
 * rejected at every level. An empty file means no settings.
 * @example { "models": { "gpt-5": { "context_length": 272000, "optimal_max_tokens": 200000 } } }
 */
export const HeadroomConfigSchema = z
  .strictObject({
    models: z.record(z.string().min(1), ModelConfigFileSchema).optional(),
  })
  .transform(
    (file): HeadroomConfig => ({
      models: Object.fromEntries(
        Object.entries(file.models ?? {}).map(([id, entry]) => [id, toModelConfig(entry)]),
      ),
    }),
  );

/** A config with no settings: what a directory without a config file yields. */
export function emptyConfig(): HeadroomConfig {
  return { models: {} };
}

/** Validates an already-parsed config object. Issues name the field, e.g. `models.gpt-5.context_length`. */
export function parseConfig(input: unknown): Result<HeadroomConfig> {
  // An empty YAML document parses to null: a file with nothing in it sets nothing.
  return parseWith(HeadroomConfigSchema, input ?? {});
}

/** The formats a config file may be written in. */
export type ConfigFormat = 'json' | 'yaml';

/** Parses and validates the text of a config file. Pure: the caller reads the file. */
export function parseConfigText(text: string, format: ConfigFormat): Result<HeadroomConfig> {
  let parsed: unknown;
  try {
    parsed = format === 'json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      issues: [{ field: '', value: undefined, message: `not valid ${format.toUpperCase()}: ${reason}` }],
    };
  }
  return parseConfig(parsed);
}
