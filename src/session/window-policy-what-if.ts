import type { BarometerConfig } from '../models/barometer-config.js';
import {
  measureWindowLevers,
  type WindowLeverCall,
  type WindowLeverConversation,
  type WindowLeverMeasure,
} from '../quota/windows/measure-window-levers.js';
import type { WindowLever } from '../quota/windows/window-lever-names.js';
import type { WindowWaitNow } from '../quota/windows/window-levers.js';
import type { SessionLog } from '../usage/session-log.js';
import { replayIntoState, sessionOptionsForLog } from './replay.js';
import { createSessionState } from './session-state.js';

export interface WindowPolicyWhatIfOptions {
  levers: readonly WindowLever[];
  /** The proxy's longest hold, in seconds (`maxWaitSeconds`, 60 by default). */
  maxHoldSeconds: number;
  config?: BarometerConfig;
}

/** `replay --what-if --window-policy`: the levers measured on a log, and whether it holds sub-agents at all. */
export interface WindowPolicyWhatIf extends WindowLeverMeasure {
  /** Calls that carry a subscription window figure (Codex's `rate_limits`): none, and no lever can act. */
  callsWithWindows: number;
}

/** A sub-agent's session: a child of another log, or a Codex rollout whose `session_meta` says `subagent`. */
function isSubAgent(log: SessionLog, child: boolean): boolean {
  return child || log.parentId !== undefined || log.source === 'subagent';
}

/**
 * One conversation's calls as the window policy would have met their requests: each with the window wait of the
 * verdict before it (the answer before the request, as the proxy holds and lowers by), replayed in recorded time.
 */
function conversationOf(log: SessionLog, child: boolean, config: BarometerConfig | undefined) {
  const initial = createSessionState(sessionOptionsForLog(log, {}), {
    now: () => Date.parse(log.calls[0]?.timestamp ?? '1970-01-01T00:00:00Z'),
    ...(config ? { config } : {}),
  });
  const calls: WindowLeverCall[] = [];
  let before: WindowWaitNow | null = null;
  let withWindows = 0;
  let position = 0;
  replayIntoState(
    initial,
    log,
    (update) => {
      // One update per call, in the log's order.
      const call = log.calls[position++];
      if (call === undefined) return;
      if (call.windows?.length) withWindows++;
      calls.push({
        at: Date.parse(call.timestamp),
        windowWait: before,
        reasoningTokens: call.usage.available ? call.usage.reasoningTokens : null,
      });
      const wait = update.verdict.windowWait;
      before = wait ? { seconds: wait.seconds, until: Date.parse(wait.until) } : null;
    },
    undefined,
    { follow: true, ...(config ? { config } : {}) },
  );
  const conversation: WindowLeverConversation = {
    id: log.id ?? log.file ?? 'log',
    subAgent: isSubAgent(log, child),
    calls,
  };
  return { conversation, withWindows };
}

/**
 * The window policy's levers on a recorded log and its sub-agents (pure: the log in, the figures out): the same
 * decision the proxy makes at each request (`decideWindowLevers`), fed the verdict the replayed session gave after
 * the call before. Only a sub-agent's calls are acted on; `ifEveryConversationWereASubAgent` says what the levers
 * would touch had the log's conversations been sub-agents'.
 */
export function windowPolicyWhatIf(log: SessionLog, options: WindowPolicyWhatIfOptions): WindowPolicyWhatIf {
  const conversations: WindowLeverConversation[] = [];
  let callsWithWindows = 0;
  const visit = (one: SessionLog, child: boolean) => {
    const { conversation, withWindows } = conversationOf(one, child, options.config);
    conversations.push(conversation);
    callsWithWindows += withWindows;
    for (const grandchild of one.children ?? []) visit(grandchild, true);
  };
  visit(log, false);
  return {
    ...measureWindowLevers(conversations, options.levers, options.maxHoldSeconds),
    callsWithWindows,
  };
}
