import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { type BarometerConfig, parseConfig } from './barometer-config.js';
import { findModel } from './find-model.js';
import { configEntryFor, explainProfile, resolveProfile } from './resolve-profile.js';

function config(models: Record<string, unknown>): BarometerConfig {
  const parsed = parseConfig({ models });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.value;
}

describe('resolveProfile from built-in data', () => {
  it('copies the listed limits, price and reasoning flag and marks the source registry', () => {
    // models.dev anthropic/claude-sonnet-4-20250514: 3 / 15 / cache read 0.3 / cache write 3.75, reasoning true.
    expect(resolveProfile('claude-sonnet-4-20250514')).toEqual({
      id: 'claude-sonnet-4-20250514',
      contextLength: 200_000,
      maxOutput: 64_000,
      effectiveWindow: 200_000,
      price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      priceSource: 'registry',
      reasoning: true,
      reasoningSource: 'registry',
      windowSource: 'registry',
      source: 'registry',
    });
  });

  it('leaves price and reasoning out when the registry has neither', () => {
    // Only the window consensus knows llama-3.1-8b-instant: no maker's listing, so no price.
    const profile = resolveProfile('llama-3.1-8b-instant');
    expect(profile?.contextLength).toBeGreaterThan(0);
    expect(profile?.price).toBeUndefined();
    expect(profile?.priceSource).toBeUndefined();
  });

  it('takes the input window as the effective window when it is smaller than the context', () => {
    // gpt-5.3-codex: 400,000 context, 272,000 input.
    expect(resolveProfile('gpt-5.3-codex')?.effectiveWindow).toBe(272_000);
  });

  it('returns undefined for a model nobody knows', () => {
    expect(resolveProfile('aide-gpt-5')).toBeUndefined();
    expect(
      resolveProfile('aide-gpt-5', { config: config({ 'gpt-5': { context_length: 1000 } }) }),
    ).toBeUndefined();
  });
});

describe('resolveProfile with an agent', () => {
  it('gives Claude Code 167,000 on a model listed at 1M', () => {
    // 200,000 default window − 20,000 summary reserve − 13,000 auto-compact buffer. The recorded session on
    // claude-opus-4-6 compacted at 170,251 prompt tokens.
    expect(resolveProfile('claude-opus-4-6', { agent: 'claude-code' })?.effectiveWindow).toBe(167_000);
  });

  it('gives Claude Code 167,000 on a model listed at 200K', () => {
    expect(resolveProfile('claude-sonnet-4-20250514', { agent: 'claude-code' })?.effectiveWindow).toBe(
      167_000,
    );
  });

  it('lifts the Claude Code cap when the id opts in with [1m]', () => {
    expect(resolveProfile('claude-opus-4-6[1m]', { agent: 'claude-code' })?.effectiveWindow).toBe(967_000);
  });

  it('gives Codex 95% of the input window, the model_context_window its rollout reports', () => {
    // The recorded Codex rollout on gpt-5.3-codex reports model_context_window 258,400 = 0.95 × 272,000.
    const profile = resolveProfile('gpt-5.3-codex', { agent: 'codex' });
    expect(profile?.effectiveWindow).toBe(258_400);
    expect(profile?.contextLength).toBe(400_000);
  });

  it('leaves the window as listed for Gemini CLI and OpenHands', () => {
    expect(resolveProfile('gemini-2.5-pro', { agent: 'gemini-cli' })?.effectiveWindow).toBe(1_048_576);
    expect(resolveProfile('gpt-4o', { agent: 'openhands' })?.effectiveWindow).toBe(128_000);
  });

  it('applies the agent rule to a window set in the config file', () => {
    const profile = resolveProfile('gpt-5.3-codex', {
      agent: 'codex',
      config: config({ 'gpt-5.3-codex': { input_length: 200_000 } }),
    });
    expect(profile?.effectiveWindow).toBe(190_000);
  });

  it('rejects an unknown agent with an error naming the field', () => {
    expect(() => resolveProfile('gpt-5', { agent: 'cursor' as never })).toThrow(BarometerValidationError);
    try {
      resolveProfile('gpt-5', { agent: 'cursor' as never });
    } catch (error) {
      expect((error as BarometerValidationError).issues[0]?.field).toBe('agent');
    }
  });
});

