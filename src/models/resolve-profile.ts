import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import { agentEffectiveWindow } from './agent-windows.js';
import type { BarometerConfig, ModelConfig } from './barometer-config.js';
import { type FamilyEstimate, familyEstimate } from './family-estimate.js';
import { findModel, firstPartyProvider, type ModelLimits } from './find-model.js';
import { canonicalModelId, splitModelId } from './model-id.js';
import type { ModelPrice } from './model-price.js';
import {
  type AgentName,
  AgentNameSchema,
  type AgentReported,
  AgentReportedSchema,
  type ModelProfile,
  type ModelProfileOverrides,
  ModelProfileOverridesSchema,
  PROFILE_FIGURES,
  type ProfileSource,
  promptWindow,
} from './model-profile.js';

/** How to resolve a profile: which agent runs the model, what it reports, the config file, this session's figures. */
export interface ResolveProfileOptions {
  /** The agent running the model, whose effective window replaces the listed one. */
  agent?: AgentName;
  /** What the agent reports of the model (its stated window, a request's `max_tokens`); wins over the registry. */
  reported?: AgentReported;
  /** Figures for this session only; they win over the config file and the built-in data. */
  overrides?: ModelProfileOverrides;
  /** A loaded config file; its entries win over the built-in data and what the agent reports. */
  config?: BarometerConfig;
}

const OptionsSchema = z.object({
  agent: AgentNameSchema.optional(),
  reported: AgentReportedSchema.optional(),
  overrides: ModelProfileOverridesSchema.optional(),
});

/**
 * The key of the config entry for a model id: an entry under the same id first, then one under the bare id (an entry
 * without a provider applies to every provider; `openai/gpt-5` applies to a bare `gpt-5`), then one for the model
 * family (`claude-sonnet-4` applies to `claude-sonnet-4-20250514`). Ties go to the entry written first.
 */
export function configKeyFor(modelId: string, config: BarometerConfig): string | undefined {
  const query = splitModelId(modelId);
  const queryProvider = query.provider ?? firstPartyProvider(query.bare);
  let sameBare: string | undefined;
  let sameFamily: string | undefined;
  for (const key of Object.keys(config.models)) {
    const candidate = splitModelId(key);
    if (candidate.normalized === query.normalized) return key;
    if (candidate.provider !== undefined && candidate.provider !== queryProvider) continue;
    if (!sameBare && candidate.bare === query.bare) sameBare = key;
    if (!sameFamily && canonicalModelId(candidate.bare) === canonicalModelId(query.bare)) sameFamily = key;
  }
  return sameBare ?? sameFamily;
}

/** The config entry for a model id (the one `configKeyFor` names). */
export function configEntryFor(modelId: string, config: BarometerConfig): ModelConfig | undefined {
  const key = configKeyFor(modelId, config);
  return key === undefined ? undefined : config.models[key];
}

type MutableProfile = { -readonly [K in keyof ModelProfile]: ModelProfile[K] };

/** The figures whose source is tracked one by one. */
export type ProfileFigure = (typeof PROFILE_FIGURES)[number] | 'price' | 'reasoning';

/** A resolved profile with the source of each of its figures and what the registry, estimate and config said. */
export interface ProfileExplanation {
  /** The profile, or undefined when no layer knows anything about the model. */
  profile: ModelProfile | undefined;
  /** The layer each figure of the profile came from (a derived effective window: the figure it came from). */
  sources: Partial<Record<ProfileFigure, ProfileSource>>;
  /** The registry's listing, when it lists the model. */
  registry: ModelLimits | undefined;
  /** The family estimate, when the registry does not list the model and its family has a known model. */
  estimate: FamilyEstimate | undefined;
  /** The config entry's key, when the config file has one for the model. */
  configKey: string | undefined;
}

function layer(
  profile: MutableProfile,
  sources: ProfileExplanation['sources'],
  figures: ModelProfileOverrides,
  source: ProfileSource,
): boolean {
  let changed = false;
  for (const name of PROFILE_FIGURES) {
    const value = figures[name];
    if (value === undefined) continue;
    profile[name] = value;
    sources[name] = source;
    changed = true;
  }
  // A price is replaced whole, never merged: a config price without tiers must not inherit the built-in tiers.
  if (figures.price !== undefined) {
    profile.price = figures.price;
    profile.priceSource = source;
    sources.price = source;
    changed = true;
  }
  if (figures.reasoning !== undefined) {
    profile.reasoning = figures.reasoning;
    profile.reasoningSource = source;
    sources.reasoning = source;
    changed = true;
  }
  if (changed) profile.source = source;
  return changed;
}

/** What the agent reported, as figures: its stated window as the listed one, its max_tokens only as a floor. */
function reportedFigures(reported: AgentReported, profile: ModelProfile): ModelProfileOverrides {
  return {
    ...(reported.contextWindow === undefined ? {} : { contextLength: reported.contextWindow }),
    ...(reported.effectiveWindow === undefined ? {} : { effectiveWindow: reported.effectiveWindow }),
    ...(reported.maxOutput !== undefined && reported.maxOutput > (profile.maxOutput ?? 0)
      ? { maxOutput: reported.maxOutput }
      : {}),
  };
}

