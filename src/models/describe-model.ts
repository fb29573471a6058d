import { AGENT_WINDOWS } from './agent-windows.js';
import type { BarometerConfig } from './barometer-config.js';
import { MODEL_DATA_INFO } from './find-model.js';
import { modelFamily } from './model-family.js';
import { hasLongContextSuffix } from './model-id.js';
import type { ModelPrice } from './model-price.js';
import type { AgentName, ProfileSource } from './model-profile.js';
import { tableCounts } from './model-table.js';
import { explainProfile } from './resolve-profile.js';

/** One figure of a model and the layer it came from; both null when nothing gives it. */
export interface SourcedFigure<T> {
  value: T | null;
  source: ProfileSource | null;
}

/** What barometer knows about one model id, and why (`barometer models <name>`). */
export interface ModelDescription {
  model: string;
  /**
   * How the model is known: `registry` (the built-in table lists it: `registryId`, `match`), `family-estimate` (it
   * does not; the figures of `estimatedFrom`), `config` (only the config file knows it), `unknown` (nothing does:
   * a session of it has no window, health unknown, and its calls are unpriced).
   */
  known: 'registry' | 'family-estimate' | 'config' | 'unknown';
  /** The registry listing the figures are from (`anthropic/claude-opus-4-6`), and how the id matched it. */
  registryId: string | null;
  match: 'exact' | 'alias' | 'consensus' | null;
  /** The family rule's reading of the id (`claude-opus-*`), whether or not a member of it is known. */
  family: string | null;
  /** For a family estimate: the known model the figures come from, and the rule that chose it in words. */
  estimatedFrom: string | null;
  familyRule: string | null;
  /** The config file's entry that applies, by its key. */
  configEntry: string | null;
  contextLength: SourcedFigure<number>;
  inputLength: SourcedFigure<number>;
  maxOutput: SourcedFigure<number>;
  /** The window sessions measure against: for `agent` when given (its rule in `agentRule`), else the model's own. */
  effectiveWindow: SourcedFigure<number>;
  agent: AgentName | null;
  agentRule: string | null;
  price: SourcedFigure<ModelPrice>;
  reasoning: SourcedFigure<boolean>;
}

/** The built-in registry in figures, and how to add a model to it (`barometer models` without a name). */
export interface ModelsSummary {
  /** Listings (provider × model), distinct models, model families, providers. */
  listings: number;
  models: number;
  families: number;
  providers: number;
  /** Where the table is from, its licence and the day it was generated. */
  source: string;
  licence: string;
  generated: string;
  /** Entries in the config file given, if any. */
  configEntries: number;
  /** A config entry as the file takes it, for a model the registry does not know. */
  configExample: string;
}

const AGENT_NAMES: Readonly<Record<AgentName, string>> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'gemini-cli': 'Gemini CLI',
  openhands: 'OpenHands',
  pi: 'pi',
};

/** 1234567 → "1,234,567", without `toLocaleString`'s ICU data. */
const grouped = (value: number) => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** An agent's window rule in words, as `agentEffectiveWindow` applies it to this id. */
export function agentRuleText(agent: AgentName, modelId: string, stated: boolean): string {
  const rule = AGENT_WINDOWS[agent];
  const parts: string[] = [];
  if (rule.defaultCap !== undefined) {
    parts.push(
      stated || hasLongContextSuffix(modelId)
        ? `no ${grouped(rule.defaultCap)} cap (${stated ? 'the window is the one it states' : 'the id opts in with [1m]'})`
        : `at most ${grouped(rule.defaultCap)}`,
    );
  }
  if (rule.reservedTokens > 0) parts.push(`less the ${grouped(rule.reservedTokens)} it keeps`);
  if (rule.fraction !== 1) parts.push(`${Math.round(rule.fraction * 100)}% of it`);
  return `${AGENT_NAMES[agent]}'s window: ${parts.length === 0 ? "the model's own" : parts.join(', ')}`;
}

const figure = <T>(value: T | undefined, source: ProfileSource | undefined): SourcedFigure<T> => ({
  value: value ?? null,
  source: value === undefined ? null : (source ?? null),
});

/**
 * What barometer knows about a model and why: each figure (window, effective window for an agent, max output,
 * price, reasoning) with the layer it comes from, the registry listing or the family estimate and its rule, and the
 * config entry that applies. Pure: the caller loads the config file.
 * @example describeModel('claude-opus-5-5').estimatedFrom // 'claude-opus-4-8' (the registry of 2026-11-22)
 */
export function describeModel(
  model: string,
  options: { agent?: AgentName; config?: BarometerConfig } = {},
): ModelDescription {
  const explained = explainProfile(model, {
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.config ? { config: options.config } : {}),
  });
  const { profile, sources, registry, estimate, configKey } = explained;
  const known = registry ? 'registry' : estimate ? 'family-estimate' : profile ? 'config' : 'unknown';
  return {
    model,
    known,
    registryId: registry?.id ?? null,
    match: registry?.match ?? null,
    family: estimate?.family ?? modelFamily(model)?.pattern ?? null,
    estimatedFrom: estimate?.from ?? null,
    familyRule: estimate?.rule ?? null,
    configEntry: configKey ?? null,
    contextLength: figure(profile?.contextLength, sources.contextLength),
    inputLength: figure(profile?.inputLength, sources.inputLength),
    maxOutput: figure(profile?.maxOutput, sources.maxOutput),
    effectiveWindow: figure(profile?.effectiveWindow, sources.effectiveWindow),
    agent: options.agent ?? null,
    agentRule:
      options.agent && profile?.effectiveWindow !== undefined
        ? agentRuleText(options.agent, model, sources.effectiveWindow === 'agent-reported')
        : null,
    price: figure(profile?.price, sources.price),
    reasoning: figure(profile?.reasoning, sources.reasoning),
  };
}

/**
 * The registry in a few figures (listings, models, families, providers), where it comes from, and a config entry
 * to copy for a model it does not know.
 */
export function modelsSummary(config?: BarometerConfig): ModelsSummary {
  const counts = tableCounts();
  return {
    ...counts,
    source: MODEL_DATA_INFO.source,
    licence: MODEL_DATA_INFO.licence,
    generated: MODEL_DATA_INFO.generated,
    configEntries: config ? Object.keys(config.models).length : 0,
    configExample:
      '{ "models": { "my-model-2": { "context_length": 200000, "max_output": 32000, "price": { "input": 3, "output": 15, "cache_read": 0.3 } } } }',
  };
}
