import * as z from 'zod';

/** A price in US dollars per million tokens: finite, not negative (0 is a price: free models list it). */
const usdPerMillion = z.number().min(0);

/** The prices of one token kind set, without a threshold: what a request is billed at. */
const PRICE_RATES = {
  /** Uncached prompt tokens. */
  input: usdPerMillion,
  /** Generated tokens, reasoning included unless `reasoning` prices it apart. */
  output: usdPerMillion,
  /** Prompt tokens read from the provider's cache. Absent: the listing gives no cache-read price. */
  cacheRead: usdPerMillion.optional(),
  /** Prompt tokens written to the cache (Anthropic's 5-minute write, 1.25 × input). Absent: no price listed. */
  cacheWrite: usdPerMillion.optional(),
  /** Reasoning tokens, where the listing prices them apart from the other output (models.dev `cost.reasoning`). */
  reasoning: usdPerMillion.optional(),
};

/**
 * Long-context prices: they apply to the whole request (every token, output included) when its prompt, cache reads
 * and writes included, exceeds `aboveTokens` (models.dev `tier.size`). Anthropic: "If your request exceeds 200k
 * input tokens, all tokens incur premium pricing"; Google: "prompts > 200k tokens"; OpenAI: "prompts with >272K input
 * tokens are priced at 2x input and 1.5x output". Sources in docs/rules.md ("Cost").
 */
export const ModelPriceTierSchema = z.strictObject({
  aboveTokens: z.int().min(0),
  ...PRICE_RATES,
});
export type ModelPriceTier = z.infer<typeof ModelPriceTierSchema>;

/**
 * A model's price at one provider, in USD per million tokens, as models.dev lists it (`cost.input`, `output`,
 * `cache_read`, `cache_write`, `reasoning`, `tiers`). Tiers are replacements of the base prices for long prompts, not
 * surcharges on the tokens past the threshold; their thresholds must differ.
 * @example { input: 1.25, output: 10, cacheRead: 0.125, tiers: [{ aboveTokens: 200000, input: 2.5, output: 15, cacheRead: 0.25 }] }
 */
export const ModelPriceSchema = z
  .strictObject({
    ...PRICE_RATES,
    tiers: z.array(ModelPriceTierSchema).optional(),
  })
  .superRefine((price, context) => {
    const seen = new Set<number>();
    for (const [index, tier] of (price.tiers ?? []).entries()) {
      if (seen.has(tier.aboveTokens)) {
        context.addIssue({
          code: 'custom',
          path: ['tiers', index, 'aboveTokens'],
          message: `two tiers start above ${tier.aboveTokens} tokens`,
        });
      }
      seen.add(tier.aboveTokens);
    }
  });
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/** The prices a request is billed at: the base prices or one tier's. */
export type PriceRates = Omit<ModelPriceTier, 'aboveTokens'>;

/** The rates for a request and the tier they come from (`null`: the base prices). */
export interface SelectedRates {
  rates: PriceRates;
  /** The threshold of the tier in force, or null when the prompt exceeds none. */
  aboveTokens: number | null;
}

/**
 * The rates a request with this many prompt tokens (cache reads and writes included) is billed at: the tier with the
 * highest threshold the prompt exceeds, else the base prices. A prompt of exactly the threshold stays below it.
 * The answer is frozen, and the same object for the same price or tier.
 * @example priceRatesFor(gemini25Pro, 200_001).rates.input // 2.5 (200,000 → 1.25)
 */
export function priceRatesFor(price: ModelPrice, promptTokens: number): SelectedRates {
  let chosen: ModelPriceTier | undefined;
  for (const tier of price.tiers ?? []) {
    if (promptTokens > tier.aboveTokens && (!chosen || tier.aboveTokens > chosen.aboveTokens)) chosen = tier;
  }
  // The rates of a price or tier are taken apart once, not for every call priced (a session prices each update).
  const source: ModelPrice | ModelPriceTier = chosen ?? price;
  let selected = selectedRates.get(source);
  if (selected === undefined) {
    if (chosen) {
      const { aboveTokens, ...rates } = chosen;
      selected = Object.freeze({ rates: Object.freeze(rates), aboveTokens });
    } else {
      const { tiers: _tiers, ...rates } = price;
      selected = Object.freeze({ rates: Object.freeze(rates), aboveTokens: null });
    }
    selectedRates.set(source, selected);
  }
  return selected;
}

const selectedRates = new WeakMap<ModelPrice | ModelPriceTier, SelectedRates>();
