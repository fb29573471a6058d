import { describe, expect, it } from 'vitest';
import { AGENT_WINDOWS, agentEffectiveWindow } from './agent-windows.js';

describe('agentEffectiveWindow', () => {
  it('caps Claude Code at 200,000 and keeps 33,000 back', () => {
    expect(agentEffectiveWindow('claude-code', 1_000_000, 'claude-opus-4-6')).toBe(167_000);
    expect(agentEffectiveWindow('claude-code', 200_000, 'claude-sonnet-4-5')).toBe(167_000);
    expect(agentEffectiveWindow('claude-code', 128_000, 'some-proxy-model')).toBe(95_000);
  });

  it("lifts Claude Code's cap for a [1m] model id", () => {
    expect(agentEffectiveWindow('claude-code', 1_000_000, 'claude-sonnet-4-6[1m]')).toBe(967_000);
  });

  it('gives Codex 95% of the window, floored', () => {
    expect(agentEffectiveWindow('codex', 272_000, 'gpt-5.3-codex')).toBe(258_400);
    expect(agentEffectiveWindow('codex', 100_001, 'x')).toBe(95_000);
  });

  it('leaves Gemini CLI and OpenHands at the listed window', () => {
    expect(agentEffectiveWindow('gemini-cli', 1_048_576, 'gemini-2.5-pro')).toBe(1_048_576);
    expect(agentEffectiveWindow('openhands', 128_000, 'gpt-4o')).toBe(128_000);
  });

  it('never goes below zero on a window smaller than the reserve', () => {
    expect(agentEffectiveWindow('claude-code', 8192, 'claude-tiny')).toBe(0);
  });

  it('has a rule for every agent, frozen', () => {
    expect(Object.keys(AGENT_WINDOWS).sort()).toEqual([
      'claude-code',
      'codex',
      'gemini-cli',
      'openhands',
      'pi',
    ]);
    expect(Object.isFrozen(AGENT_WINDOWS)).toBe(true);
  });
});