describe('resolveProfile layering', () => {
  it('lets config entries override built-in figures', () => {
    const profile = resolveProfile('gpt-5.3-codex', {
      config: config({ 'gpt-5.3-codex': { optimal_max_tokens: 150_000, tpm_limit: 2_000_000 } }),
    });
    expect(profile).toMatchObject({
      contextLength: 400_000,
      optimalMaxTokens: 150_000,
      tpmLimit: 2_000_000,
      source: 'config',
    });
  });

  it('lets session overrides override config entries', () => {
    const profile = resolveProfile('gpt-5.3-codex', {
      config: config({ 'gpt-5.3-codex': { optimal_max_tokens: 150_000, critical_max_tokens: 240_000 } }),
      overrides: { optimalMaxTokens: 120_000 },
    });
    expect(profile).toMatchObject({
      optimalMaxTokens: 120_000,
      criticalMaxTokens: 240_000,
      source: 'session',
    });
  });

  it('keeps an explicit effective window instead of deriving one', () => {
    const profile = resolveProfile('claude-opus-4-6', {
      agent: 'claude-code',
      overrides: { effectiveWindow: 150_000 },
    });
    expect(profile?.effectiveWindow).toBe(150_000);
  });

  it('builds a profile for an unlisted model from session figures alone', () => {
    expect(resolveProfile('my-local-model', { overrides: { contextLength: 32_768 } })).toEqual({
      id: 'my-local-model',
      contextLength: 32_768,
      effectiveWindow: 32_768,
      windowSource: 'session',
      source: 'session',
    });
  });

  it('rejects an invalid override with an error naming the field', () => {
    try {
      resolveProfile('gpt-5', { overrides: { contextLength: -5 } });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(BarometerValidationError);
      expect((error as BarometerValidationError).issues[0]).toMatchObject({
        field: 'overrides.contextLength',
        value: -5,
      });
    }
  });

  it('lets a config price replace the built-in price whole, tiers included', () => {
    // Built in, gemini-2.5-pro has a tier above 200,000; a config price without tiers has none.
    const profile = resolveProfile('gemini-2.5-pro', {
      config: config({ 'gemini-2.5-pro': { price: { input: 1, output: 8 } } }),
    });
    expect(profile).toMatchObject({
      price: { input: 1, output: 8 },
      priceSource: 'config',
      reasoning: true,
      reasoningSource: 'registry',
      source: 'config',
    });
    expect(profile?.price?.tiers).toBeUndefined();
    expect(profile?.price?.cacheRead).toBeUndefined();
  });

  it('lets a config reasoning flag override the registry', () => {
    const profile = resolveProfile('gpt-4o-mini', { config: config({ 'gpt-4o-mini': { reasoning: true } }) });
    expect(profile).toMatchObject({ reasoning: true, reasoningSource: 'config', priceSource: 'registry' });
  });

  it('lets a session price override the config price', () => {
    const profile = resolveProfile('gpt-4o-mini', {
      config: config({ 'gpt-4o-mini': { price: { input: 1, output: 2 } } }),
      overrides: { price: { input: 0.1, output: 0.2, cacheRead: 0.05 } },
    });
    expect(profile).toMatchObject({
      price: { input: 0.1, output: 0.2, cacheRead: 0.05 },
      priceSource: 'session',
      source: 'session',
    });
  });

  it('builds a profile for an unlisted model from a config price alone', () => {
    expect(
      resolveProfile('my-local-model', {
        config: config({ 'my-local-model': { price: { input: 0, output: 0 } } }),
      }),
    ).toEqual({
      id: 'my-local-model',
      price: { input: 0, output: 0 },
      priceSource: 'config',
      source: 'config',
    });
  });

  it('rejects a session price with a negative figure, naming the field', () => {
    try {
      resolveProfile('gpt-4o-mini', { overrides: { price: { input: -1, output: 1 } } });
      expect.unreachable();
    } catch (error) {
      expect((error as BarometerValidationError).issues[0]).toMatchObject({
        field: 'overrides.price.input',
        value: -1,
      });
    }
  });

  it('returns a frozen profile', () => {
    expect(Object.isFrozen(resolveProfile('gpt-4o'))).toBe(true);
  });
});

describe('configEntryFor', () => {
  const models = config({
    'claude-sonnet-4': { optimal_max_tokens: 1000 },
    'openai/gpt-5': { optimal_max_tokens: 2000 },
    'GPT-4o': { optimal_max_tokens: 3000 },
  });

  it('matches ids case-insensitively', () => {
    expect(configEntryFor('gpt-4o', models)?.optimalMaxTokens).toBe(3000);
  });

  it('applies an entry without a provider to every provider', () => {
    expect(configEntryFor('openrouter/openai/gpt-4o', models)?.optimalMaxTokens).toBe(3000);
  });

  it('applies a provider entry to the bare id of that provider only', () => {
    expect(configEntryFor('gpt-5', models)?.optimalMaxTokens).toBe(2000);
    expect(configEntryFor('azure/gpt-5', models)).toBeUndefined();
  });

  it('applies a family entry to its dated snapshots', () => {
    expect(configEntryFor('claude-sonnet-4-20250514', models)?.optimalMaxTokens).toBe(1000);
  });
});

