import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { charsEstimateCounter } from './chars-estimate-counter.js';
import { createTokenCounter, encodingForModel } from './create-token-counter.js';

describe('createTokenCounter', () => {
  const o200k = createTokenCounter();
  const cl100k = createTokenCounter({ encoding: 'cl100k_base' });

  it('counts with o200k_base by default and names it', () => {
    expect(o200k.name).toBe('o200k_base');
    expect(o200k.estimate).toBe(false);
    // "hello" + " world" in both encodings.
    expect(o200k.count('hello world')).toBe(2);
    expect(cl100k.count('hello world')).toBe(2);
  });

  it('counts a sentence word by word, with the full stop as its own token', () => {
    // Nine words, each one token with its leading space, plus ".".
    expect(o200k.count('The quick brown fox jumps over the lazy dog.')).toBe(10);
    expect(cl100k.count('The quick brown fox jumps over the lazy dog.')).toBe(10);
  });

  it('selects cl100k_base, which splits Japanese into more tokens than o200k_base', () => {
    expect(cl100k.name).toBe('cl100k_base');
    // o200k: "こんにちは" + "世界"; cl100k: "こんにちは" + a partial byte token + "世" + "界".
    expect(o200k.count('こんにちは世界')).toBe(2);
    expect(cl100k.count('こんにちは世界')).toBe(4);
  });

  it('counts special-token text as plain text instead of refusing it', () => {
    // "<" "|" "end" "of" "text" "|" ">"
    expect(o200k.count('<|endoftext|>')).toBe(7);
  });

  it('counts the empty string as zero tokens', () => {
    expect(o200k.count('')).toBe(0);
  });

  describe('option model', () => {
    it('picks the encoding by model family', () => {
      expect(createTokenCounter({ model: 'gpt-4o-mini' }).name).toBe('o200k_base');
      expect(createTokenCounter({ model: 'gpt-4' }).name).toBe('cl100k_base');
      expect(createTokenCounter({ model: 'gpt-3.5-turbo' }).name).toBe('cl100k_base');
    });

    it('lets an explicit encoding win over the model', () => {
      expect(createTokenCounter({ model: 'gpt-4', encoding: 'o200k_base' }).name).toBe('o200k_base');
    });
  });

  it('rejects an unknown encoding and unknown keys', () => {
    expect(() => createTokenCounter({ encoding: 'p50k_base' as 'o200k_base' })).toThrow(
      BarometerValidationError,
    );
    expect(() => createTokenCounter({ tokenizer: 'x' } as never)).toThrow(/tokenizer: unknown parameter/);
  });
});

describe('encodingForModel', () => {
  it('maps the o200k families', () => {
    for (const model of [
      'gpt-4o',
      'chatgpt-4o-latest',
      'gpt-4.1-nano',
      'gpt-5',
      'gpt-5.3-codex',
      'o1',
      'o3-mini',
      'o4-mini',
    ]) {
      expect(encodingForModel(model), model).toEqual({ encoding: 'o200k_base', known: true });
    }
  });

  it('maps gpt-4 and gpt-3.5 to cl100k, ignoring a provider prefix', () => {
    expect(encodingForModel('gpt-4-turbo')).toEqual({ encoding: 'cl100k_base', known: true });
    expect(encodingForModel('openai/gpt-3.5-turbo')).toEqual({ encoding: 'cl100k_base', known: true });
    expect(encodingForModel('azure/GPT-4o')).toEqual({ encoding: 'o200k_base', known: true });
  });

  it('approximates other families with o200k and says the tokenizer is not theirs', () => {
    expect(encodingForModel('claude-opus-4-6')).toEqual({ encoding: 'o200k_base', known: false });
    expect(encodingForModel('gemini-2.5-pro')).toEqual({ encoding: 'o200k_base', known: false });
  });
});

describe('charsEstimateCounter', () => {
  it('is named as an estimate and rounds chars/4 up', () => {
    expect(charsEstimateCounter.name).toBe('chars/4-estimate');
    expect(charsEstimateCounter.estimate).toBe(true);
    expect(charsEstimateCounter.count('abcdefgh')).toBe(2);
    expect(charsEstimateCounter.count('abcdefghi')).toBe(3);
    expect(charsEstimateCounter.count('')).toBe(0);
  });
});
