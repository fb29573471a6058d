import { hasLongContextSuffix } from './model-id.js';
import type { AgentName } from './model-profile.js';

/**
 * How an agent narrows a model's prompt window:
 * `effective = floor((min(window, cap) − reservedTokens) × fraction)`, where `window` is the model's listed prompt
 * window and the cap is lifted when the model id opts in to a longer window (Claude Code's `[1m]` suffix).
 */
export interface AgentWindowRule {
  /** The largest window the agent uses by default, whatever the model lists. */
  readonly defaultCap?: number;
  /** Tokens the agent keeps out of the window for its own use. */
  readonly reservedTokens: number;
  /** The share of what is left that the agent reports as its window. */
  readonly fraction: number;
}

/** The built-in agent rules, each with the evidence for it. */
export const AGENT_WINDOWS: Readonly<Record<AgentName, AgentWindowRule>> = Object.freeze({
  // Claude Code works in a 200K window unless the model id carries `[1m]`, keeps 20,000 tokens for the summary a
  // compaction writes and a further 13,000 as its auto-compact buffer: 200,000 − 33,000 = 167,000. The recorded
  // claude-opus-4-6 session (listed at 1M) compacted at 170,251 prompt tokens, just past that line.
  'claude-code': Object.freeze({ defaultCap: 200_000, reservedTokens: 33_000, fraction: 1 }),
  // Codex reports `model_context_window` as 95% of the model's window: 258,400 for gpt-5.3-codex, whose input
  // window is listed at 272,000 (recorded rollout, token_count events).
  codex: Object.freeze({ reservedTokens: 0, fraction: 0.95 }),
  // Gemini CLI measures against the model's full token limit (1,048,576 for gemini-2.5-pro). It compresses history
  // at a configurable share of that limit (`model.compressionThreshold`), which is its trigger, not its window.
  'gemini-cli': Object.freeze({ reservedTokens: 0, fraction: 1 }),
  // OpenHands sizes prompts by the model's max input tokens from LiteLLM's table; its condensers trigger on event
  // counts, so the window itself is the model's.
  openhands: Object.freeze({ reservedTokens: 0, fraction: 1 }),
  // pi compacts once the context exceeds the window less `compaction.reserveTokens` (16,384 by default):
  // `shouldCompact` in pi-mono's packages/coding-agent/src/core/compaction/compaction.ts.
  pi: Object.freeze({ reservedTokens: 16_384, fraction: 1 }),
});

/**
 * The window an agent really works within, given the model's listed prompt window.
 *
 * @param agent the agent running the model.
 * @param window the model's listed prompt window (the smaller of context and input), in tokens.
 * @param modelId the id the agent uses, checked for an opt-in to a longer window (`claude-opus-4-6[1m]`).
 * @example agentEffectiveWindow('codex', 272_000, 'gpt-5.3-codex') // 258400
 * @param stated true when the agent itself stated `window` as the one it runs with (Claude Code's status line
 * `context_window_size`): its default cap is already applied, so a 1,000,000 it states is not capped again.
 * @example agentEffectiveWindow('claude-code', 1_000_000, 'claude-opus-4-6') // 167000
 * @example agentEffectiveWindow('claude-code', 1_000_000, 'claude-opus-4-6', true) // 967000
 */
export function agentEffectiveWindow(
  agent: AgentName,
  window: number,
  modelId: string,
  stated = false,
): number {
  const rule = AGENT_WINDOWS[agent];
  const capped =
    rule.defaultCap !== undefined && !stated && !hasLongContextSuffix(modelId)
      ? Math.min(window, rule.defaultCap)
      : window;
  return Math.max(0, Math.floor((capped - rule.reservedTokens) * rule.fraction));
}
