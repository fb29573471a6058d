import * as z from 'zod';
import { ModelPriceSchema } from './model-price.js';

/** A count of tokens: a whole number, at least 1. */
const tokens = z.int().min(1);

/**
 * Where a profile's figures came from, the last layer that set one winning, in this order:
 * - `registry`: the built-in table (models.dev) lists the model;
 * - `family-estimate`: the registry does not list it; the newest known model of its family does (`estimatedFrom`);
 * - `agent-reported`: the agent said so (Claude Code's status line `context_window_size`, Codex's
 *   `model_context_window`, a request's `max_tokens` as a floor of the model's output);
 * - `config`: the user's `barometer.config.json` / `.yaml` entry;
 * - `session`: the figures the session was created with (`contextWindow`, `optimalMaxTokens`, …).
 */
export const ProfileSourceSchema = z.enum([
  'registry',
  'family-estimate',
  'agent-reported',
  'config',
  'session',
]);
export type ProfileSource = z.infer<typeof ProfileSourceSchema>;

/** A source as a stored state may hold it: states written before family estimates say `builtin` for `registry`. */
export const StoredProfileSourceSchema = z.enum([...ProfileSourceSchema.options, 'builtin']);
export type StoredProfileSource = z.infer<typeof StoredProfileSourceSchema>;

/** A stored source as the API shows it (`builtin` → `registry`). */
export function profileSource(source: StoredProfileSource): ProfileSource;
export function profileSource(source: StoredProfileSource | undefined): ProfileSource | undefined;
export function profileSource(source: StoredProfileSource | undefined): ProfileSource | undefined {
  return source === 'builtin' ? 'registry' : source;
}

/** The agents whose working window differs from the model's listed window in a known way. */
export const AgentNameSchema = z.enum(['claude-code', 'codex', 'gemini-cli', 'openhands', 'pi']);
export type AgentName = z.infer<typeof AgentNameSchema>;

/**
 * Everything barometer needs to know about a model to judge pressure on it. All counts are tokens.
 * - `contextLength`, `inputLength`, `maxOutput`: the model's listed maxima.
 * - `effectiveWindow`: the prompt size the session can really reach before the agent (or the model) stops it;
 *   smaller than the listed window for agents that compact early. Context health measures against it.
 * - `optimalMaxTokens`, `criticalMaxTokens`: context-health thresholds (seed 003); unset means the defaults
 *   (100,000 and 90% of the window).
 * - `tpmLimit`: the tokens-per-minute quota of the account, where known.
 * - `price`: USD per million tokens at the provider used (models.dev, or the config file / session, which replace it
 *   whole); absent when unknown, and then every cost is null, never a guess. `priceSource` says which layer set it.
 * - `reasoning`: whether the model reasons; `reasoningSource` says which layer said so.
 * - `windowSource`: the layer the window measured against comes from (the effective window's, else that of the
 *   listed window it is derived from); absent when no window is known.
 * - `estimatedFrom`, `family`: for a model the registry does not list, the known model its family estimate took
 *   figures from (`claude-opus-4-8`) and the family (`claude-opus-*`).
 * `source` names the last layer that set any figure, price and reasoning included; absent when none knows the model.
 */
export const ModelProfileSchema = z.strictObject({
  id: z.string().min(1),
  contextLength: tokens.optional(),
  inputLength: tokens.optional(),
  maxOutput: tokens.optional(),
  optimalMaxTokens: tokens.optional(),
  criticalMaxTokens: tokens.optional(),
  tpmLimit: tokens.optional(),
  effectiveWindow: tokens.optional(),
  price: ModelPriceSchema.optional(),
  priceSource: ProfileSourceSchema.optional(),
  reasoning: z.boolean().optional(),
  reasoningSource: ProfileSourceSchema.optional(),
  windowSource: ProfileSourceSchema.optional(),
  estimatedFrom: z.string().min(1).optional(),
  family: z.string().min(1).optional(),
  source: ProfileSourceSchema.optional(),
});
export type ModelProfile = z.infer<typeof ModelProfileSchema>;

/** A profile as a session's state keeps it: the sources of states written before family estimates included. */
export const StoredModelProfileSchema = ModelProfileSchema.extend({
  priceSource: StoredProfileSourceSchema.optional(),
  reasoningSource: StoredProfileSourceSchema.optional(),
  windowSource: StoredProfileSourceSchema.optional(),
  source: StoredProfileSourceSchema.optional(),
});
export type StoredModelProfile = z.infer<typeof StoredModelProfileSchema>;

/** A stored profile with today's source names (`builtin` → `registry`); the same object when it has no old name. */
export function currentProfile(stored: StoredModelProfile): ModelProfile {
  const { source, priceSource, reasoningSource, windowSource } = stored;
  if (
    source !== 'builtin' &&
    priceSource !== 'builtin' &&
    reasoningSource !== 'builtin' &&
    windowSource !== 'builtin'
  )
    return stored as ModelProfile;
  return {
    ...(stored as ModelProfile),
    ...(source === undefined ? {} : { source: profileSource(source) }),
    ...(priceSource === undefined ? {} : { priceSource: profileSource(priceSource) }),
    ...(reasoningSource === undefined ? {} : { reasoningSource: profileSource(reasoningSource) }),
    ...(windowSource === undefined ? {} : { windowSource: profileSource(windowSource) }),
  };
}

/** The figures a caller may set for one session; the id, the sources and the estimate are not theirs to set. */
export const ModelProfileOverridesSchema = ModelProfileSchema.omit({
  id: true,
  source: true,
  priceSource: true,
  reasoningSource: true,
  windowSource: true,
  estimatedFrom: true,
  family: true,
}).partial();
export type ModelProfileOverrides = z.infer<typeof ModelProfileOverridesSchema>;

/** The profile fields that carry figures, in the order they are layered. */
export const PROFILE_FIGURES = [
  'contextLength',
  'inputLength',
  'maxOutput',
  'optimalMaxTokens',
  'criticalMaxTokens',
  'tpmLimit',
  'effectiveWindow',
] as const satisfies ReadonlyArray<keyof ModelProfileOverrides>;

/**
 * The largest prompt the model accepts: the smaller of its listed context and input windows, or undefined when
 * neither is known. (OpenAI lists GPT-5 at 400,000 context but 272,000 input: a prompt cannot pass 272,000.)
 */
export function promptWindow(
  limits: Pick<ModelProfile, 'contextLength' | 'inputLength'>,
): number | undefined {
  const { contextLength, inputLength } = limits;
  if (contextLength === undefined) return inputLength;
  if (inputLength === undefined) return contextLength;
  return Math.min(contextLength, inputLength);
}

/**
 * What an agent itself reports of the model it runs, each figure winning over the registry and a family estimate
 * (source `agent-reported`) and losing to the config file and the session's own figures:
 * - `contextWindow`: the window the agent states it runs the model with (Claude Code's status line
 *   `context_window.context_window_size`: 200,000, or 1,000,000 with extended context); the agent's own window
 *   rule then narrows it as a stated window (no 200K cap on a stated 1M);
 * - `effectiveWindow`: the window the agent itself measures against (Codex's `model_context_window`, already 95% of
 *   the model's);
 * - `maxOutput`: the largest output a request asked for (`max_tokens`): the model takes at least that many, so it
 *   is a floor of the model's max output, used only when it is larger than what the other layers say.
 */
export const AgentReportedSchema = z.strictObject({
  contextWindow: tokens.optional(),
  effectiveWindow: tokens.optional(),
  maxOutput: tokens.optional(),
});
export type AgentReported = z.infer<typeof AgentReportedSchema>;
