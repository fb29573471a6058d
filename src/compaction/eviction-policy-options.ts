import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import { DEFAULT_MIN_GAIN_PERCENT } from './compact-history.js';
import { DEFAULT_KEEP_TOKENS } from './flush.js';
import { BOUNDARY_KINDS, type BoundaryKind } from './sub-task-boundary.js';

/**
 * Commands that record finished work: a commit, an issue closed in the tracker (`bd close` of beads, `gh issue
 * close`). The recorded Claude Code session closes each sub-task with `bd close` and ends its work with
 * `git commit`; neither appears in the middle of a piece of work.
 */
export const DEFAULT_COMMAND_PATTERNS = [
  // git's global options may stand between `git` and its command (`git -C <dir> commit`, `git -c k=v commit`,
  // `git --no-pager commit`): https://git-scm.com/docs/git#_options
  String.raw`\bgit(?:\s+(?:-[Cc]\s+(?:"[^"]*"|'[^']*'|\S+)|--[\w-]+(?:=\S+)?|-[pP]))*\s+commit\b`,
  String.raw`\b(?:bd|beads)\s+close\b`,
  String.raw`\bgh\s+issue\s+close\b`,
];
/**
 * A tool result up to this many tokens stays: twice what its tombstone takes (`TOMBSTONE_TOKENS_ESTIMATE`, the
 * proxy's text with an absolute archive path: about 100), so an evicted item frees at least as much as the tombstone
 * that replaces it costs, whatever the data folder's path adds.
 */
export const DEFAULT_MIN_RESULT_TOKENS = 200;
/**
 * A tool call's arguments up to this many tokens stay: short arguments (a path, a command) say what was done and
 * cost little; long ones are Write/Edit payloads and patches (16% of the recorded prompts). The same floor as a
 * result's: the tombstone that replaces them is the same text.
 */
export const DEFAULT_MIN_ARGUMENT_TOKENS = 200;
/**
 * A batch that frees fewer tokens than this waits for the next boundary: each eviction changes the prompt's
 * prefix, and the provider then writes the cache again from the first changed item on (Anthropic: 1.25× the
 * input price instead of 0.1× for a read), so a small gain does not pay for the rewrite.
 */
export const DEFAULT_MIN_FREED_TOKENS = 4_000;
/**
 * Above this share of the agent's window, after evicting, the policy falls back to a recap (compactHistory):
 * 80% leaves a fifth of the window for the growth before the next call (the largest one-call growth in the
 * recorded sessions was under 25,000 tokens, 15% of Claude Code's 167,000), so the agent never reaches its own
 * compaction point.
 */
export const DEFAULT_RECAP_ABOVE_PERCENT = 80;

/** Lever (a) of docs/decisions/035: measured on every recorded session before it became a default. */
export const DEFAULT_EVICT_SUPERSEDED = false;
/** Lever (d) of docs/decisions/035. */
export const DEFAULT_EVICT_WHEN_COLD = true;
/**
 * On: a request that finds the cache cold by the pause alone (the conversation's last answer older than the cache
 * surely lives) carries the batch decided on its own history; the proxy reads such a request before it goes upstream
 * (a pause of minutes leaves nothing waiting on the parse), the what-if the same call (docs/rules.md, "Eviction
 * policy"). A switch of model is seen once the request is read, after its answer: its batch goes in the next one.
 */
export const DEFAULT_EVICT_ON_COLD_ARRIVAL = true;
/**
 * Lever (c) of docs/decisions/035 (0: off). Off by default since the proxy does not apply it: the what-if predicts
 * the proxy (decision 097); a policy file can turn it on for the what-if, which then names its effect as its own.
 */
export const DEFAULT_TRIM_RESULTS_ABOVE_TOKENS = 0;

