import * as z from 'zod';
import { type UsageWindow, UsageWindowSchema } from '../quota/windows/usage-window.js';
import type { UsageRecord } from './usage-record.js';
import { UsageRecordSchema } from './usage-record-schema.js';

/** The recorded agent sessions `readSessionLog` reads. */
export const LOG_FORMATS = ['claude-code', 'codex', 'gemini-cli', 'openhands', 'pi'] as const;

export type LogFormat = (typeof LOG_FORMATS)[number];

export const LogFormatSchema = z
  .enum(LOG_FORMATS, { error: `must be one of ${LOG_FORMATS.join(', ')}` })
  .meta({ id: 'LogFormat', description: 'The agent whose session log this is' });

/** One API call of a recorded session. */
export interface SessionCall {
  /** 0-based position in the session, in order of first appearance. */
  index: number;
  /** The provider's message/response id, where the log keeps one (Claude Code, Gemini CLI, OpenHands). */
  id?: string;
  /** ISO 8601 time the log first recorded the call. */
  timestamp: string;
  model?: string;
  usage: UsageRecord;
  /**
   * The usage of the call's first record, when the log wrote the call over several records whose tokens differ
   * (`usage` is the last one's): Claude Code's streamed lines, whose `output_tokens` grows from line to line. ccusage counts this one;
   * the report says how much that leaves out.
   */
  firstUsage?: UsageRecord;
  /**
   * A task of the agent's was completed by this call, as the log records it: a Codex `task_complete` event after
   * it, or a Claude Code TodoWrite in it that marks an item completed. The compaction triggers' semantic rule
   * reads it.
   */
  taskCompleted?: true;
  /**
   * The subscription windows the log records up to this call (since the call before it), the latest figure of each:
   * Codex's `rate_limits` (`primary`, `secondary`) on its `token_count` events. Absent when the log records none.
   */
  windows?: UsageWindow[];
}

/** A compaction the agent itself recorded. */
export interface RecordedCompaction {
  /** ISO 8601 time of the compaction record. */
  timestamp: string;
  /**
   * Why it ran: 'auto' or 'manual' as Claude Code logs it; 'auto' for a Codex compaction in the middle
   * of a turn (Codex does not log a trigger: see `readCodexLog`); 'condenser' for OpenHands; 'unknown'
   * when the log does not say.
   */
  trigger: string;
  /** Context tokens before: the log's own figure, else the prompt of the last call before it. */
  preTokens?: number;
  /** Context tokens after: the log's own figure, else the prompt of the first call after it. */
  postTokens?: number;
  /** Index of the first call after the compaction (= the number of calls before it). */
  beforeCallIndex: number;
}

/** A recorded agent session, reduced to what pressure needs: its calls and its compactions. */
export interface SessionLog {
  format: LogFormat;
  /**
   * The session's id where the log names one: Claude Code's `sessionId`, a sub-agent's `agentId`, pi's session id, an
   * OpenHands trajectory's `instance_id`.
   */
  id?: string;
  /** A sub-agent's session (a child): the id of the session that started it. */
  parentId?: string;
  /** The file a child was read from, when it is not its parent's (a `subagents/` file, by its name). */
  file?: string;
  /**
   * Sessions of their own that the log holds, each with its own calls and context: Claude Code sub-agents (inline
   * sidechains, and the `subagents/` files `attachSubagentLogs` adds), the trajectories of an OpenHands evaluation
   * output. Their calls are not in `calls`; they count in the parent's totals (`sessionLogTotals`). Absent: none.
   */
  children?: SessionLog[];
  /** The model of the last call that names one (the model the session ended on). */
  model?: string;
  /** The context window the log states (Codex `model_context_window`, OpenHands `context_window`). */
  contextWindow?: number;
  /**
   * The folder the agent worked in, where the log states it (Claude Code's `cwd` on each record, Codex's
   * `session_meta` and `turn_context` `cwd`): an MCP client started in that folder is answered for this session.
   */
  workingDirectory?: string;
  /** An excerpt of the user's first request (`requestExcerpt`), where the log holds one. */
  firstRequest?: string;
  /**
   * What started the session, where the log says (Codex's `session_meta` `source`: `cli`, `vscode`, `exec`, `mcp`,
   * or `subagent` for a sub-agent's session, `{ "subagent": … }`).
   */
  source?: string;
  calls: SessionCall[];
  compactions: RecordedCompaction[];
  /** 1-based numbers of lines that were not JSON and were skipped (a torn last line, stray output). */
  skippedLines: number[];
  /**
   * 1-based numbers of lines that began with a broken fragment (a crash left half a record, the next record was
   * appended to it): the fragment was dropped and the record after it read. Absent when there is none.
   */
  recoveredLines?: number[];
}

const count = z.number().int().min(0);

export const SessionLogSchema: z.ZodType<SessionLog> = z
  .strictObject({
    format: LogFormatSchema,
    id: z.string().optional(),
    parentId: z.string().optional(),
    file: z.string().optional(),
    get children() {
      return z.array(SessionLogSchema).optional();
    },
    model: z.string().optional(),
    contextWindow: count.optional(),
    workingDirectory: z.string().min(1).optional(),
    firstRequest: z.string().min(1).optional(),
    source: z.string().min(1).optional(),
    calls: z.array(
      z.strictObject({
        index: count,
        id: z.string().optional(),
        timestamp: z.iso.datetime({ offset: true }),
        model: z.string().optional(),
        usage: UsageRecordSchema,
        firstUsage: UsageRecordSchema.optional(),
        taskCompleted: z.literal(true).optional(),
        windows: z.array(UsageWindowSchema).optional(),
      }),
    ),
    compactions: z.array(
      z.strictObject({
        timestamp: z.iso.datetime({ offset: true }),
        trigger: z.string(),
        preTokens: count.optional(),
        postTokens: count.optional(),
        beforeCallIndex: count,
      }),
    ),
    skippedLines: z.array(z.number().int().min(1)),
    recoveredLines: z.array(z.number().int().min(1)).optional(),
  })
  .meta({ id: 'SessionLog', description: 'A recorded agent session: its API calls and compactions' });

/** Called as the reader advances: `done` of `total` lines (events, for OpenHands). */
export type ProgressCallback = (done: number, total: number) => void;

export const ReadSessionLogOptionsSchema = z.strictObject({
  /** Which agent wrote the log. @default 'auto' (detected from the first records) */
  format: z
    .enum([...LOG_FORMATS, 'auto'], { error: `must be one of ${[...LOG_FORMATS, 'auto'].join(', ')}` })
    .optional(),
  /** Progress callback, for long logs in interactive surfaces. */
  onProgress: z
    .custom<ProgressCallback>((value) => typeof value === 'function', { error: 'must be a function' })
    .optional(),
});

export type ReadSessionLogOptions = z.infer<typeof ReadSessionLogOptionsSchema>;
