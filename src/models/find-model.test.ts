import { describe, expect, it } from 'vitest';
import data from './data/models.json' with { type: 'json' };
import { findModel, firstPartyProvider } from './find-model.js';
import { ModelPriceSchema } from './model-price.js';

// Expected figures are read by hand from traces/registries/models_dev_limits.json (models.dev).

describe('findModel with ids recorded in the traces', () => {
  it('finds claude-opus-4-6 under anthropic (1M listed), not a reseller that lists 200K', () => {
    // azure/claude-opus-4-6 and abacus/claude-opus-4-6 list 200,000; anthropic lists 1,000,000.
    expect(findModel('claude-opus-4-6')).toMatchObject({
      id: 'anthropic/claude-opus-4-6',
      provider: 'anthropic',
      contextLength: 1_000_000,
      maxOutput: 128_000,
      match: 'exact',
    });
  });

  it('finds dated Claude snapshots that anthropic lists under their own ids', () => {
    expect(findModel('claude-sonnet-4-20250514')).toMatchObject({
      id: 'anthropic/claude-sonnet-4-20250514',
      contextLength: 200_000,
      maxOutput: 64_000,
      match: 'exact',
    });
    expect(findModel('claude-sonnet-4-5-20250929')?.contextLength).toBe(200_000);
    expect(findModel('claude-3-5-sonnet-20241022')?.maxOutput).toBe(8192);
  });

  it('finds gpt-5.3-codex with its separate input window', () => {
    expect(findModel('gpt-5.3-codex')).toMatchObject({
      id: 'openai/gpt-5.3-codex',
      contextLength: 400_000,
      inputLength: 272_000,
      maxOutput: 128_000,
    });
  });

  it('finds Gemini models under google', () => {
    expect(findModel('gemini-3-flash-preview')).toMatchObject({
      id: 'google/gemini-3-flash-preview',
      contextLength: 1_048_576,
      maxOutput: 65_536,
    });
    expect(findModel('gemini-3.1-pro-preview')?.contextLength).toBe(1_048_576);
  });

  it('maps an OpenAI dated snapshot to its undated family entry', () => {
    // openai lists gpt-4o-mini (128,000 / 16,384) but not gpt-4o-mini-2024-07-18.
    expect(findModel('gpt-4o-mini-2024-07-18')).toMatchObject({
      id: 'openai/gpt-4o-mini',
      contextLength: 128_000,
      maxOutput: 16_384,
      match: 'alias',
    });
    expect(findModel('gpt-4.1-2025-04-14')).toMatchObject({ id: 'openai/gpt-4.1', contextLength: 1_047_576 });
  });

  it('returns undefined for a model no listing knows', () => {
    expect(findModel('aide-gpt-5')).toBeUndefined();
    expect(findModel('')).toBeUndefined();
  });
});

describe('findModel aliases', () => {
  it('ignores case', () => {
    expect(findModel('Claude-Opus-4-6')?.id).toBe('anthropic/claude-opus-4-6');
    expect(findModel('OpenAI/GPT-5.3-Codex')?.id).toBe('openai/gpt-5.3-codex');
  });

  it('maps an undated family id to its snapshot', () => {
    expect(findModel('claude-sonnet-4')).toMatchObject({
      id: 'anthropic/claude-sonnet-4-20250514',
      match: 'alias',
    });
    expect(findModel('anthropic/claude-sonnet-4')?.id).toBe('anthropic/claude-sonnet-4-20250514');
  });

  it('maps -latest to the newest dated snapshot', () => {
    // anthropic lists claude-3-5-sonnet-20240620 and -20241022.
    expect(findModel('claude-3-5-sonnet-latest')?.id).toBe('anthropic/claude-3-5-sonnet-20241022');
  });

  it("accepts Vertex's @date form, Claude Code's [1m] suffix and Gemini's models/ prefix", () => {
    expect(findModel('claude-sonnet-4@20250514')?.id).toBe('anthropic/claude-sonnet-4-20250514');
    expect(findModel('claude-opus-4-6[1m]')?.id).toBe('anthropic/claude-opus-4-6');
    expect(findModel('models/gemini-3-flash-preview')?.id).toBe('google/gemini-3-flash-preview');
  });

  it('uses a provider listing when the id names the provider', () => {
    expect(findModel('azure/gpt-5')).toMatchObject({
      id: 'azure/gpt-5',
      contextLength: 272_000,
      match: 'exact',
    });
  });
});

describe('findModel consensus when the maker lists no window', () => {
  it("gives gemini-2.5-pro the window 11 of 16 listings agree on, and google's own price", () => {
    // google/gemini-2.5-pro carries only costs. Of the 16 listings with a window, 11 give 1,048,576 (others:
    // 1,000,000, 128,000, 1,048,756, 1,065,535, 1,048,000); 9 of those 11 give output 65,536, 2 give 65,535.
    // The price is google's listing (1.25 / 10 / 0.125, above 200,000: 2.5 / 15 / 0.25); google states no
    // reasoning flag, and the agreeing listings that state one say true.
    expect(findModel('gemini-2.5-pro')).toEqual({
      id: 'gemini-2.5-pro',
      provider: undefined,
      model: 'gemini-2.5-pro',
      contextLength: 1_048_576,
      maxOutput: 65_536,
      match: 'consensus',
      agreement: { agreeing: 11, listings: 16 },
      reasoning: true,
      price: {
        input: 1.25,
        output: 10,
        cacheRead: 0.125,
        tiers: [{ aboveTokens: 200_000, input: 2.5, output: 15, cacheRead: 0.25 }],
      },
      priceId: 'google/gemini-2.5-pro',
    });
  });

  it('keeps an input window that only some agreeing listings give', () => {
    // openai/gpt-5 carries only costs; 302ai, opencode and sap-ai-core give 400,000 / 272,000 input.
    expect(findModel('gpt-5')).toMatchObject({
      contextLength: 400_000,
      inputLength: 272_000,
      match: 'consensus',
    });
  });

  it('falls back to the consensus when a reseller lists the model without a window', () => {
    expect(findModel('openrouter/google/gemini-2.5-pro')).toMatchObject({
      contextLength: 1_048_576,
      match: 'consensus',
    });
  });
});