export const EvictionPolicyOptionsSchema = z.strictObject({
  /** Which boundaries end a sub-task. @default every kind */
  boundaries: z.array(z.enum(BOUNDARY_KINDS)).optional(),
  /** Regular expressions of commands that record finished work. @default git commit, bd close, gh issue close */
  commandPatterns: z
    .array(
      z.string().refine((source) => {
        try {
          new RegExp(source);
          return true;
        } catch {
          return false;
        }
      }, 'must be a valid regular expression'),
    )
    .optional(),
  /** Tool results of at most this many tokens stay. @default DEFAULT_MIN_RESULT_TOKENS (200) */
  minResultTokens: z.number().int().min(0).optional(),
  /** Tool-call arguments of at most this many tokens stay. @default DEFAULT_MIN_ARGUMENT_TOKENS (200) */
  minArgumentTokens: z.number().int().min(0).optional(),
  /** A batch freeing fewer tokens waits for the next boundary. @default DEFAULT_MIN_FREED_TOKENS (4,000) */
  minFreedTokens: z.number().int().min(0).optional(),
  /**
   * Keep the latest text (a read's result, a write's input) of the files the open sub-task already names: they are
   * in use. @default true
   */
  keepFilesInUse: z.boolean().optional(),
  /**
   * Superseded results: a tool result whose call is repeated later (same tool, same arguments), a read of a file
   * read again in whole or edited or written since, is stale and goes with the next batch, wherever it is (the
   * latest text of a file the open sub-task names stays, with `keepFilesInUse`). @default see docs/decisions/035
   */
  evictSuperseded: z.boolean().optional(),
  /**
   * Evict when the cache is cold anyway: when the caller says the provider's cache has expired (a pause longer than
   * its lifetime, a model switch), a pending batch goes whatever it frees, stale results with it. @default see
   * docs/decisions/035
   */
  evictWhenCold: z.boolean().optional(),
  /**
   * A request that finds the provider's cache cold (a pause longer than its lifetime, another model) carries the batch
   * decided on its own history: the caller decides before sending it, so the rewrite falls on a request that writes
   * the whole prompt anyway (with `evictWhenCold`, a batch decided at a cold request and sent with the next one lands
   * on a cache that request warmed). @default see DEFAULT_EVICT_ON_COLD_ARRIVAL
   */
  evictOnColdArrival: z.boolean().optional(),
  /**
   * Trim at arrival: a tool result above this many tokens enters the history as a notice with its head and tail
   * and the archive address of the whole (0: never). @default see docs/decisions/035
   */
  trimResultsAboveTokens: z.number().int().min(0).optional(),
  /** @default 80 */
  recapAbovePercent: z.number().min(1).max(100).optional(),
  /** The recap fallback keeps this many tokens verbatim. @default 20,000 */
  keepTokens: z.number().int().min(0).optional(),
  /** The recap fallback is refused below this gain. @default 5 */
  minGainPercent: z.number().min(0).max(100).optional(),
});
export type EvictionPolicyOptions = z.input<typeof EvictionPolicyOptionsSchema>;

/** The options with every default filled in. */
export interface ResolvedEvictionPolicyOptions {
  boundaries: BoundaryKind[];
  commandPatterns: string[];
  minResultTokens: number;
  minArgumentTokens: number;
  minFreedTokens: number;
  keepFilesInUse: boolean;
  evictSuperseded: boolean;
  evictWhenCold: boolean;
  evictOnColdArrival: boolean;
  trimResultsAboveTokens: number;
  recapAbovePercent: number;
  keepTokens: number;
  minGainPercent: number;
}

/**
 * The options checked strictly (unknown keys and values out of range named) and every default filled in; the
 * caller's object is copied, never kept.
 * @throws BarometerValidationError
 */
export function resolveEvictionPolicyOptions(
  options: EvictionPolicyOptions = {},
): ResolvedEvictionPolicyOptions {
  const parsed = parseWith(EvictionPolicyOptionsSchema, options);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'eviction policy options');
  const value = parsed.value;
  return Object.freeze({
    boundaries: value.boundaries ?? [...BOUNDARY_KINDS],
    commandPatterns: value.commandPatterns ?? [...DEFAULT_COMMAND_PATTERNS],
    minResultTokens: value.minResultTokens ?? DEFAULT_MIN_RESULT_TOKENS,
    minArgumentTokens: value.minArgumentTokens ?? DEFAULT_MIN_ARGUMENT_TOKENS,
    minFreedTokens: value.minFreedTokens ?? DEFAULT_MIN_FREED_TOKENS,
    keepFilesInUse: value.keepFilesInUse ?? true,
    evictSuperseded: value.evictSuperseded ?? DEFAULT_EVICT_SUPERSEDED,
    evictWhenCold: value.evictWhenCold ?? DEFAULT_EVICT_WHEN_COLD,
    evictOnColdArrival: value.evictOnColdArrival ?? DEFAULT_EVICT_ON_COLD_ARRIVAL,
    trimResultsAboveTokens: value.trimResultsAboveTokens ?? DEFAULT_TRIM_RESULTS_ABOVE_TOKENS,
    recapAbovePercent: value.recapAbovePercent ?? DEFAULT_RECAP_ABOVE_PERCENT,
    keepTokens: value.keepTokens ?? DEFAULT_KEEP_TOKENS,
    minGainPercent: value.minGainPercent ?? DEFAULT_MIN_GAIN_PERCENT,
  });
}
