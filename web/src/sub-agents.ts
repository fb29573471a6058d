import type { SubAgentsAnswer } from '../../src/contract/index.js';
import { sessionPath } from './router.js';
import { sessionHeading } from './session-heading.js';

/** One sub-agent on its parent's page. */
export interface SubAgentRow {
  id: string;
  href: string;
  heading: string;
  agentModel: string;
  /** 1 for the session's own sub-agents, 2 for theirs, … */
  depth: number;
  calls: number;
  tokens: number;
  costUsd: number | null;
}

/** The sub-agents in the order the API lists them (breadth first), each with its depth under the session. */
export function subAgentRows(answer: SubAgentsAnswer): SubAgentRow[] {
  const depth = new Map<string, number>([[answer.sessionId, 0]]);
  return answer.subAgents.map((summary) => {
    const level = (depth.get(summary.parentId ?? '') ?? 0) + 1;
    depth.set(summary.id, level);
    const heading = sessionHeading(summary);
    return {
      id: summary.id,
      href: sessionPath(summary.id),
      // Under its parent the project goes without saying: the sub-agent's own request names it.
      heading: heading.request ?? (heading.named ? heading.heading : summary.id),
      agentModel: heading.agentModel,
      depth: level,
      calls: summary.totals.calls,
      tokens: summary.totals.tokens,
      costUsd: summary.totals.costUsd,
    };
  });
}
