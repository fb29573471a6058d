import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { normalizeUsage } from './normalize-usage.js';
import { loadCassette, TRACES } from './test-helpers/traces.js';
import { USAGE_FORMATS, type UsageFormat } from './usage-format.js';
import { UsageRecordSchema } from './usage-record-schema.js';

/** The format of a recorded request, from its endpoint. */
function formatOf(uri: string): UsageFormat {
  const url = new URL(uri);
  if (url.host === 'api.anthropic.com') return 'anthropic';
  if (url.host === 'generativelanguage.googleapis.com') return 'gemini';
  if (url.pathname.startsWith('/v1/responses')) return 'openai-responses';
  return 'openai-chat';
}

describe('normalizeUsage over every recorded cassette', () => {
  const names = readdirSync(new URL('api-cassettes/', TRACES)).filter((name) => name.endsWith('.yaml'));

  it('finds the six cassettes', () => {
    expect(names).toHaveLength(6);
  });

  it.each(names)('gives available, schema-valid usage for every response of %s', (name) => {
    for (const { uri, body } of loadCassette(name)) {
      const record = normalizeUsage(formatOf(uri), body);
      expect(record.available, `${name} ${uri}`).toBe(true);
      expect(UsageRecordSchema.safeParse(record).success).toBe(true);
    }
  });

  it('dispatches to the provider reader: the Anthropic stream gives 181 prompt tokens', () => {
    const [response] = loadCassette('test_anthropic_compaction_usage_with_cache_streaming.yaml');
    expect(normalizeUsage('anthropic', response!.body)).toMatchObject({
      source: 'anthropic',
      promptTokens: 181,
    });
  });

  it('accepts an array of chunks for openai-chat', () => {
    const chunks = [
      { object: 'chat.completion.chunk', usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } },
    ];
    expect(normalizeUsage('openai-chat', chunks)).toMatchObject({ available: true, promptTokens: 5 });
  });
});

describe('normalizeUsage errors', () => {
  it('throws a BarometerValidationError naming the allowed formats for an unknown format', () => {
    let error: unknown;
    try {
      normalizeUsage('openai' as UsageFormat, {});
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(BarometerValidationError);
    const issue = (error as BarometerValidationError).issues[0]!;
    expect(issue.field).toBe('format');
    expect(issue.value).toBe('openai');
    expect(issue.allowed?.values).toEqual([...USAGE_FORMATS]);
  });

  it('throws for invalid options', () => {
    expect(() => normalizeUsage('gemini', {}, { timestamp: '12:00' })).toThrow(BarometerValidationError);
  });

  it('never throws on any input, and never reports a negative or fractional count', () => {
    fc.assert(
      fc.property(fc.constantFrom(...USAGE_FORMATS), fc.anything(), (format, input) => {
        const record = normalizeUsage(format, input);
        expect(record.source).toBe(format);
        expect(UsageRecordSchema.safeParse(record).success).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on usage-like objects with arbitrary field values', () => {
    const field = fc.oneof(fc.integer(), fc.double(), fc.constant(null), fc.string(), fc.constant(undefined));
    const usage = fc.record({
      prompt_tokens: field,
      completion_tokens: field,
      input_tokens: field,
      output_tokens: field,
      promptTokenCount: field,
      inputTokens: field,
      outputTokens: field,
      prompt_eval_count: field,
      eval_count: field,
      tokens_evaluated: field,
      tokens_predicted: field,
    });
    fc.assert(
      fc.property(fc.constantFrom(...USAGE_FORMATS), usage, (format, fields) => {
        for (const input of [fields, { usage: fields }, { usageMetadata: fields }]) {
          expect(UsageRecordSchema.safeParse(normalizeUsage(format, input)).success).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
