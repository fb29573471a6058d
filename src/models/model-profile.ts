import * as z from 'zod';
import { ModelPriceSchema } from './model-price.js';

/** A count of tokens: a whole number, at least 1. */
const tokens = z.int().min(1);

/** Where a profile's figures came from, the last layer that set one winning: built-in data < config file < session. */
export const ProfileSourceSchema = z.enum(['builtin', 'config', 'session']);
export type ProfileSource = z.infer<typeof ProfileSourceSchema>;

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
 * `source` names the last layer that set any figure, price and reasoning included.
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
  source: ProfileSourceSchema,
});
export type ModelProfile = z.infer<typeof ModelProfileSchema>;

/** The figures a caller may set for one session; the id and the sources are not theirs to set. */
export const ModelProfileOverridesSchema = ModelProfileSchema.omit({
  id: true,
  source: true,
  priceSource: true,
  reasoningSource: true,
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
