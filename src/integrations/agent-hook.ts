import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import { ID_PATTERN } from '../ids/id-schema.js';
import type { AgentName } from '../models/model-profile.js';
import type { LineLogFormat } from '../usage/create-line-log-reader.js';
import type { SessionCall } from '../usage/session-log.js';
import type { LiveSessions } from './live-sessions.js';
import { type LogTail, readLogTail } from './log-tail.js';
import { DEFAULT_WINDOW_REMINDER_MINUTES, windowReminder } from './window-reminder.js';

/**
 * The fields every agent's hook payload shares, and the event-specific ones barometer reads. Claude Code
 * (https://code.claude.com/docs/en/hooks, "Common input fields"), Codex (`codex-rs/hooks/schema/generated/*.input.schema.json`)
 * and Gemini CLI (https://geminicli.com/docs/hooks/reference, "Base input schema") all send `session_id`,
 * `transcript_path` and `hook_event_name`; Codex adds `model` and `turn_id`, Gemini CLI `timestamp`. Other fields
 * (tool input and response, permission mode, …) are let through unread.
 */
export const HookInputSchema = z.looseObject({
  session_id: z.string().min(1),
  transcript_path: z.string().nullable().optional(),
  hook_event_name: z.string().min(1),
  cwd: z.string().optional(),
  model: z.string().optional(),
  trigger: z.string().optional(),
  source: z.string().optional(),
  prompt: z.string().optional(),
  turn_id: z.string().optional(),
  timestamp: z.string().optional(),
});
export type HookInput = z.infer<typeof HookInputSchema>;

/** What barometer does with an event. */
export type HookAction =
  /** Report the transcript's last call (after a tool, at the end of a turn, at the start of a session). */
  | 'report'
  /** Report, then answer the context-health reminder as additional context (a prompt was submitted). */
  | 'remind'
  /** Report, then record a compaction (the agent is about to compact). */
  | 'compaction'
  | 'ignore';

/**
 * Each agent's events, by what they mean here. Gemini CLI names its events differently (`BeforeAgent` is
 * `UserPromptSubmit`, `AfterTool` is `PostToolUse`, `PreCompress` is `PreCompact`, `AfterAgent` is `Stop`).
 */
/** The agents that run hooks (pi has none: its logs are followed by `barometer watch`). */
type HookAgent = Exclude<LineLogFormat, 'pi'>;

const EVENTS: Readonly<Record<AgentName & HookAgent, Readonly<Record<string, HookAction>>>> = {
  'claude-code': {
    SessionStart: 'report',
    UserPromptSubmit: 'remind',
    PostToolUse: 'report',
    Stop: 'report',
    PreCompact: 'compaction',
  },
  codex: {
    SessionStart: 'report',
    UserPromptSubmit: 'remind',
    PostToolUse: 'report',
    Stop: 'report',
    PreCompact: 'compaction',
  },
  'gemini-cli': {
    SessionStart: 'report',
    BeforeAgent: 'remind',
    AfterTool: 'report',
    AfterAgent: 'report',
    PreCompress: 'compaction',
  },
};

const GEMINI_ONLY_EVENTS = new Set([
  'BeforeAgent',
  'AfterAgent',
  'BeforeTool',
  'AfterTool',
  'PreCompress',
  'BeforeModel',
  'AfterModel',
  'BeforeToolSelection',
]);

/** Which agent sent a payload: Gemini CLI by its event names, Codex by the `turn_id` it always sends. */
export function hookAgent(input: HookInput): HookAgent {
  if (GEMINI_ONLY_EVENTS.has(input.hook_event_name)) return 'gemini-cli';
  if (input.turn_id !== undefined) return 'codex';
  return 'claude-code';
}

/** What barometer does with this payload's event. */
export function hookAction(input: HookInput): HookAction {
  return EVENTS[hookAgent(input)][input.hook_event_name] ?? 'ignore';
}

/** An agent's session id as a barometer id: kept when it is one (UUIDs are), else its unusable characters replaced. */
export function liveSessionId(raw: string): string {
  if (ID_PATTERN.test(raw) && !raw.includes('..')) return raw;
  const cleaned = raw
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[^A-Za-z0-9]+/, '');
  return (cleaned || 'session').slice(0, 128);
}

/** Parses a hook payload; a `BarometerValidationError` names the field that is wrong. */
export function parseHookInput(text: string): HookInput {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BarometerValidationError(
      [{ field: '', value: text.slice(0, 80), message: 'the hook input is not JSON' }],
      'hook input',
    );
  }
  const parsed = parseWith(HookInputSchema, value);
  if (parsed.ok) return parsed.value;
  throw new BarometerValidationError(parsed.issues, 'hook input');
}

/** What the hook prints: the agent's JSON output, or nothing. */
export interface HookResult {
  action: HookAction;
  agent: LineLogFormat;
  sessionId: string;
  /** True when a call was posted to the live session. */
  reported: boolean;
  compactionRecorded: boolean;
  /** The JSON to print on stdout, or undefined to print nothing. */
  output: Record<string, unknown> | undefined;
  /** Why nothing was done, for stderr. */
  note?: string;
}

