/**
 * OpenAI's prompt-caching rules, from its prompt caching guide
 * (https://developers.openai.com/api/docs/guides/prompt-caching, "Summary of model differences") and, for the models
 * before GPT-5.6, its Prompt Caching 201 cookbook. Sources and choices in docs/rules.md ("Prompt caches").
 */

/** `prompt_cache_retention` of the models before GPT-5.6. */
export type OpenAiCacheRetention = 'in_memory' | '24h';

/** How a model caches: the models before GPT-5.6 by fixed token intervals, GPT-5.6 and later by message breakpoints. */
export type OpenAiCacheRules =
  | {
      kind: 'intervals';
      /** "cache hits occurring in increments of 128 tokens"; GPT-5.5's implicit breakpoints are 2,048 tokens apart. */
      intervalTokens: number;
      /** "works automatically for prompts containing 1024 tokens or more". */
      minimumTokens: number;
      /** The retention values the model accepts, the default first. */
      retentions: readonly OpenAiCacheRetention[];
    }
  | {
      kind: 'breakpoints';
      /** "1,024 visible input tokens". */
      minimumTokens: number;
      /** "At least 30 minutes after the latest write or reuse." */
      lifetimeMs: number;
    };

/** GPT-5.6 and later: "cache writes cost 1.25× the standard, uncached input-token rate … reads cost only 0.1×". */
export const OPENAI_BREAKPOINT_MULTIPLIERS = { write: 1.25, read: 0.1 } as const;

/** "Each request can create up to four cache writes." */
export const OPENAI_MAX_CACHE_WRITES = 4;

/** Lookup boundaries of GPT-5.6 and later: "The first 2 and latest 50 explicit breakpoints … up to 20 earlier eligible message endings". */
export const OPENAI_LOOKUP = { firstExplicit: 2, latestExplicit: 50, earlierMessageEnds: 20 } as const;

/**
 * The lifetime the model gives an entry of a model before GPT-5.6, by retention. The guide gives ranges: `in_memory`
 * "typically remain active for around 5 to 10 minutes of inactivity, up to one hour"; `24h` "typically keeps entries
 * available for around 30 minutes and can retain them for up to 24 hours". The model takes the low end of what is
 * typical, so that it never predicts a read the provider is not likely to give; a caller may set its own.
 */
export const OPENAI_RETENTION_LIFETIME_MS: Readonly<Record<OpenAiCacheRetention, number>> = {
  in_memory: 5 * 60_000,
  '24h': 30 * 60_000,
};

/** "Extended retention is supported by gpt-5.5, gpt-5.5-pro, gpt-5.4, gpt-5.2, gpt-5.1-codex-max, …, and gpt-4.1." */
const EXTENDED_RETENTION = new Set([
  'gpt-5.4',
  'gpt-5.2',
  'gpt-5.1-codex-max',
  'gpt-5.1',
  'gpt-5.1-codex',
  'gpt-5.1-codex-mini',
  'gpt-5.1-chat-latest',
  'gpt-5',
  'gpt-5-codex',
  'gpt-4.1',
]);

/**
 * The caching rules of an OpenAI model id (a provider prefix such as `openai/` and a date suffix are read through):
 * GPT-5.6 and later families cache at message breakpoints; GPT-5.5 and GPT-5.5 Pro at 2,048-token intervals with
 * `24h` retention only; every other model at 128-token steps, `24h` by default where the model supports it ("For
 * models that support both `in_memory` and `24h` … Organizations without Zero Data Retention enabled default to
 * `24h`"), else `in_memory`.
 * @example openAiCacheRules('gpt-5.3-codex') // { kind: 'intervals', intervalTokens: 128, minimumTokens: 1024, retentions: ['in_memory'] }
 */
export function openAiCacheRules(model: string): OpenAiCacheRules {
  const id = model
    .toLowerCase()
    .replace(/^.*\//, '')
    .replace(/-\d{4}-\d{2}-\d{2}$/, '');
  const version = /^gpt-(\d+)(?:\.(\d+))?/.exec(id);
  const major = version ? Number(version[1]) : 0;
  const minor = version?.[2] === undefined ? 0 : Number(version[2]);
  if (major > 5 || (major === 5 && minor >= 6))
    return { kind: 'breakpoints', minimumTokens: 1024, lifetimeMs: 30 * 60_000 };
  if (major === 5 && minor === 5)
    return { kind: 'intervals', intervalTokens: 2048, minimumTokens: 1024, retentions: ['24h'] };
  return {
    kind: 'intervals',
    intervalTokens: 128,
    minimumTokens: 1024,
    retentions: EXTENDED_RETENTION.has(id) ? ['24h', 'in_memory'] : ['in_memory'],
  };
}
