import { describe, expect, it } from 'vitest';
import { sessionHeading } from './session-heading.js';

const base = { id: 'f772b242-d1c7', model: 'claude-opus-5-5', agent: 'claude-code' as const };

describe('sessionHeading', () => {
  it('names a session by its project and first request, with the agent and model beside', () => {
    expect(sessionHeading({ ...base, project: 'my-project/app', title: 'Fix the login test' })).toEqual({
      heading: 'my-project/app · Fix the login test',
      project: 'my-project/app',
      request: 'Fix the login test',
      agentModel: 'claude-code · claude-opus-5-5',
      named: true,
    });
  });

  it('uses whichever part is known, and the id when neither is', () => {
    expect(sessionHeading({ ...base, project: 'shop/api', title: null }).heading).toBe('shop/api');
    expect(sessionHeading({ ...base, project: null, title: 'Add a test' }).heading).toBe('Add a test');
    const bare = sessionHeading({ ...base, agent: null, project: null, title: null });
    expect(bare).toMatchObject({ heading: 'f772b242-d1c7', named: false, agentModel: 'claude-opus-5-5' });
  });
});