describe('resolveProfile for a model the registry does not list', () => {
  // claude-opus-4-8: the newest claude-opus-* Anthropic lists in the table of 2026-11-22 (family-estimate.test.ts).
  const newest = findModel('claude-opus-4-8')!;

  it("takes window, max output, price and reasoning from the family's newest known model, marked family-estimate", () => {
    expect(resolveProfile('claude-opus-5-5')).toEqual({
      id: 'claude-opus-5-5',
      contextLength: newest.contextLength,
      maxOutput: newest.maxOutput,
      effectiveWindow: newest.contextLength,
      price: newest.price,
      priceSource: 'family-estimate',
      reasoning: newest.reasoning,
      reasoningSource: 'family-estimate',
      windowSource: 'family-estimate',
      estimatedFrom: 'claude-opus-4-8',
      family: 'claude-opus-*',
      source: 'family-estimate',
    });
  });

  it("narrows the estimated window by the agent's rule, as for a listed model", () => {
    expect(resolveProfile('claude-opus-5-5', { agent: 'claude-code' })?.effectiveWindow).toBe(167_000);
    expect(resolveProfile('claude-opus-5-5[1m]', { agent: 'claude-code' })?.effectiveWindow).toBe(
      newest.contextLength! - 33_000,
    );
  });

  it("lets the user's config entry win over the estimate, figure by figure", () => {
    const profile = resolveProfile('claude-opus-5-5', {
      config: config({ 'claude-opus-5-5': { context_length: 500_000, price: { input: 7, output: 35 } } }),
    });
    expect(profile).toMatchObject({
      contextLength: 500_000,
      effectiveWindow: 500_000,
      windowSource: 'config',
      price: { input: 7, output: 35 },
      priceSource: 'config',
      maxOutput: newest.maxOutput,
      reasoningSource: 'family-estimate',
      estimatedFrom: 'claude-opus-4-8',
      source: 'config',
    });
  });

  it('knows nothing of a model of no known family (undefined: no window, no price)', () => {
    expect(resolveProfile('acme-7')).toBeUndefined();
    expect(explainProfile('acme-7')).toMatchObject({
      profile: undefined,
      estimate: undefined,
      registry: undefined,
    });
  });
});

describe('resolveProfile with what the agent reports', () => {
  it("measures against the window the agent states, as stated (Claude Code's 1M is not capped at 200K)", () => {
    const profile = resolveProfile('claude-opus-5-5', {
      agent: 'claude-code',
      reported: { contextWindow: 1_000_000 },
    });
    expect(profile).toMatchObject({
      contextLength: 1_000_000,
      effectiveWindow: 967_000,
      windowSource: 'agent-reported',
      priceSource: 'family-estimate',
    });
    // A stated 200K: Claude Code's own 33,000-token reserve still comes off.
    expect(
      resolveProfile('acme-7', { agent: 'claude-code', reported: { contextWindow: 200_000 } }),
    ).toMatchObject({ effectiveWindow: 167_000, windowSource: 'agent-reported', source: 'agent-reported' });
  });

  it("takes the agent's own effective window as it is (Codex's model_context_window)", () => {
    expect(
      resolveProfile('gpt-5.6-sol', { agent: 'codex', reported: { effectiveWindow: 258_400 } }),
    ).toMatchObject({ effectiveWindow: 258_400, windowSource: 'agent-reported' });
  });

  it("raises max output to a request's max_tokens, never lowers it", () => {
    const listed = findModel('claude-sonnet-4-20250514')!.maxOutput!;
    expect(resolveProfile('claude-sonnet-4-20250514', { reported: { maxOutput: 1024 } })?.maxOutput).toBe(
      listed,
    );
    expect(
      explainProfile('claude-sonnet-4-20250514', { reported: { maxOutput: listed + 1 } }).sources.maxOutput,
    ).toBe('agent-reported');
    expect(resolveProfile('acme-7', { reported: { maxOutput: 32_000 } })).toEqual({
      id: 'acme-7',
      maxOutput: 32_000,
      source: 'agent-reported',
    });
  });

  it('loses to the config file', () => {
    const profile = resolveProfile('claude-opus-5-5', {
      agent: 'claude-code',
      reported: { contextWindow: 1_000_000 },
      config: config({ 'claude-opus-5-5': { context_length: 200_000 } }),
    });
    // The config's window is no stated window: Claude Code's rule applies to it in full.
    expect(profile).toMatchObject({
      contextLength: 200_000,
      effectiveWindow: 167_000,
      windowSource: 'config',
    });
  });
});
