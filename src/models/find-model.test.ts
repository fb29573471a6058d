import { describe, expect, it } from 'vitest';
import data from './data/models.json' with { type: 'json' };
import { findModel, firstPartyProvider } from './find-model.js';

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
  it('gives gemini-2.5-pro the window 11 of 16 listings agree on', () => {
    // google/gemini-2.5-pro carries only costs. Of the 16 listings with a window, 11 give 1,048,576 (others:
    // 1,000,000, 128,000, 1,048,756, 1,065,535, 1,048,000); 9 of those 11 give output 65,536, 2 give 65,535.
    expect(findModel('gemini-2.5-pro')).toEqual({
      id: 'gemini-2.5-pro',
      provider: undefined,
      model: 'gemini-2.5-pro',
      contextLength: 1_048_576,
      maxOutput: 65_536,
      match: 'consensus',
      agreement: { agreeing: 11, listings: 16 },
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

describe('built-in data', () => {
  it('holds only rows with a window and positive whole-number limits', () => {
    expect(data.rows.length).toBeGreaterThan(4000);
    const positive = (value: unknown) => value === null || (Number.isInteger(value) && (value as number) > 0);
    const bad = data.rows.filter(
      ([provider, model, context, input, output]) =>
        typeof provider !== 'string' ||
        typeof model !== 'string' ||
        (context === null && input === null) ||
        ![context, input, output].every(positive),
    );
    expect(bad).toEqual([]);
  });
});
