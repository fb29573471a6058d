/**
 * The verdict's thinking parameters (provider wire names, e.g. `{ reasoning_effort: 'low' }`) written as the AI
 * SDK's provider options (its own names, e.g. `providerOptions.openai.reasoningEffort`), only ever lowering what
 * the request asks for. Names and values as the provider packages read them (`@ai-sdk/openai` 3.x/4.x
 * `openaiLanguageModelChatOptions.reasoningEffort`; `@ai-sdk/anthropic` `thinking: { type: 'enabled',
 * budgetTokens }`, `effort`; `@ai-sdk/google` `thinkingConfig.{thinkingLevel,thinkingBudget}`, lower-case levels;
 * and, spec v4 only, the call's top-level `reasoning`).
 */
import { isObject } from '../usage/json-object.js';

type JsonObject = Record<string, unknown>;
export type ProviderOptions = Record<string, JsonObject>;

/** The parts of a call's options the thinking parameters touch. */
export interface ThinkingCall {
  providerOptions?: ProviderOptions | undefined;
  /** Spec v4 only: the provider-neutral reasoning level. */
  reasoning?: unknown;
}

export interface ThinkingMerge {
  providerOptions: ProviderOptions | undefined;
  /** Set when a spec v4 `reasoning` was lowered. */
  reasoning?: string;
  /** What changed, or why nothing did, for the middleware's report. */
  notes: string[];
}

const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];
const rank = (level: unknown) => (typeof level === 'string' ? EFFORTS.indexOf(level.toLowerCase()) : -1);
/** Whether `current` asks for more than `target` (an unknown level counts as more: it is lowered). */
const above = (current: unknown, target: string) => rank(current) === -1 || rank(current) > rank(target);

type Family = 'openai' | 'anthropic' | 'google';
/** Other `providerOptions` keys each family's provider packages read (Azure OpenAI; Vertex Gemini). */
const ALIASES: Readonly<Record<Family, readonly string[]>> = {
  openai: ['azure'],
  anthropic: [],
  google: ['googleVertex', 'vertex'],
};

function familyOf(thinking: JsonObject): Family | undefined {
  if (typeof thinking.reasoning_effort === 'string') return 'openai';
  if (isObject(thinking.thinking)) return 'anthropic';
  if (isObject(thinking.thinkingConfig)) return 'google';
  return undefined;
}

/**
 * Merges the verdict's `thinking` into a call: into `providerOptions` under the family's key (and under every other
 * key of that family the call already uses, which its provider reads first), and, for spec v4, into `reasoning`.
 * Nothing is ever raised: a request that already thinks less keeps its setting, and Anthropic thinking that the
 * request does not turn on stays off. The call's objects are not mutated.
 * @param modelProvider the model's `provider` (`openai.chat`, `anthropic.messages`, `google.generative-ai`, …)
 */
