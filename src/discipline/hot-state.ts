import * as z from 'zod';
import { BarometerValidationError, parseWith, type Result } from '../errors/validation.js';

/** What an artifact reference points at. */
export const ARTIFACT_TYPES = ['repo', 'doc', 'code', 'log', 'data', 'plan', 'result'] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

export const RISK_LEVELS = ['low', 'medium', 'high'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/**
 * The risk level a hot state gets when none is declared: an undeclared risk is neither claimed safe (low)
 * nor raised as an alarm (high).
 */
export const DEFAULT_RISK_LEVEL: RiskLevel = 'medium';

/** A reference to content kept outside the prompt (in the artifact registry), never the content itself. */
export const ArtifactIndexEntrySchema = z
  .strictObject({
    artifact_id: z.string().min(1),
    type: z.enum(ARTIFACT_TYPES),
    label: z.string().optional(),
    version: z.string().optional(),
    summary: z.string().optional(),
  })
  .meta({ id: 'ArtifactIndexEntry', description: 'A reference to an artifact stored by content hash' });
export type ArtifactIndexEntry = z.infer<typeof ArtifactIndexEntrySchema>;

/**
 * The hot state: the small, structured JSON object an agent carries on every turn instead of free prose.
 * Strict: an unknown key is an error, so nothing drifts in unbudgeted.
 */
export const HotStateSchema = z
  .strictObject({
    session_id: z.string().min(1),
    session_key: z.string().min(1).optional(),
    run_id: z.string().min(1).optional(),
    objective: z.string().min(1).optional(),
    current_plan_id: z.string().min(1).nullable().optional(),
    accepted_decisions: z.array(z.string()).optional(),
    open_questions: z.array(z.string()).optional(),
    constraints: z.array(z.string()).optional(),
    last_successful_step: z.string().min(1).optional(),
    risk_level: z.enum(RISK_LEVELS).optional(),
    artifact_index: z.array(ArtifactIndexEntrySchema).optional(),
  })
  .meta({ id: 'HotState', description: 'Strict JSON hot state carried on every turn (context discipline)' });
export type HotState = z.infer<typeof HotStateSchema>;

/** The array fields that hold the agent's running lists; the budgeter may move them to artifacts. */
export const HOT_STATE_LIST_FIELDS = ['accepted_decisions', 'open_questions', 'constraints'] as const;
export type HotStateListField = (typeof HOT_STATE_LIST_FIELDS)[number];

/** Validates a hot state, returning the issues (field, value, allowed values) instead of throwing. */
export function parseHotState(input: unknown): Result<HotState> {
  return parseWith(HotStateSchema, input);
}

/**
 * Builds a validated hot state from a partial one; `risk_level` defaults to {@link DEFAULT_RISK_LEVEL}.
 * The input is copied, never mutated.
 *
 * @throws BarometerValidationError naming each invalid or unknown field
 * @example
 * buildHotState({ session_id: 's1', objective: 'Fix the failing test' });
 * // { session_id: 's1', objective: 'Fix the failing test', risk_level: 'medium' }
 */
export function buildHotState(partial: HotState): HotState {
  const input =
    typeof partial === 'object' && partial !== null
      ? { risk_level: DEFAULT_RISK_LEVEL, ...partial }
      : partial;
  const parsed = parseHotState(input);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'hot state');
  return parsed.value;
}

/** The hot state as the prompt carries it: compact JSON, keys in schema order. */
export function formatHotStateJson(state: HotState): string {
  return JSON.stringify(state);
}

/** The smallest valid hot state: the session's ids and its risk level, nothing else. */
export function minimalHotState(state: HotState): HotState {
  const minimal: HotState = { session_id: state.session_id };
  if (state.session_key !== undefined) minimal.session_key = state.session_key;
  if (state.run_id !== undefined) minimal.run_id = state.run_id;
  minimal.risk_level = state.risk_level ?? DEFAULT_RISK_LEVEL;
  return minimal;
}
