import * as z from 'zod';
import { SessionSummarySchema } from './session-schemas.js';
import type { SessionState } from './session-state-schema.js';
import { sessionSummary } from './session-timeline.js';
import { addTotals, SessionTotalsSchema, totalsOf } from './session-totals.js';

/** The most sub-agents a session lists; later ones still name their parent (`parentId`). */
export const MAX_SUB_AGENTS = 1000;
/** How deep the sub-agents of sub-agents are followed. */
export const MAX_SUB_AGENT_DEPTH = 8;

/**
 * `GET /api/v1/sessions/:id/sub-agents` (and `SessionMonitor.subAgents`): a session's sub-agents, theirs after them
 * (each names its parent), and the totals with and without them.
 */
export const SubAgentsAnswerSchema = z
  .strictObject({
    sessionId: z.string(),
    subAgents: z.array(SessionSummarySchema),
    /** The session's own calls, tokens and cost. */
    own: SessionTotalsSchema,
    /** The session's and every listed sub-agent's, added up. */
    withSubAgents: SessionTotalsSchema,
  })
  .meta({ id: 'SubAgentsAnswer' });
export type SubAgentsAnswer = z.infer<typeof SubAgentsAnswerSchema>;

/** The state with `childId` among its sub-agents (the same state when it is there already, or the list is full). */
export function withSubAgent(state: SessionState, childId: string): SessionState {
  const current = state.subAgents ?? [];
  if (childId === state.id || current.includes(childId) || current.length >= MAX_SUB_AGENTS) return state;
  return { ...state, subAgents: [...current, childId] };
}

/**
 * A session's sub-agents, breadth first (a loop of parents is followed once), read with `get`; a sub-agent that no
 * longer exists (deleted, expired) is left out.
 */
export async function collectSubAgents(
  root: SessionState,
  get: (id: string) => Promise<SessionState | undefined>,
): Promise<SubAgentsAnswer> {
  const seen = new Set([root.id]);
  const found: SessionState[] = [];
  let level = [root];
  for (let depth = 0; depth < MAX_SUB_AGENT_DEPTH && level.length > 0; depth++) {
    const ids = level.flatMap((state) => state.subAgents ?? []).filter((id) => !seen.has(id));
    for (const id of ids) seen.add(id);
    const states = (await Promise.all(ids.map(get))).filter(
      (state): state is SessionState => state !== undefined,
    );
    found.push(...states);
    if (found.length >= MAX_SUB_AGENTS) break;
    level = states;
  }
  const listed = found.slice(0, MAX_SUB_AGENTS);
  const own = totalsOf(root);
  return {
    sessionId: root.id,
    subAgents: listed.map(sessionSummary),
    own,
    withSubAgents: addTotals([own, ...listed.map(totalsOf)]),
  };
}
