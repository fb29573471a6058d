import { describe, expect, it } from 'vitest';
import { thinkingBudget } from '../compaction/thinking-budget.js';
import { mergeThinking } from './ai-sdk-thinking.js';

// The verdict's parameters, exactly as the session writes them (seed 004's thinking budget, lowered).
const openai = thinkingBudget({ tpmLeft: 0, provider: 'openai' }).params;
const anthropic = thinkingBudget({ tpmLeft: 0, provider: 'anthropic' }).params;
const geminiLevel = thinkingBudget({ tpmLeft: 0, provider: 'gemini' }).params;
const geminiBudget = thinkingBudget({ tpmLeft: 0, provider: 'gemini', geminiControl: 'budget' }).params;

describe('mergeThinking', () => {
  describe('OpenAI', () => {
    it('sets providerOptions.openai.reasoningEffort, keeping the other OpenAI options', () => {
      const call = { providerOptions: { openai: { user: 'u1', reasoningEffort: 'high' } } };
      const merged = mergeThinking(openai, call, 'openai.responses');
      expect(merged.providerOptions).toEqual({ openai: { user: 'u1', reasoningEffort: 'low' } });
      expect(call.providerOptions.openai.reasoningEffort).toBe('high');
    });

    it('never raises an effort the call set lower', () => {
      const call = { providerOptions: { openai: { reasoningEffort: 'minimal' } } };
      expect(mergeThinking(openai, call, 'openai.chat').providerOptions).toBe(call.providerOptions);
    });

    it('writes under the Azure key too when the call uses it (Azure reads both, its own winning)', () => {
      const merged = mergeThinking(
        openai,
        { providerOptions: { azure: { reasoningEffort: 'high' } } },
        'azure.chat',
      );
      expect(merged.providerOptions).toEqual({
        openai: { reasoningEffort: 'low' },
        azure: { reasoningEffort: 'low' },
      });
    });
  });

  describe('Anthropic', () => {
    it('lowers thinking.budgetTokens of a call that thinks', () => {
      const merged = mergeThinking(
        anthropic,
        { providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 24_576 } } } },
        'anthropic.messages',
      );
      expect(merged.providerOptions).toEqual({
        anthropic: { thinking: { type: 'enabled', budgetTokens: 8192 } },
      });
    });

    it('does not turn thinking on in a call that does not think', () => {
      const call = { providerOptions: { anthropic: { sendReasoning: true } } };
      const merged = mergeThinking(anthropic, call, 'anthropic.messages');
      expect(merged.providerOptions).toBe(call.providerOptions);
      expect(merged.notes).toEqual(['thinking is not enabled in the request: nothing to lower']);
    });

    it('lowers the effort of adaptive thinking, which takes no budget', () => {
      const merged = mergeThinking(
        anthropic,
        { providerOptions: { anthropic: { thinking: { type: 'adaptive' }, effort: 'high' } } },
        'anthropic.messages',
      );
      expect(merged.providerOptions).toEqual({
        anthropic: { thinking: { type: 'adaptive' }, effort: 'low' },
      });
    });
  });

  describe('Gemini', () => {
    it('sets thinkingConfig.thinkingLevel in the SDK’s lower case, keeping includeThoughts', () => {
      const merged = mergeThinking(
        geminiLevel,
        { providerOptions: { google: { thinkingConfig: { includeThoughts: true } } } },
        'google.generative-ai',
      );
      expect(merged.providerOptions).toEqual({
        google: { thinkingConfig: { includeThoughts: true, thinkingLevel: 'low' } },
      });
    });

    it('lowers a dynamic (-1) or larger thinkingBudget, keeps a smaller one', () => {
      const dynamic = mergeThinking(
        geminiBudget,
        { providerOptions: { google: { thinkingConfig: { thinkingBudget: -1 } } } },
        'google.generative-ai',
      );
      expect(dynamic.providerOptions).toEqual({ google: { thinkingConfig: { thinkingBudget: 8192 } } });
      const small = { providerOptions: { google: { thinkingConfig: { thinkingBudget: 512 } } } };
      expect(mergeThinking(geminiBudget, small, 'google.generative-ai').providerOptions).toBe(
        small.providerOptions,
      );
    });

    it('never sets both controls, which Gemini refuses', () => {
      const call = { providerOptions: { google: { thinkingConfig: { thinkingBudget: 4096 } } } };
      expect(mergeThinking(geminiLevel, call, 'google.generative-ai').providerOptions).toBe(
        call.providerOptions,
      );
    });
  });

  describe('spec v4', () => {
    it('lowers the call’s provider-neutral reasoning level as well', () => {
      const merged = mergeThinking(anthropic, { reasoning: 'high' }, 'anthropic.messages');
      expect(merged.reasoning).toBe('low');
      expect(mergeThinking(openai, { reasoning: 'minimal' }, 'openai.chat')).toMatchObject({
        providerOptions: undefined,
      });
    });
  });
});