export function mergeThinking(
  thinking: JsonObject,
  call: ThinkingCall,
  modelProvider: string,
): ThinkingMerge {
  const notes: string[] = [];
  const family = familyOf(thinking);
  const options: ProviderOptions = { ...(call.providerOptions ?? {}) };
  let changed = false;
  let reasoning: string | undefined;
  // Spec v4's provider-neutral level: lowered whatever the family (providers map it; provider options win).
  if (
    typeof call.reasoning === 'string' &&
    call.reasoning !== 'provider-default' &&
    above(call.reasoning, 'low')
  ) {
    reasoning = 'low';
    notes.push(`reasoning ${call.reasoning} → low`);
  }
  if (family === undefined) {
    notes.push('thinking parameters of no known provider: not applied');
    return { providerOptions: call.providerOptions, ...(reasoning ? { reasoning } : {}), notes };
  }
  const prefix = modelProvider.split('.')[0] ?? '';
  const present = [prefix, ...ALIASES[family]].filter(
    (key, index, all) => key !== family && key !== '' && all.indexOf(key) === index && isObject(options[key]),
  );
  // The provider-specific key is read before the family's own (or merged over it), so it holds the current value.
  const readOrder = [...present, family];
  const current = (field: string) => {
    for (const key of readOrder) {
      const value = options[key]?.[field];
      if (value !== undefined) return value;
    }
    return undefined;
  };
  const write = (field: string, value: unknown) => {
    for (const key of [family, ...present]) options[key] = { ...(options[key] ?? {}), [field]: value };
    changed = true;
  };

  if (family === 'openai') {
    const target = String(thinking.reasoning_effort);
    const effort =
      current('reasoningEffort') ?? (typeof call.reasoning === 'string' ? call.reasoning : undefined);
    if (effort !== undefined && effort !== 'provider-default' && !above(effort, target))
      notes.push(`reasoning effort ${effort} kept (not above ${target})`);
    else {
      write('reasoningEffort', target);
      notes.push(`reasoningEffort ${effort ?? 'default'} → ${target}`);
    }
  } else if (family === 'anthropic') {
    const wanted = thinking.thinking as JsonObject;
    const budget = typeof wanted.budget_tokens === 'number' ? wanted.budget_tokens : undefined;
    const config = current('thinking');
    if (isObject(config) && config.type === 'enabled' && budget !== undefined) {
      // Without budgetTokens the provider sends its own minimum (1,024 in @ai-sdk/anthropic 3.x): already lower.
      if (typeof config.budgetTokens === 'number' && config.budgetTokens > budget) {
        write('thinking', { ...config, budgetTokens: budget });
        notes.push(`thinking budgetTokens ${config.budgetTokens} → ${budget}`);
      } else
        notes.push(`thinking budgetTokens ${config.budgetTokens ?? 'default'} kept (not above ${budget})`);
    } else if (isObject(config) && config.type === 'adaptive') {
      // Adaptive thinking takes no budget; its control is the effort level.
      const effort = current('effort');
      if (effort === undefined || above(effort, 'low')) {
        write('effort', 'low');
        notes.push(`effort ${effort ?? 'default'} → low (adaptive thinking)`);
      } else notes.push(`effort ${effort} kept (not above low)`);
    } else if (reasoning === undefined)
      notes.push('thinking is not enabled in the request: nothing to lower');
  } else {
    const wanted = thinking.thinkingConfig as JsonObject;
    const config = current('thinkingConfig');
    const base = isObject(config) ? config : {};
    if (typeof wanted.thinkingLevel === 'string') {
      const target = wanted.thinkingLevel.toLowerCase();
      if (base.thinkingBudget !== undefined)
        notes.push('the request sets thinkingBudget; Gemini refuses both controls at once: not applied');
      else if (base.thinkingLevel !== undefined && !above(base.thinkingLevel, target))
        notes.push(`thinkingLevel ${base.thinkingLevel} kept (not above ${target})`);
      else {
        write('thinkingConfig', { ...base, thinkingLevel: target });
        notes.push(`thinkingLevel ${base.thinkingLevel ?? 'default'} → ${target}`);
      }
    } else if (typeof wanted.thinkingBudget === 'number') {
      const target = wanted.thinkingBudget;
      const currentBudget = base.thinkingBudget;
      if (base.thinkingLevel !== undefined)
        notes.push('the request sets thinkingLevel; Gemini refuses both controls at once: not applied');
      // -1 is Gemini's dynamic budget: unbounded, so it is lowered.
      else if (typeof currentBudget === 'number' && currentBudget >= 0 && currentBudget <= target)
        notes.push(`thinkingBudget ${currentBudget} kept (not above ${target})`);
      else {
        write('thinkingConfig', { ...base, thinkingBudget: target });
        notes.push(`thinkingBudget ${currentBudget ?? 'default'} → ${target}`);
      }
    }
  }
  return {
    providerOptions: changed ? options : call.providerOptions,
    ...(reasoning ? { reasoning } : {}),
    notes,
  };
}
