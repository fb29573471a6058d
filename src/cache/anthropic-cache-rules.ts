/**
 * Anthropic's prompt-caching rules, from its prompt caching guide
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching, the copy of 2026-08-21) and pricing page
 * (https://platform.claude.com/docs/en/about-claude/pricing). Sources and choices in docs/rules.md ("Prompt caches").
 */

/** "You can define up to 4 cache breakpoints": a fifth is refused (the automatic breakpoint takes one of the 4 slots). */
export const ANTHROPIC_MAX_BREAKPOINTS = 4;

/**
 * "The lookback window is 20 blocks. The system checks at most 20 positions per breakpoint, counting the breakpoint
 * itself as the first."
 */
export const ANTHROPIC_LOOKBACK_POSITIONS = 20;

/** The two lifetimes of `cache_control.ttl`: "5m" (the default) and "1h". */
export type AnthropicCacheTtl = '5m' | '1h';

/** "By default, the cache has a 5-minute lifetime"; the extended one lasts an hour. */
export const ANTHROPIC_TTL_MS: Readonly<Record<AnthropicCacheTtl, number>> = {
  '5m': 5 * 60_000,
  '1h': 60 * 60_000,
};

/**
 * The pricing multipliers of the input price: "5-minute cache write tokens are 1.25 times the base input tokens
 * price; 1-hour cache write tokens are 2 times …; Cache read tokens are 0.1 times" — on most models: the pricing page
 * lists Claude Opus 5.5's reads at 0.05 × and Fable 5.1's at 0.025 ×, which is why a price table's own cache prices
 * win over these (`promptCacheCost`).
 */
export const ANTHROPIC_CACHE_MULTIPLIERS = { write5m: 1.25, write1h: 2, read: 0.1 } as const;

/**
 * The minimum cacheable prompt length on the Claude API ("Shorter prompts cannot be cached, even if marked with
 * `cache_control` … no error is returned"), by model family and version. Claude Opus 5.5, Sonnet 5.5, Fable 5.1 and
 * Mythos 5.1 came after the guide's copy: 512, as later quotations of the same list give.
 */
const MINIMUMS: ReadonlyArray<readonly [number, readonly string[]]> = [
  [512, ['opus-5', 'fable-5', 'mythos-5', 'opus-5.5', 'sonnet-5.5', 'fable-5.1', 'mythos-5.1']],
  [1024, ['opus-4.8', 'sonnet-5', 'sonnet-4.6', 'sonnet-4.5', 'opus-4.1', 'opus-4', 'sonnet-4']],
  // Claude Sonnet 3.7, Sonnet 3.5 and Opus 3 are in the guide's earlier list at 1,024.
  [1024, ['sonnet-3.7', 'sonnet-3.5', 'opus-3']],
  [2048, ['mythos-preview', 'opus-4.7', 'haiku-3.5', 'haiku-3']],
  [4096, ['opus-4.6', 'opus-4.5', 'haiku-4.5']],
];

/**
 * A model the list does not name gets the highest minimum it documents: the model then never predicts a cache entry
 * the provider may refuse (on an agent's prompts, tens of thousands of tokens, no minimum matters).
 */
export const ANTHROPIC_UNKNOWN_MODEL_MINIMUM = 4096;

const MINIMUM_BY_MODEL = new Map<string, number>(
  MINIMUMS.flatMap(([minimum, models]) => models.map((model) => [model, minimum] as const)),
);

/**
 * The minimum cacheable prompt length of a Claude model id, in tokens: its own, or 4,096 for a model the guide does
 * not list. Reads `claude-opus-4-6`, dated snapshots (`claude-opus-4-1-20250805`), Claude 3 ids
 * (`claude-3-5-haiku-20241022`), `[1m]` variants and cloud prefixes (`us.anthropic.claude-sonnet-4-5-…-v1:0`).
 * @example anthropicMinimumCacheableTokens('claude-sonnet-4-5-20250929') // 1024
 */
export function anthropicMinimumCacheableTokens(model: string): number {
  const key = claudeModelKey(model);
  return (key === null ? undefined : MINIMUM_BY_MODEL.get(key)) ?? ANTHROPIC_UNKNOWN_MODEL_MINIMUM;
}

/** `family-major[.minor]` of a Claude model id (`opus-4.6`, `haiku-3.5`, `mythos-preview`), or null. */
export function claudeModelKey(model: string): string | null {
  const id = model
    .toLowerCase()
    .replace(/\[[^\]]*\]$/, '')
    .replace(/-v\d+(:\d+)?$/, '')
    .replace(/-(\d{8}|latest)$/, '');
  if (/claude-mythos-preview/.test(id)) return 'mythos-preview';
  const modern = /claude-(opus|sonnet|haiku|fable|mythos)-(\d+)(?:[-.](\d{1,2}))?(?!\d)/.exec(id);
  if (modern) return versionKey(modern[1] as string, modern[2] as string, modern[3]);
  const legacy = /claude-(\d+)(?:[-.](\d{1,2}))?-(opus|sonnet|haiku)/.exec(id);
  if (legacy) return versionKey(legacy[3] as string, legacy[1] as string, legacy[2]);
  return null;
}

function versionKey(family: string, major: string, minor: string | undefined): string {
  // `claude-sonnet-4-0` is Claude Sonnet 4.
  return minor === undefined || minor === '0' ? `${family}-${major}` : `${family}-${major}.${minor}`;
}
