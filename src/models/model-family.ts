import { canonicalModelId, normalizeModelId } from './model-id.js';

/**
 * The family rule: which known models a model the registry does not know is estimated from (docs/rules.md, "Model
 * families"). Pure text rules over the id, no table of today's names: a new model of a known line
 * (`claude-opus-5-5`, `gpt-5.5-codex`) finds its line's newest known model however the registry has grown.
 */

/** A model id read by the family rule. */
export interface ModelFamily {
  /**
   * The family: the id with each version replaced by `*` (`claude-opus-*`, `gpt-*-codex`). Models of one family
   * differ only in their version numbers.
   */
  readonly pattern: string;
  /** The version numbers, run by run (`claude-opus-4-8` → [[4, 8]], `gpt-5.3-codex` → [[5, 3]]); [] for an alias. */
  readonly versions: readonly (readonly number[])[];
  /**
   * The wider families to try, in order, when no model of `pattern` is known: the qualifiers after the last version
   * dropped one at a time from the end (`gpt-*-codex-max` → `gpt-*-codex` → `gpt-*`).
   */
  readonly wider: readonly string[];
  /** The Claude Code alias the id is (`opus`, `sonnet[1m]`), when it is one. */
  readonly alias?: string;
}

// A cloud's deployment prefix before the maker's id: Bedrock's `anthropic.`, `us.anthropic.`, `global.openai.`.
const VENDOR_PREFIX = /^(?:[a-z][a-z-]*\.)+(?=[a-z])/;
// Bedrock's model version suffix: `-v1:0`, `-v1`.
const VENDOR_VERSION = /-v\d+(?::\d+)?$/;
// A version segment: `4`, `5.3`, `2.5.1`.
const VERSION_SEGMENT = /^\d+(?:\.\d+)*$/;

/**
 * Claude Code's model aliases that name one line of models, each resolving to that line's newest model
 * (https://code.claude.com/docs/en/model-config, "Model aliases"); `default`, `best` and `opusplan` depend on the
 * account or the mode, so they name no family.
 */
const CLAUDE_CODE_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  opus: 'claude-opus-*',
  sonnet: 'claude-sonnet-*',
  haiku: 'claude-haiku-*',
  fable: 'claude-fable-*',
});

/** The bare id the rule reads: normalized, its provider path, deployment prefix and version suffixes removed. */
export function familyBareId(id: string): string {
  const normalized = normalizeModelId(id);
  const bare = normalized.slice(normalized.lastIndexOf('/') + 1);
  return canonicalModelId(bare.replace(VENDOR_PREFIX, '').replace(VENDOR_VERSION, ''));
}

/**
 * The family of a model id, or undefined when it has none (no version number, as `o3` or `gpt-4o`, or nothing but
 * numbers).
 *
 * The id is lower-cased, its decorations (`[1m]`, `models/`), provider path (`openrouter/anthropic/`), deployment
 * prefix (`us.anthropic.`), Bedrock version (`-v1:0`) and snapshot suffix (`-20250514`, `-latest`, `@20250514`)
 * removed; then, split at `-`, each run of numeric segments (`4-8`, `5.3`) is a version and becomes `*`.
 *
 * @example modelFamily('claude-opus-5-5')?.pattern // 'claude-opus-*'
 * @example modelFamily('gpt-5.5-codex')?.pattern // 'gpt-*-codex'
 */
export function modelFamily(id: string): ModelFamily | undefined {
  const bare = familyBareId(id);
  const alias = CLAUDE_CODE_ALIASES[bare];
  if (alias) return { pattern: alias, versions: [], wider: [], alias: normalizeModelId(id) };
  const parts: string[] = [];
  const versions: number[][] = [];
  let inVersion = false;
  let lastVersionAt = -1;
  for (const segment of bare.split('-')) {
    if (VERSION_SEGMENT.test(segment)) {
      const numbers = segment.split('.').map(Number);
      if (inVersion) versions[versions.length - 1]!.push(...numbers);
      else {
        versions.push(numbers);
        parts.push('*');
        lastVersionAt = parts.length - 1;
      }
      inVersion = true;
    } else {
      parts.push(segment);
      inVersion = false;
    }
  }
  if (versions.length === 0 || parts.length === versions.length) return undefined;
  const wider: string[] = [];
  for (let end = parts.length - 1; end > lastVersionAt; end--) {
    const kept = parts.slice(0, end);
    // A family is never the version alone (`*`): it must keep a name.
    if (kept.some((part) => part !== '*')) wider.push(kept.join('-'));
  }
  return { pattern: parts.join('-'), versions, wider };
}

/**
 * Orders two models of one family by version, newest first: run by run, number by number from the left, a
 * missing number below any (`4` < `4-0` < `4-1` < `4-10` < `5`). Returns < 0 when `a` is newer.
 */
export function newestFirst(a: ModelFamily, b: ModelFamily): number {
  const runs = Math.max(a.versions.length, b.versions.length);
  for (let run = 0; run < runs; run++) {
    const left = a.versions[run] ?? [];
    const right = b.versions[run] ?? [];
    const length = Math.max(left.length, right.length);
    for (let index = 0; index < length; index++) {
      const difference = (right[index] ?? -1) - (left[index] ?? -1);
      if (difference !== 0) return difference;
    }
  }
  return 0;
}
