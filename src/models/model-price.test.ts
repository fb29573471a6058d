import { describe, expect, it } from 'vitest';
import { type ModelPrice, ModelPriceSchema, priceRatesFor } from './model-price.js';

// google/gemini-2.5-pro in models.dev: 1.25 / 10 / cache read 0.125; above 200,000: 2.5 / 15 / 0.25.
const gemini25Pro: ModelPrice = {
  input: 1.25,
  output: 10,
  cacheRead: 0.125,
  tiers: [{ aboveTokens: 200_000, input: 2.5, output: 15, cacheRead: 0.25 }],
};

describe('priceRatesFor', () => {
  it('gives the base prices up to and including the threshold', () => {
    expect(priceRatesFor(gemini25Pro, 200_000)).toEqual({
      rates: { input: 1.25, output: 10, cacheRead: 0.125 },
      aboveTokens: null,
    });
  });

  it("gives the tier's prices, and only those, above the threshold", () => {
    expect(priceRatesFor(gemini25Pro, 200_001)).toEqual({
      rates: { input: 2.5, output: 15, cacheRead: 0.25 },
      aboveTokens: 200_000,
    });
  });

  it('picks the highest threshold exceeded, whatever the order of the tiers', () => {
    const price: ModelPrice = {
      input: 1,
      output: 2,
      tiers: [
        { aboveTokens: 256_000, input: 3, output: 6 },
        { aboveTokens: 32_000, input: 2, output: 4 },
      ],
    };
    expect(priceRatesFor(price, 32_000).aboveTokens).toBeNull();
    expect(priceRatesFor(price, 100_000).aboveTokens).toBe(32_000);
    expect(priceRatesFor(price, 300_000).rates).toEqual({ input: 3, output: 6 });
  });
});

describe('ModelPriceSchema', () => {
  it('accepts a free model and rejects a negative price', () => {
    expect(ModelPriceSchema.safeParse({ input: 0, output: 0 }).success).toBe(true);
    expect(ModelPriceSchema.safeParse({ input: -0.1, output: 0 }).success).toBe(false);
  });

  it('requires input and output prices and rejects unknown keys', () => {
    expect(ModelPriceSchema.safeParse({ input: 1 }).success).toBe(false);
    expect(ModelPriceSchema.safeParse({ input: 1, output: 1, cache_read: 0.1 }).success).toBe(false);
  });

  it('rejects two tiers with the same threshold', () => {
    const result = ModelPriceSchema.safeParse({
      input: 1,
      output: 1,
      tiers: [
        { aboveTokens: 200_000, input: 2, output: 2 },
        { aboveTokens: 200_000, input: 3, output: 3 },
      ],
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['tiers', 1, 'aboveTokens']);
  });

  it('rejects an infinite price', () => {
    expect(ModelPriceSchema.safeParse({ input: Number.POSITIVE_INFINITY, output: 1 }).success).toBe(false);
  });
});