/** Sets the effective window from the listed ones when no layer set it, and the window's source. */
function deriveWindow(
  profile: MutableProfile,
  sources: ProfileExplanation['sources'],
  modelId: string,
  agent: AgentName | undefined,
): void {
  if (profile.effectiveWindow !== undefined) {
    profile.windowSource = sources.effectiveWindow;
    return;
  }
  const window = promptWindow(profile);
  if (window === undefined) return;
  const from = window === profile.contextLength ? sources.contextLength : sources.inputLength;
  // A window the agent stated is the one it runs with: its default cap is already applied (a stated 1M stays 1M).
  const effective = agent ? agentEffectiveWindow(agent, window, modelId, from === 'agent-reported') : window;
  if (effective <= 0) return;
  profile.effectiveWindow = effective;
  if (from) {
    sources.effectiveWindow = from;
    profile.windowSource = from;
  }
}

/**
 * A model's profile with the source of each figure: the registry's listing (or, for a model it does not list, the
 * family estimate), then what the agent reports, the config file's entry and the session's overrides, each layer
 * replacing the figures it sets (a price as a whole).
 * @throws BarometerValidationError when `agent`, `reported` or an override is invalid.
 */
export function explainProfile(modelId: string, options: ResolveProfileOptions = {}): ProfileExplanation {
  const checked = parseWith(OptionsSchema, {
    agent: options.agent,
    reported: options.reported,
    overrides: options.overrides,
  });
  if (!checked.ok) throw new BarometerValidationError(checked.issues, 'profile options');
  const { agent, reported, overrides } = checked.value;

  const profile: MutableProfile = { id: modelId };
  const sources: ProfileExplanation['sources'] = {};
  let known = false;
  const registry = findModel(modelId);
  const estimate = registry ? undefined : familyEstimate(modelId);
  if (registry) known = layer(profile, sources, registry, 'registry');
  else if (estimate) {
    known = layer(profile, sources, estimate.limits, 'family-estimate');
    profile.estimatedFrom = estimate.from;
    profile.family = estimate.family;
  }
  if (reported)
    known = layer(profile, sources, reportedFigures(reported, profile), 'agent-reported') || known;
  const configKey = options.config ? configKeyFor(modelId, options.config) : undefined;
  const configured = configKey === undefined ? undefined : options.config?.models[configKey];
  if (configured) known = layer(profile, sources, configured, 'config') || known;
  if (overrides) known = layer(profile, sources, overrides, 'session') || known;
  if (known) deriveWindow(profile, sources, modelId, agent);
  return {
    profile: known ? Object.freeze(profile) : undefined,
    sources,
    registry,
    estimate,
    configKey,
  };
}

/**
 * A model's profile: the registry's limits, price and reasoning flag (for a model it does not list, those of the
 * newest known model of its family: `family-estimate`, `estimatedFrom`), then what the agent reports, the config
 * file's entry and the session's overrides, each layer replacing the figures it sets (a price as a whole). `source`
 * names the last layer that set any figure; `priceSource`, `reasoningSource` and `windowSource` the layer each of
 * those came from.
 *
 * Unless a layer sets `effectiveWindow`, it is derived from the resolved limits: the model's prompt window (the
 * smaller of context and input), narrowed by the agent's rule when an agent is given (Claude Code 167,000; Codex
 * 95%). Context health measures against it.
 *
 * @returns the profile, or undefined when no layer knows anything about the model.
 * @throws BarometerValidationError when `agent`, `reported` or an override is invalid.
 * @example resolveProfile('gpt-5.3-codex', { agent: 'codex' })?.effectiveWindow // 258400
 * @example resolveProfile('claude-opus-5-5')?.estimatedFrom // 'claude-opus-4-8' (the registry of 2026-11-22)
 */
export function resolveProfile(
  modelId: string,
  options: ResolveProfileOptions = {},
): ModelProfile | undefined {
  return explainProfile(modelId, options).profile;
}

/** A model's price and the layer it came from. */
export interface SourcedPrice {
  readonly price: ModelPrice;
  readonly source: ProfileSource;
}

const pricesWithoutConfig = new Map<string, SourcedPrice | null>();
const pricesByConfig = new WeakMap<BarometerConfig, Map<string, SourcedPrice | null>>();

/**
 * The price of a model as `resolveProfile` finds it (the registry or a family estimate, the config file's entry on
 * top) with its source, or null when none is known; remembered per model (and config), because every priced call
 * asks it.
 * @example sourcedPriceOfModel('claude-opus-5-5')?.source // 'family-estimate'
 */
export function sourcedPriceOfModel(modelId: string, config?: BarometerConfig): SourcedPrice | null {
  let cache = pricesWithoutConfig;
  if (config) {
    cache = pricesByConfig.get(config) ?? new Map();
    pricesByConfig.set(config, cache);
  }
  let found = cache.get(modelId);
  if (found === undefined) {
    const profile = resolveProfile(modelId, config ? { config } : {});
    found =
      profile?.price && profile.priceSource
        ? Object.freeze({ price: profile.price, source: profile.priceSource })
        : null;
    cache.set(modelId, found);
  }
  return found;
}

/**
 * The price of a model as `resolveProfile` finds it (the registry or a family estimate, the config file's entry on
 * top), or null when none is known (`sourcedPriceOfModel` without the source).
 * @example priceOfModel('claude-haiku-4-5')?.input // 1
 */
export function priceOfModel(modelId: string, config?: BarometerConfig): ModelPrice | null {
  return sourcedPriceOfModel(modelId, config)?.price ?? null;
}
