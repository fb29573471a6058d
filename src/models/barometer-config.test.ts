import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { BarometerConfigSchema, parseConfig, parseConfigText } from './barometer-config.js';

describe('parseConfig', () => {
  it('reads snake_case fields into camelCase', () => {
    const result = parseConfig({
      models: {
        'gpt-5': {
          context_length: 400_000,
          input_length: 272_000,
          max_output: 128_000,
          optimal_max_tokens: 200_000,
          critical_max_tokens: 244_800,
          tpm_limit: 2_000_000,
          effective_window: 258_400,
        },
      },
    });
    expect(result).toEqual({
      ok: true,
      value: {
        models: {
          'gpt-5': {
            contextLength: 400_000,
            inputLength: 272_000,
            maxOutput: 128_000,
            optimalMaxTokens: 200_000,
            criticalMaxTokens: 244_800,
            tpmLimit: 2_000_000,
            effectiveWindow: 258_400,
          },
        },
      },
    });
  });

  it('reads a price in models.dev field names and a reasoning flag into camelCase', () => {
    const result = parseConfig({
      models: {
        'gemini-2.5-pro': {
          reasoning: true,
          price: {
            input: 1.25,
            output: 10,
            cache_read: 0.125,
            cache_write: 0.375,
            reasoning: 10,
            tiers: [
              { above_tokens: 500_000, input: 5, output: 20 },
              { above_tokens: 200_000, input: 2.5, output: 15, cache_read: 0.25 },
            ],
          },
        },
      },
    });
    expect(result).toEqual({
      ok: true,
      value: {
        models: {
          'gemini-2.5-pro': {
            reasoning: true,
            price: {
              input: 1.25,
              output: 10,
              cacheRead: 0.125,
              cacheWrite: 0.375,
              reasoning: 10,
              // Sorted by threshold, whatever order the file gives.
              tiers: [
                { aboveTokens: 200_000, input: 2.5, output: 15, cacheRead: 0.25 },
                { aboveTokens: 500_000, input: 5, output: 20 },
              ],
            },
          },
        },
      },
    });
  });

  it('rejects a price without an output price, a negative price and camelCase price keys, naming each field', () => {
    const result = parseConfig({
      models: {
        a: { price: { input: 1 } },
        b: { price: { input: -1, output: 1 } },
        c: { price: { input: 1, output: 1, cacheRead: 0.1 } },
      },
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issues.map((issue) => issue.field).sort()).toEqual([
        'models.a.price.output',
        'models.b.price.input',
        'models.c.price.cacheRead',
      ]);
    }
  });

  it('rejects two tiers with the same threshold and a tier without one', () => {
    const result = parseConfig({
      models: {
        x: {
          price: {
            input: 1,
            output: 2,
            tiers: [
              { above_tokens: 200_000, input: 2, output: 3 },
              { above_tokens: 200_000, input: 3, output: 4 },
            ],
          },
        },
        y: { price: { input: 1, output: 2, tiers: [{ input: 2, output: 3 }] } },
      },
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issues.map((issue) => issue.field).sort()).toEqual([
        'models.x.price.tiers[1].above_tokens',
        'models.y.price.tiers[0].above_tokens',
      ]);
    }
  });

  it('treats a missing models section and an empty document as no settings', () => {
    expect(parseConfig({})).toEqual({ ok: true, value: { models: {} } });
    expect(parseConfig(null)).toEqual({ ok: true, value: { models: {} } });
  });

  it('names the field of a bad value', () => {
    const result = parseConfig({ models: { 'gpt-5': { context_length: -1 } } });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issues).toHaveLength(1);
      expect(result.issues[0]).toMatchObject({
        field: 'models.gpt-5.context_length',
        value: -1,
        allowed: { min: 1 },
      });
    }
  });

  it('rejects a fractional token count', () => {
    const result = parseConfig({ models: { 'gpt-5': { tpm_limit: 1.5 } } });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues[0]?.field).toBe('models.gpt-5.tpm_limit');
  });

  it('rejects unknown keys at the top and inside a model entry', () => {
    const result = parseConfig({ server: {}, models: { 'gpt-5': { contextLength: 1000 } } });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      const fields = result.issues.map((issue) => issue.field).sort();
      expect(fields).toEqual(['models.gpt-5.contextLength', 'server']);
      for (const issue of result.issues) expect(issue.message).toBe('unknown parameter');
    }
  });

  it('rejects a critical threshold at or below the optimal one', () => {
    const result = parseConfig({
      models: { x: { optimal_max_tokens: 200_000, critical_max_tokens: 200_000 } },
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues[0]?.field).toBe('models.x.critical_max_tokens');
  });
});

describe('parseConfigText', () => {
  it('parses YAML', () => {
    const text = 'models:\n  claude-opus-4-6:\n    optimal_max_tokens: 120000\n';
    expect(parseConfigText(text, 'yaml')).toEqual({
      ok: true,
      value: { models: { 'claude-opus-4-6': { optimalMaxTokens: 120_000 } } },
    });
  });

  it('reports text that does not parse instead of throwing', () => {
    const result = parseConfigText('{ "models": ', 'json');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues[0]?.message).toMatch(/^not valid JSON/);
  });
});

describe('BarometerConfigSchema', () => {
  it('exports the file shape as JSON Schema', () => {
    const schema = z.toJSONSchema(BarometerConfigSchema, { io: 'input' }) as {
      additionalProperties?: boolean;
      properties?: Record<string, unknown>;
    };
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties ?? {})).toEqual(['models', 'window_policy']);
  });
});