export interface HookDependencies {
  sessions: LiveSessions;
  readTail?: (path: string, format: LineLogFormat) => LogTail | undefined;
  /** Serializes the hooks of one session (parallel tool calls fire parallel hooks); runs `work` alone. */
  exclusive?: <T>(sessionId: string, work: () => Promise<T>) => Promise<T>;
  home?: string;
  /** The clock, for the time of a compaction the payload does not date and the windows' reminder. @default Date.now */
  now?: () => number;
  /**
   * On a submitted prompt, remind the agent when a subscription window runs out within this many minutes at the
   * measured pace (or is spent); 0: never. @default 30 (`DEFAULT_WINDOW_REMINDER_MINUTES`)
   */
  windowReminderMinutes?: number;
  /**
   * The agent's process id: the hook command's parent (the agent runs its hooks as child processes). Kept on the
   * session the hook creates, so that an MCP server the same agent started finds it.
   */
  agentProcessId?: number;
}

function expandHome(path: string, home: string | undefined): string {
  return home !== undefined && path.startsWith('~/') ? `${home}${path.slice(1)}` : path;
}

/**
 * The additional context an agent reads from a hook's JSON output: `hookSpecificOutput.additionalContext` with the
 * event's name, as Claude Code and Codex (`UserPromptSubmit`) and Gemini CLI (`BeforeAgent`) document it.
 */
export function additionalContextOutput(eventName: string, text: string): Record<string, unknown> {
  return { hookSpecificOutput: { hookEventName: eventName, additionalContext: text } };
}

/**
 * Handles one hook event of Claude Code, Codex or Gemini CLI against the live session of the same id: reports the
 * transcript's last call when the session has not seen it (so that parallel hooks and `barometer watch` never count a
 * call twice), records a compaction before the agent compacts, and on a submitted prompt answers the session's
 * `context_health` reminder as additional context while one is active, and a subscription window's when one runs out
 * within `windowReminderMinutes` (`windowReminder`). The session is created on the first event
 * that names a model (the transcript's calls, or Codex's `model` field), with the agent's effective window.
 */
export async function handleHookEvent(input: HookInput, dependencies: HookDependencies): Promise<HookResult> {
  const agent = hookAgent(input);
  const action = hookAction(input);
  const sessionId = liveSessionId(input.session_id);
  const result: HookResult = {
    action,
    agent,
    sessionId,
    reported: false,
    compactionRecorded: false,
    output: undefined,
  };
  if (action === 'ignore') return { ...result, note: `${input.hook_event_name}: nothing to do` };
  const exclusive = dependencies.exclusive ?? (<T>(_id: string, work: () => Promise<T>) => work());
  return exclusive(sessionId, async () => {
    const path = input.transcript_path ? expandHome(input.transcript_path, dependencies.home) : undefined;
    const tail = path ? (dependencies.readTail ?? readLogTail)(path, agent) : undefined;
    const lastCall: SessionCall | undefined = tail?.lastCall;
    const model = lastCall?.model ?? input.model ?? tail?.log.model;
    const { sessions } = dependencies;
    let state = await sessions.state(sessionId);
    if (!state) {
      if (model === undefined) return { ...result, note: 'no model known yet (no call in the transcript)' };
      const contextWindow = tail?.log.contextWindow;
      await sessions.ensure({
        id: sessionId,
        model,
        agent,
        // The window the agent's log states (Codex's model_context_window): what the agent reports.
        ...(contextWindow === undefined ? {} : { agentReported: { effectiveWindow: contextWindow } }),
        // The agent's folder: an MCP server the agent starts there finds this session without its id.
        ...(input.cwd ? { workingDirectory: input.cwd } : {}),
        // The first request, when the part of the transcript read is its start.
        ...(tail?.wholeFile && tail.log.firstRequest ? { title: tail.log.firstRequest } : {}),
        ...(dependencies.agentProcessId === undefined ? {} : { agentProcessId: dependencies.agentProcessId }),
      });
      state = await sessions.state(sessionId);
    }
    let reminder = state?.reminder ?? null;
    let windows = state?.windows ?? [];
    const seenUntil = state?.updatedAt ? Date.parse(state.updatedAt) : Number.NEGATIVE_INFINITY;
    if (lastCall && Date.parse(lastCall.timestamp) > seenUntil) {
      const answer = await sessions.postCall(sessionId, {
        usage: lastCall.usage,
        timestamp: lastCall.timestamp,
        ...(lastCall.taskCompleted ? { taskCompleted: true } : {}),
        ...(lastCall.windows?.length ? { windows: lastCall.windows } : {}),
      });
      if (answer) {
        result.reported = true;
        reminder = answer.reminder;
        windows = answer.windows;
      }
    }
    if (action === 'compaction') {
      // The agent compacts now: Gemini CLI dates its payloads, Claude Code and Codex do not.
      const dated = input.timestamp !== undefined && !Number.isNaN(Date.parse(input.timestamp));
      await sessions.recordCompaction(sessionId, {
        trigger: input.trigger ?? 'unknown',
        timestamp: dated ? input.timestamp! : new Date((dependencies.now ?? Date.now)()).toISOString(),
      });
      result.compactionRecorded = true;
    }
    if (action === 'remind') {
      const windowText = windowReminder(
        windows,
        dependencies.windowReminderMinutes ?? DEFAULT_WINDOW_REMINDER_MINUTES,
        (dependencies.now ?? Date.now)(),
      );
      const text = [reminder, windowText].filter((part): part is string => part !== null).join('\n\n');
      if (text !== '') result.output = additionalContextOutput(input.hook_event_name, text);
    }
    return result;
  });
}
