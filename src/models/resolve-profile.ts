import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import { agentEffectiveWindow } from './agent-windows.js';
import type { BarometerConfig, ModelConfig } from './barometer-config.js';
import { findModel, firstPartyProvider } from './find-model.js';
import { canonicalModelId, splitModelId } from './model-id.js';
import type { ModelPrice } from './model-price.js';
import {
  type AgentName,
  AgentNameSchema,
  type ModelProfile,
  type ModelProfileOverrides,
  ModelProfileOverridesSchema,
  PROFILE_FIGURES,
  promptWindow,
} from './model-profile.js';

/** How to resolve a profile: which agent runs the model, the config file, and this session's own figures. */
export interface ResolveProfileOptions {
  /** The agent running the model, whose effective window replaces the listed one. */
  agent?: AgentName;
  /** Figures for this session only; they win over the config file and the built-in data. */
  overrides?: ModelProfileOverrides;
  /** A loaded config file; its entries win over the built-in data. */
  config?: BarometerConfig;
}

const OptionsSchema = z.object({
  agent: AgentNameSchema.optional(),
  overrides: ModelProfileOverridesSchema.optional(),
});

/**
 * The config entry for a model id: an entry under the same id first, then one under the bare id (an entry without
 * a provider applies to every provider; `openai/gpt-5` applies to a bare `gpt-5`), then one for the model family
 * (`claude-sonnet-4` applies to `claude-sonnet-4-20250514`). Ties go to the entry written first.
 */
export function configEntryFor(modelId: string, config: BarometerConfig): ModelConfig | undefined {
  const query = splitModelId(modelId);
  const queryProvider = query.provider ?? firstPartyProvider(query.bare);
  let sameBare: ModelConfig | undefined;
  let sameFamily: ModelConfig | undefined;
  for (const [key, entry] of Object.entries(config.models)) {
    const candidate = splitModelId(key);
    if (candidate.normalized === query.normalized) return entry;
    if (candidate.provider !== undefined && candidate.provider !== queryProvider) continue;
    if (!sameBare && candidate.bare === query.bare) sameBare = entry;
    if (!sameFamily && canonicalModelId(candidate.bare) === canonicalModelId(query.bare)) sameFamily = entry;
  }
  return sameBare ?? sameFamily;
}

type MutableProfile = { -readonly [K in keyof ModelProfile]: ModelProfile[K] };

function layer(
  profile: MutableProfile,
  figures: ModelProfileOverrides,
  source: ModelProfile['source'],
): boolean {
  let changed = false;
  for (const name of PROFILE_FIGURES) {
    const value = figures[name];
    if (value === undefined) continue;
    profile[name] = value;
    changed = true;
  }
  // A price is replaced whole, never merged: a config price without tiers must not inherit the built-in tiers.
  if (figures.price !== undefined) {
    profile.price = figures.price;
    profile.priceSource = source;
    changed = true;
  }
  if (figures.reasoning !== undefined) {
    profile.reasoning = figures.reasoning;
    profile.reasoningSource = source;
    changed = true;
  }
  if (changed) profile.source = source;
  return changed;
}

/**
 * A model's profile: built-in limits, price and reasoning flag, then the config file's entry, then the session's
 * overrides, each layer replacing the figures it sets (a price as a whole). `source` names the last layer that set
 * any figure; `priceSource` and `reasoningSource` the layer each of those came from.
 *
 * Unless a layer sets `effectiveWindow`, it is derived from the resolved limits: the model's prompt window (the
 * smaller of context and input), narrowed by the agent's rule when an agent is given (Claude Code 167,000; Codex
 * 95%). Context health measures against it.
 *
 * @returns the profile, or undefined when no layer knows anything about the model.
 * @throws BarometerValidationError when `agent` or an override is invalid.
 * @example resolveProfile('gpt-5.3-codex', { agent: 'codex' })?.effectiveWindow // 258400
 */
export function resolveProfile(
  modelId: string,
  options: ResolveProfileOptions = {},
): ModelProfile | undefined {
  const checked = parseWith(OptionsSchema, { agent: options.agent, overrides: options.overrides });
  if (!checked.ok) throw new BarometerValidationError(checked.issues, 'profile options');
  const { agent, overrides } = checked.value;

  const profile: MutableProfile = { id: modelId, source: 'builtin' };
  let known = false;
  const builtin = findModel(modelId);
  if (builtin) {
    known = layer(profile, builtin, 'builtin');
  }
  const configured = options.config ? configEntryFor(modelId, options.config) : undefined;
  if (configured) known = layer(profile, configured, 'config') || known;
  if (overrides) known = layer(profile, overrides, 'session') || known;
  if (!known) return undefined;

  if (profile.effectiveWindow === undefined) {
    const window = promptWindow(profile);
    if (window !== undefined) {
      const effective = agent ? agentEffectiveWindow(agent, window, modelId) : window;
      if (effective > 0) profile.effectiveWindow = effective;
    }
  }
  return Object.freeze(profile);
}

const pricesWithoutConfig = new Map<string, ModelPrice | null>();
const pricesByConfig = new WeakMap<BarometerConfig, Map<string, ModelPrice | null>>();

/**
 * The price of a model as `resolveProfile` finds it (the registry, the config file's entry on top), or null when
 * none is known; remembered per model (and config), because every priced call asks it.
 * @example priceOfModel('claude-haiku-4-5')?.input // 1
 */
export function priceOfModel(modelId: string, config?: BarometerConfig): ModelPrice | null {
  let cache = pricesWithoutConfig;
  if (config) {
    cache = pricesByConfig.get(config) ?? new Map();
    pricesByConfig.set(config, cache);
  }
  let price = cache.get(modelId);
  if (price === undefined) {
    price = resolveProfile(modelId, config ? { config } : {})?.price ?? null;
    cache.set(modelId, price);
  }
  return price;
}
