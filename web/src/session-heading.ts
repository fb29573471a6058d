import type { SessionSummary } from '../../src/contract/index.js';

/** How a session is named on the list and its page: project and first request, with the agent and model. */
export interface SessionHeading {
  /** The line people read: `project · request`, either alone, or the id when neither is known. */
  heading: string;
  project: string | null;
  request: string | null;
  /** `agent · model` (the model alone without an agent). */
  agentModel: string;
  /** Whether the heading says more than the id (else the id is not repeated under it). */
  named: boolean;
}

export function sessionHeading(
  view: Pick<SessionSummary, 'id' | 'model' | 'agent' | 'project' | 'title'>,
): SessionHeading {
  const project = view.project ?? null;
  const request = view.title ?? null;
  const parts = [project, request].filter((part): part is string => part !== null && part !== '');
  return {
    heading: parts.length > 0 ? parts.join(' · ') : view.id,
    project,
    request,
    agentModel: view.agent ? `${view.agent} · ${view.model}` : view.model,
    named: parts.length > 0,
  };
}
