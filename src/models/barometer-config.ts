import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { parseWith, type Result } from '../errors/validation.js';
import { type WindowLever, WindowPolicySchema } from '../quota/windows/window-lever-names.js';
import type { ModelPrice, ModelPriceTier } from './model-price.js';

const tokens = z.int().min(1);
const usdPerMillion = z.number().min(0);

/** The per-token-kind prices of a config file's price or tier, in USD per million tokens (models.dev's names). */
const PRICE_RATE_FIELDS = {
  input: usdPerMillion,
  output: usdPerMillion,
  cache_read: usdPerMillion.optional(),
  cache_write: usdPerMillion.optional(),
  reasoning: usdPerMillion.optional(),
};

/**
 * A long-context tier in a config file: its prices replace the base prices for a whole request whose prompt (cache
 * reads and writes included) exceeds `above_tokens` (models.dev's `tier.size`).
 */
export const PriceTierFileSchema = z.strictObject({ above_tokens: z.int().min(0), ...PRICE_RATE_FIELDS });

/**
 * A model's price in a config file, USD per million tokens, in models.dev's field names. It replaces the built-in
 * price as a whole (fields are not merged with it: a price is one provider's, not a mix of two sources).
 * @example { "input": 1.25, "output": 10, "cache_read": 0.125, "tiers": [{ "above_tokens": 200000, "input": 2.5, "output": 15, "cache_read": 0.25 }] }
 */
export const PriceFileSchema = z
  .strictObject({ ...PRICE_RATE_FIELDS, tiers: z.array(PriceTierFileSchema).optional() })
  .superRefine((price, context) => {
    const seen = new Set<number>();
    for (const [index, tier] of (price.tiers ?? []).entries()) {
      if (seen.has(tier.above_tokens)) {
        context.addIssue({
          code: 'custom',
          path: ['tiers', index, 'above_tokens'],
          message: `two tiers start above ${tier.above_tokens} tokens`,
        });
      }
      seen.add(tier.above_tokens);
    }
  });

type PriceRatesFile = Omit<z.infer<typeof PriceTierFileSchema>, 'above_tokens'>;

function ratesFromFile(rates: PriceRatesFile): Omit<ModelPriceTier, 'aboveTokens'> {
  return {
    input: rates.input,
    output: rates.output,
    ...(rates.cache_read === undefined ? {} : { cacheRead: rates.cache_read }),
    ...(rates.cache_write === undefined ? {} : { cacheWrite: rates.cache_write }),
    ...(rates.reasoning === undefined ? {} : { reasoning: rates.reasoning }),
  };
}

function priceFromFile(price: z.infer<typeof PriceFileSchema>): ModelPrice {
  const { tiers, ...rates } = price;
  return {
    ...ratesFromFile(rates),
    ...(tiers && tiers.length > 0
      ? {
          tiers: tiers
            .map(({ above_tokens, ...tier }) => ({ aboveTokens: above_tokens, ...ratesFromFile(tier) }))
            .sort((a, b) => a.aboveTokens - b.aboveTokens),
        }
      : {}),
  };
}

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
    price: PriceFileSchema.optional(),
    reasoning: z.boolean().optional(),
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
  /** The model's price at the provider used, USD per million tokens; replaces the built-in price as a whole. */
  price?: ModelPrice;
  /** Whether the model reasons (the thinking-budget rule applies only to those that do). */
  reasoning?: boolean;
}

/** A parsed, validated `barometer.config.{json,yaml,yml}`. */
export interface BarometerConfig {
  /** Per-model figures, keyed by model id (`gpt-5`, `openai/gpt-5`, `claude-sonnet-4-20250514`, …). */
  models: Record<string, ModelConfig>;
  /**
   * The proxy's window policy (`window_policy: [thinking, hold]`): the levers on unless `--window-policy` or
   * `BAROMETER_WINDOW_POLICY` says otherwise. Absent: none.
   */
  windowPolicy?: WindowLever[];
}

const TOKEN_FIELD_NAMES = {
  context_length: 'contextLength',
  input_length: 'inputLength',
  max_output: 'maxOutput',
  optimal_max_tokens: 'optimalMaxTokens',
  critical_max_tokens: 'criticalMaxTokens',
  tpm_limit: 'tpmLimit',
  effective_window: 'effectiveWindow',
} as const satisfies Record<
  Exclude<keyof z.infer<typeof ModelConfigFileSchema>, 'price' | 'reasoning'>,
  keyof ModelConfig
>;

function toModelConfig(entry: z.infer<typeof ModelConfigFileSchema>): ModelConfig {
  const config: ModelConfig = {};
  for (const [fileName, codeName] of Object.entries(TOKEN_FIELD_NAMES)) {
    const value = entry[fileName as keyof typeof TOKEN_FIELD_NAMES];
    if (value !== undefined) config[codeName] = value;
  }
  if (entry.price !== undefined) config.price = priceFromFile(entry.price);
  if (entry.reasoning !== undefined) config.reasoning = entry.reasoning;
  return config;
}

/**
 * The config file schema: snake_case keys as written in the file, camelCase in the parsed value, unknown keys
 * rejected at every level. An empty file means no settings.
 * @example { "models": { "gpt-5": { "context_length": 272000, "optimal_max_tokens": 200000, "price": { "input": 1.25, "output": 10, "cache_read": 0.125 }, "reasoning": true } } }
 */
export const BarometerConfigSchema = z
  .strictObject({
    models: z.record(z.string().min(1), ModelConfigFileSchema).optional(),
    /** The proxy's window policy levers (`thinking`, `hold`); see docs/proxy.md. */
    window_policy: WindowPolicySchema.optional(),
  })
  .transform(
    (file): BarometerConfig => ({
      models: Object.fromEntries(
        Object.entries(file.models ?? {}).map(([id, entry]) => [id, toModelConfig(entry)]),
      ),
      ...(file.window_policy === undefined ? {} : { windowPolicy: file.window_policy }),
    }),
  );

/** A config with no settings: what a directory without a config file yields. */
export function emptyConfig(): BarometerConfig {
  return { models: {} };
}

/** Validates an already-parsed config object. Issues name the field, e.g. `models.gpt-5.context_length`. */
export function parseConfig(input: unknown): Result<BarometerConfig> {
  // An empty YAML document parses to null: a file with nothing in it sets nothing.
  return parseWith(BarometerConfigSchema, input ?? {});
}

/** The formats a config file may be written in. */
export type ConfigFormat = 'json' | 'yaml';

/** Parses and validates the text of a config file. Pure: the caller reads the file. */
export function parseConfigText(text: string, format: ConfigFormat): Result<BarometerConfig> {
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
