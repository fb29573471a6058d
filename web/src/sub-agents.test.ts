import { describe, expect, it } from 'vitest';
import type { SessionSummary, SubAgentsAnswer } from '../../src/contract/index.js';
import { subAgentRows } from './sub-agents.js';
import { healthFixture, namingFixture, profileFixture, signalsFixture } from './test-fixtures.js';

function summary(id: string, parentId: string, title: string | null, costUsd: number | null): SessionSummary {
  return {
    id,
    model: 'claude-sonnet-4-5',
    agent: 'claude-code',
    createdAt: '2026-12-02T01:00:00.000Z',
    updatedAt: null,
    generations: 2,
    profile: profileFixture({ contextWindow: 1, optimalMaxTokens: 1, criticalMaxTokens: 1 }),
    signals: signalsFixture(),
    health: healthFixture('unknown'),
    regulator: null,
    verdict: null,
    verdictAt: null,
    workingDirectory: null,
    agentProcessId: null,
    parentId,
    proxy: null,
    ...namingFixture({ title, totals: { calls: 2, tokens: 900, costUsd, unpricedCalls: 0 } }),
  };
}

describe('subAgentRows', () => {
  it('links each sub-agent, named by its first request, at its depth under the session', () => {
    const totals = { calls: 1, tokens: 100, costUsd: 0.01, unpricedCalls: 0 };
    const answer: SubAgentsAnswer = {
      sessionId: 'p',
      subAgents: [
        summary('a', 'p', 'Examine the package.json files', 0.2),
        summary('b', 'p', null, null),
        summary('a1', 'a', 'Count the lines', 0.05),
      ],
      own: totals,
      withSubAgents: { ...totals, calls: 7 },
    };
    expect(
      subAgentRows(answer).map((row) => [row.id, row.href, row.heading, row.depth, row.costUsd]),
    ).toEqual([
      ['a', '/sessions/a', 'Examine the package.json files', 1, 0.2],
      ['b', '/sessions/b', 'b', 1, null],
      ['a1', '/sessions/a1', 'Count the lines', 2, 0.05],
    ]);
  });
});
