import type * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import { SessionOptionsSchema } from './session-options.js';
import type { SessionState } from './session-state-schema.js';

/**
 * What a surface learned about a session after creating it (the proxy reads it from a request, `watch` from a log):
 * the folder the agent works in, the project and the first request's excerpt. Each field is set once: the first
 * surface to see it names the session, later ones never rename it (no PATCH).
 */
export const SessionContextSchema = SessionOptionsSchema.pick({
  workingDirectory: true,
  project: true,
  title: true,
}).meta({ id: 'SessionContext' });
export type SessionContext = z.infer<typeof SessionContextSchema>;

const FIELDS = ['workingDirectory', 'project', 'title'] as const;

/** The fields of `context` the state does not have yet; empty when it has them all. */
export function missingContext(state: SessionState, context: SessionContext): SessionContext {
  const missing: SessionContext = {};
  for (const field of FIELDS) {
    const value = context[field];
    if (value !== undefined && state.options[field] === undefined) missing[field] = value;
  }
  return missing;
}

/**
 * The state with the context's fields it lacked, or the same state when it had them all. Pure.
 * @throws BarometerValidationError for a field out of its bounds (the session options' rules)
 */
export function describeSession(state: SessionState, context: SessionContext): SessionState {
  const parsed = parseWith(SessionContextSchema, context);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'session context');
  const missing = missingContext(state, parsed.value);
  if (Object.keys(missing).length === 0) return state;
  return { ...state, options: { ...state.options, ...missing } };
}