describe('firstPartyProvider', () => {
  it('names the maker by id prefix', () => {
    expect(firstPartyProvider('claude-haiku-4-5')).toBe('anthropic');
    expect(firstPartyProvider('gpt-4o')).toBe('openai');
    expect(firstPartyProvider('o4-mini')).toBe('openai');
    expect(firstPartyProvider('gemini-2.5-flash')).toBe('google');
    expect(firstPartyProvider('llama-3.1-8b')).toBeUndefined();
  });
});

describe('findModel prices', () => {
  // Figures read by hand from traces/registries/models_dev_limits.json (models.dev `cost`, USD per million tokens).
  it("carries the maker's price, cache write included, with a bare id", () => {
    expect(findModel('claude-opus-4-6')).toMatchObject({
      price: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
      priceId: 'anthropic/claude-opus-4-6',
      reasoning: true,
    });
    expect(findModel('gpt-5.3-codex')?.price).toEqual({ input: 1.75, output: 14, cacheRead: 0.175 });
  });

  it('takes the price of the family entry for an unlisted snapshot (alias)', () => {
    expect(findModel('gpt-4o-mini-2024-07-18')).toMatchObject({
      price: { input: 0.15, output: 0.6, cacheRead: 0.075 },
      priceId: 'openai/gpt-4o-mini',
      reasoning: false,
    });
  });

  it("keeps a listed snapshot's own price rather than its family's", () => {
    // gpt-4o-2024-05-13 costs 5 / 15 and lists no cache-read price; gpt-4o costs 2.5 / 10 / 1.25.
    expect(findModel('gpt-4o-2024-05-13')?.price).toEqual({ input: 5, output: 15 });
    expect(findModel('gpt-4o')?.price).toEqual({ input: 2.5, output: 10, cacheRead: 1.25 });
  });

  it('carries long-context tiers in ascending order', () => {
    expect(findModel('gemini-3.1-pro-preview')?.price).toEqual({
      input: 2,
      output: 12,
      cacheRead: 0.2,
      tiers: [{ aboveTokens: 200_000, input: 4, output: 18, cacheRead: 0.4 }],
    });
    expect(findModel('gpt-5.4-pro')?.price).toEqual({
      input: 30,
      output: 180,
      tiers: [{ aboveTokens: 272_000, input: 60, output: 270 }],
    });
  });

  it("uses a named provider's own price, not the maker's", () => {
    // openrouter lists gemini-2.5-pro without a window: the window is the consensus, the price openrouter's.
    expect(findModel('openrouter/google/gemini-2.5-pro')).toMatchObject({
      match: 'consensus',
      price: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0.375, reasoning: 10 },
      priceId: 'openrouter/google/gemini-2.5-pro',
    });
  });

  it('gives no price when the named provider does not list the model, though the window falls back to the maker', () => {
    const found = findModel('some-reseller/claude-opus-4-6');
    expect(found).toMatchObject({ id: 'anthropic/claude-opus-4-6', contextLength: 1_000_000 });
    expect(found?.price).toBeUndefined();
  });

  it('gives no price from a consensus: a model whose maker lists nothing has none', () => {
    // No maker is known for llama-3.1-8b-instant ids, so only the window consensus applies.
    const found = findModel('llama-3.1-8b-instant');
    expect(found?.match).toBe('consensus');
    expect(found?.price).toBeUndefined();
  });

  it('finds a listing that has a price but no window', () => {
    expect(findModel('amazon-bedrock/anthropic.claude-opus-4-6-v1')).toEqual({
      id: 'amazon-bedrock/anthropic.claude-opus-4-6-v1',
      provider: 'amazon-bedrock',
      model: 'anthropic.claude-opus-4-6-v1',
      match: 'exact',
      price: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
      priceId: 'amazon-bedrock/anthropic.claude-opus-4-6-v1',
    });
  });

  it('returns frozen prices, so a caller cannot change the registry for everyone', () => {
    const price = findModel('gemini-2.5-pro')?.price;
    expect(Object.isFrozen(price)).toBe(true);
    expect(Object.isFrozen(price?.tiers)).toBe(true);
    expect(Object.isFrozen(price?.tiers?.[0])).toBe(true);
  });
});

describe('built-in data', () => {
  it('holds rows with a window, a price or a reasoning flag, and positive whole-number limits', () => {
    expect(data.rows.length).toBeGreaterThan(5000);
    const positive = (value: unknown) => value === null || (Number.isInteger(value) && (value as number) > 0);
    const bad = data.rows.filter(
      ([provider, model, context, input, output, reasoning, price]) =>
        typeof provider !== 'string' ||
        typeof model !== 'string' ||
        (context === null && input === null && reasoning === null && price === null) ||
        ![context, input, output].every(positive) ||
        !(reasoning === null || typeof reasoning === 'boolean'),
    );
    expect(bad).toEqual([]);
  });

  it('holds prices that ModelPriceSchema accepts', () => {
    const rejected: string[] = [];
    for (const row of data.rows) {
      const price = findModel(`${row[0]}/${row[1]}`)?.price;
      if (row[6] !== null && !ModelPriceSchema.safeParse(price).success) rejected.push(`${row[0]}/${row[1]}`);
    }
    expect(rejected).toEqual([]);
  });
});
