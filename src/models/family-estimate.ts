import { findModel, firstPartyProvider, type ModelLimits } from './find-model.js';
import { familyBareId, type ModelFamily, modelFamily, newestFirst } from './model-family.js';
import { splitModelId } from './model-id.js';
import { familyMembers } from './model-table.js';

/** The known model a model the registry does not know is estimated from, and the rule that chose it. */
export interface FamilyEstimate {
  /** The id the figures come from, spelled as the estimated id is (`claude-opus-4-8`, `openrouter/…/gpt-5.3-codex`). */
  readonly from: string;
  /** The family both belong to (`claude-opus-*`): the estimated id's own, or a wider one (`gpt-*`). */
  readonly family: string;
  /** Whether the family is a wider one than the id's own (its qualifiers dropped: no model of its own is known). */
  readonly widened: boolean;
  /** The rule in words, for `barometer models` and the docs. */
  readonly rule: string;
  /** The known model's limits, price and reasoning flag, as `findModel` gives them. */
  readonly limits: ModelLimits;
}

interface Candidate {
  readonly id: string;
  readonly family: ModelFamily;
}

/**
 * The known members of a family as ids to look up, newest first: each family of the table (`claude-opus-4-8`) with
 * the estimated id's provider path in front (`openrouter/anthropic/claude-opus-4-8`).
 */
function candidates(pattern: string, prefix: string): Candidate[] {
  const found: Candidate[] = [];
  for (const member of familyMembers(pattern)) {
    const family = modelFamily(member);
    if (family?.pattern === pattern) found.push({ id: `${prefix}${member}`, family });
  }
  // Newest first; one version written two ways (`gpt-5.1`, `gpt-5-1`) goes to the id that sorts first, so the choice
  // does not hang on table order.
  return found.sort((a, b) => newestFirst(a.family, b.family) || (a.id < b.id ? -1 : 1));
}

/** Whether the provider itself lists the model: its window's listing, or its price's (a listing with a price only). */
function listedBy(limits: ModelLimits, provider: string): boolean {
  const priced = limits.priceId?.toLowerCase();
  return limits.provider?.toLowerCase() === provider || priced?.startsWith(`${provider}/`) === true;
}

/**
 * The figures for a model the registry does not know, from the newest known model of its family (docs/rules.md,
 * "Model families"): the family by `modelFamily`'s rule, tried as it is and then wider (its trailing qualifiers
 * dropped: `gpt-*-sol` → `gpt-*`), the newest known member by `newestFirst`. A member counts when the registry lists
 * it under the provider the estimated id names, else under the maker of a bare id (`claude-*`: Anthropic), so the
 * estimate's price is that provider's; an id with neither may take any listing's window (a consensus, no price).
 *
 * @returns the estimate, or undefined when the id has no family or no member of it is known.
 * @example familyEstimate('claude-opus-5-5')?.from // 'claude-opus-4-8' (with the registry of 2026-11-22)
 */
export function familyEstimate(id: string): FamilyEstimate | undefined {
  const family = modelFamily(id);
  if (!family) return undefined;
  const { provider, model, bare } = splitModelId(id);
  const seller = provider ?? firstPartyProvider(family.alias ? family.pattern : familyBareId(id));
  // The provider path the member's id is written with: the estimated id's own, less its bare model id.
  const prefix = provider === undefined ? '' : `${provider}/${model.slice(0, model.length - bare.length)}`;
  for (const [index, pattern] of [family.pattern, ...family.wider].entries()) {
    for (const candidate of candidates(pattern, prefix)) {
      const limits = findModel(candidate.id);
      if (!limits) continue;
      // Known to another provider only (a reseller's listing, a consensus of several) is not this provider's model.
      if (seller !== undefined && !listedBy(limits, seller)) continue;
      const widened = index > 0;
      const why = family.alias
        ? `${family.alias} is Claude Code's alias for the newest ${pattern} model`
        : `${bare} is of the family ${family.pattern}${widened ? `, of which no model is known, so of the wider family ${pattern}` : ''}`;
      return {
        from: candidate.id,
        family: pattern,
        widened,
        rule: `${why}; ${candidate.id} is the newest known ${pattern} model${seller ? ` listed by ${seller}` : ''}`,
        limits,
      };
    }
  }
  return undefined;
}
