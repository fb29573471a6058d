import * as z from 'zod';
import {
  CompactHistoryInputSchema,
  CompactHistoryOutputSchema,
  ContextStatusInputSchema,
  ContextStatusOutputSchema,
  CreateSessionInputSchema,
  CreateSessionOutputSchema,
  EndSubtaskInputSchema,
  EndSubtaskOutputSchema,
  EvaluatePressureInputSchema,
  EvaluatePressureOutputSchema,
  EvictTaskInputSchema,
  EvictTaskOutputSchema,
  ReadArchiveInputSchema,
  ReadArchiveOutputSchema,
  ReportUsageInputSchema,
  ReportUsageOutputSchema,
} from '../contract/mcp-tools.js';
import type { ErrorCode } from '../errors/error-catalogue.js';
import {
  BarometerValidationError,
  echoValue,
  parseWith,
  type Result,
  type ValidationIssue,
} from '../errors/validation.js';
import { evaluateResolved } from '../pressure/evaluate.js';
import { parsePressureInput } from '../pressure/parse.js';
import type { CompactRequest, SessionMonitor } from '../session/session-monitor.js';
import type { SessionSummary, SessionView } from '../session/session-schemas.js';
import { parseUsageInput } from '../session/usage-input.js';
import type { ArchiveStore } from '../store/archive.js';
import { ArchiveParamsSchema, apiAddresses, findArchiveAddress } from '../store/archive-address.js';
import {
  renderArchiveRecords,
  renderCompaction,
  renderPressure,
  renderSessionList,
  renderSessionStatus,
  renderUsageAnswer,
} from './render-text.js';

/** What every tool runs against: the one monitor of the process, its archive, the clock. */
export interface ToolContext {
  monitor: SessionMonitor;
  /** The archive that compactions write to and `read_archive` reads. */
  archive: ArchiveStore;
  now: () => number;
  /**
   * How answers name archives: `path` (`<archive root>/<session>/<task>.log#<item>`, for a local client that may
   * open the file) or `api` (`/api/v1/archives/<session>/<task>?item=<id>`, as the HTTP service does, never a
   * path on the server).
   */
  archiveAddresses: 'path' | 'api';
  /**
   * The working directory of the agent the server serves, when the server can tell (a stdio server is started by
   * the agent, in its folder): a tool that names no session answers for the latest session of that folder.
   */
  clientWorkingDirectory?: string;
  /**
   * The process id of the agent the server serves, when the server can tell (a stdio server is the agent's child:
   * its parent process): a tool that names no session answers first for the latest session that agent's hooks
   * created (they record the same process as `agentProcessId`).
   */
  clientProcessId?: number;
}

/** A tool's refusal, as data: a sentence, a stable code, and the issues naming each field. */
export interface ToolError {
  error: string;
  code: ErrorCode;
  issues?: ValidationIssue[];
  [extra: string]: unknown;
}

/** What a tool answers: structured content (its output schema's shape) and its text, or an error. */
export type ToolOutcome<Value = Record<string, unknown>> =
  | { ok: true; value: Value; text: string }
  | { ok: false; error: ToolError };

/** One MCP tool: its name and documentation, the schema it advertises, how it parses, what it runs. */
export interface BarometerTool {
  name: string;
  title: string;
  description: string;
  /** Advertised as the tool's JSON Schema; the same zod schema as the matching HTTP route. */
  input: z.ZodType;
  /**
   * Advertised as the tool's outputSchema: what its structured content holds, the contract schema of the matching
   * HTTP answer (src/contract/mcp-tools.ts).
   */
  output: z.ZodType;
  annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: false;
  };
  parse: (raw: unknown) => Result<unknown>;
  run: (args: unknown, context: ToolContext) => Promise<ToolOutcome>;
}

/** What `evaluate_pressure` needs from the caller: without them the answer would describe the defaults. */
const REQUIRED_PRESSURE_FIGURES = [
  'memoryUsedPercent',
  'tokenBurnRatePerMin',
  'contextDriftPercent',
] as const;

/** Sessions listed by `context_status` without an id: the most recently updated. */
export const MAX_LISTED_SESSIONS = 20;
/** Markers shown with a session's status: the latest. */
export const MAX_STATUS_MARKERS = 10;

/** A tool whose `run` answers what its output schema says (checked by the compiler). */
function defineTool<T, Output extends z.ZodType>(tool: {
  name: string;
  title: string;
  description: string;
  input: z.ZodType;
  output: Output;
  annotations: BarometerTool['annotations'];
  parse?: (raw: unknown) => Result<T>;
  run: (args: T, context: ToolContext) => Promise<ToolOutcome<z.output<Output>>>;
}): BarometerTool {
  const parse = tool.parse ?? ((raw: unknown) => parseWith(tool.input as z.ZodType<T>, raw));
  return {
    ...tool,
    parse,
    run: async (args, context) => (await tool.run(args as T, context)) as ToolOutcome,
  };
}

/** The tool error of bad arguments: the HTTP 400 body, each issue naming its field and echoing a bounded value. */
export function invalidArguments(issues: ValidationIssue[]): ToolError {
  const named = issues.map((issue) => ({
    ...issue,
    field: issue.field || '(arguments)',
    value: echoValue(issue.value),
  }));
  const fields = [...new Set(named.map((issue) => issue.field))].join(', ');
  return { error: `Invalid arguments: ${fields}`, code: 'BR_ERR_INVALID_PARAM', issues: named };
}

function summaryOf(view: SessionView): SessionSummary {
  const { timeline: _timeline, markers: _markers, receiptCalls: _receiptCalls, ...summary } = view;
  return summary;
}

const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;
const WRITES = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
} as const;

/** Issues of a nested value, named from the tool's arguments (`usage.promptTokens`). */
function nested(prefix: string, issues: ValidationIssue[]): ValidationIssue[] {
  return issues.map((issue) => ({
    ...issue,
    field: issue.field ? `${prefix}${issue.field.startsWith('[') ? '' : '.'}${issue.field}` : prefix,
  }));
}

/** Runs a compaction through the monitor, turning a refusal and a malformed history into tool errors. */
async function compaction(
  request: CompactRequest,
  context: ToolContext,
): Promise<ToolOutcome<z.output<typeof CompactHistoryOutputSchema>>> {
  let result: Awaited<ReturnType<SessionMonitor['compact']>>;
  try {
    result = await context.monitor.compact(request);
  } catch (error) {
    if (error instanceof BarometerValidationError && error.code === 'BR_ERR_INVALID_PARAM') {
      // A history given as an array is checked as one: its issues start at the index (`[3].role`).
      const issues = error.issues.map((issue) =>
        issue.field.startsWith('[') ? { ...issue, field: `messages${issue.field}` } : issue,
      );
      return { ok: false, error: invalidArguments(issues) };
    }
    throw error;
  }
  if (!result.ok) {
    return {
      ok: false,
      error: {
        error: `Compaction refused: ${result.reason}`,
        code: result.code,
        before: result.before,
        after: result.after,
      },
    };
  }
  const { ok: _ok, ...answer } = result;
  const named = context.archiveAddresses === 'api' ? apiAddresses(answer, context.archive.root) : answer;
  return { ok: true, value: named, text: renderCompaction(named) };
}

/** What a `read_archive` call names: an address to find in a text, or the archive's ids. */
type ArchiveTarget = { location: string } | { sessionId: string; taskId: string; itemId?: string };

/**
 * barometer's capabilities as MCP tools, each a translation to one library call (the monitor, the regulator, the
 * archive): they decide nothing themselves.
 */
export function barometerTools(): BarometerTool[] {
  return [
    evaluatePressureTool(),
    createSessionTool(),
    contextStatusTool(),
    reportUsageTool(),
    compactHistoryTool(),
    evictTaskTool(),
    endSubtaskTool(),
    readArchiveTool(),
  ];
}

/** `evaluate_pressure`: the regulator on three figures the caller gives; nothing stored. */
function evaluatePressureTool(): BarometerTool {
  return defineTool({
    name: 'evaluate_pressure',
    title: 'Evaluate context pressure (the context-pressure regulator)',
    description:
      'Tells you how pressed you are from three figures you give: how full your context is (percent), how fast you burn tokens (0-200, 100 = your rate limit) and how far you drifted from the task (percent). Answers a level (LOW, MODERATE, HIGH, CRITICAL), a viability score, the thresholds crossed and what to do: continue, optimize (be briefer), compress (shrink your context) or terminate. Nothing is stored; for a running session use context_status.',
    input: EvaluatePressureInputSchema,
    output: EvaluatePressureOutputSchema,
    annotations: READ_ONLY,
    parse: (raw) => {
      // The three figures are required here (the shared parser would fill them with defaults); the shared parser
      // names every other issue with its allowed range.
      const given = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
      const missing: ValidationIssue[] = REQUIRED_PRESSURE_FIGURES.filter(
        (field) => given[field] === undefined,
      ).map((field) => ({
        field,
        value: undefined,
        message: 'is required: the regulator judges your own figure, not a default',
      }));
      const parsed = parsePressureInput(raw ?? {}, 'body');
      if (!parsed.ok) return { ok: false, issues: [...parsed.issues, ...missing] };
      return missing.length > 0 ? { ok: false, issues: missing } : parsed;
    },
    run: async (input: Parameters<typeof evaluateResolved>[0], context) => {
      const report = evaluateResolved(input, { now: context.now() });
      return { ok: true, value: { ...report }, text: renderPressure(report) };
    },
  });
}

/** `create_session`: a monitored session created. */
function createSessionTool(): BarometerTool {
  return defineTool({
    name: 'create_session',
    title: 'Create a monitored session',
    description:
      'Starts watching your session: give the model you run on (required), and what you know of your limits (window, token budget, rate limits) and your working directory. Answers the session with its id; report each model call with report_usage and read your advice with context_status. report_usage never creates a session by itself.',
    input: CreateSessionInputSchema,
    output: CreateSessionOutputSchema,
    annotations: WRITES,
    run: async (options: z.output<typeof CreateSessionInputSchema>, context) => {
      const view = await context.monitor.create(options);
      const summary = summaryOf(view);
      return { ok: true, value: { session: summary }, text: `created ${renderSessionStatus(summary, [])}` };
    },
  });
}

/** `context_status`: a session's verdict, or the recent sessions when none is known. */
function contextStatusTool(): BarometerTool {
  return defineTool({
    name: 'context_status',
    title: 'Read a session’s verdict',
    description:
      'What to do now in your session: continue, optimize (be briefer), wait (a rate limit refills: waitSeconds says how long), compress (shrink your context: compact_history or evict_task) or terminate (the budget is spent), with the reason of every check (context health, pressure, rate limits, budget), your context health and reminder, and your figures. Without sessionId it answers for the session of the agent you run in (found by your working directory) and says how it chose; when it cannot tell, it lists the recent sessions.',
    input: ContextStatusInputSchema,
    output: ContextStatusOutputSchema,
    annotations: READ_ONLY,
    run: async ({ sessionId: given }: z.output<typeof ContextStatusInputSchema>, context) => {
      const own = given === undefined ? await ownSession(context) : undefined;
      const sessionId = given ?? own?.id;
      if (sessionId === undefined) {
        const all = await context.monitor.list();
        const sessions = all.slice(0, MAX_LISTED_SESSIONS).map((summary) => ({
          id: summary.id,
          model: summary.model,
          agent: summary.agent,
          updatedAt: summary.updatedAt,
          generations: summary.generations,
          health: summary.health.level,
          action: summary.verdict?.action ?? null,
        }));
        return {
          ok: true,
          value: { sessions, total: all.length },
          text: renderSessionList(sessions, all.length),
        };
      }
      const view = await context.monitor.view(sessionId);
      const summary = summaryOf(view);
      const markers = view.markers.slice(-MAX_STATUS_MARKERS);
      return {
        ok: true,
        value: { session: summary, markers, ...(own ? { chosen: own.chosen } : {}) },
        text: `${own ? `${own.chosen}\n` : ''}${renderSessionStatus(summary, markers)}`,
      };
    },
  });
}

/** `report_usage`: one generation's usage posted to a session, answered with its verdict. */
function reportUsageTool(): BarometerTool {
  return defineTool({
    name: 'report_usage',
    title: 'Report one generation’s usage',
    description:
      'Tells your session what your last model call used, and answers what to do next (the same advice as context_status). usage is either { promptTokens, completionTokens?, cachedReadTokens?, cachedWriteTokens?, reasoningTokens?, timestamp?, driftPercent?, taskCompleted?, headers? } as counted, or { format, response } with the provider response (format: openai-chat, openai-responses, anthropic, gemini, ai-sdk, ollama, llama-cpp). Without sessionId it reports to the session of the agent you run in (found by your working directory). The session must exist (create_session).',
    input: ReportUsageInputSchema,
    output: ReportUsageOutputSchema,
    annotations: WRITES,
    parse: (raw) => {
      // The session id first, then the usage by its own parser, which picks the shape (measured or raw) from
      // `format` so that its issues name the fields of the shape the caller meant.
      const outer = parseWith(ReportUsageInputSchema.extend({ usage: z.unknown() }), raw);
      if (!outer.ok) return outer;
      if (outer.value.usage === undefined) {
        return {
          ok: false,
          issues: [
            {
              field: 'usage',
              value: undefined,
              message: 'is required: { promptTokens, ... } or { format, response }',
            },
          ],
        };
      }
      const usage = parseUsageInput(outer.value.usage);
      if (!usage.ok) return { ok: false, issues: nested('usage', usage.issues) };
      return { ok: true, value: { sessionId: outer.value.sessionId, update: usage.value } };
    },
    run: async (
      {
        sessionId: given,
        update,
      }: { sessionId: string | undefined; update: Parameters<SessionMonitor['postUsage']>[1] },
      context,
    ) => {
      const sessionId = given ?? (await ownSession(context))?.id;
      if (sessionId === undefined) {
        return {
          ok: false,
          error: invalidArguments([
            {
              field: 'sessionId',
              value: undefined,
              message: `is required: no session of this working directory (${context.clientWorkingDirectory ?? 'unknown'}) is known; create one with create_session`,
            },
          ]),
        };
      }
      const answer = await context.monitor.postUsage(sessionId, update);
      return { ok: true, value: { ...answer }, text: renderUsageAnswer(answer) };
    },
  });
}

/** `compact_history`: a chat history recapped and flushed, archived first. */
function compactHistoryTool(): BarometerTool {
  return defineTool({
    name: 'compact_history',
    title: 'Compact a chat history (recap and flush)',
    description:
      'Shrinks your conversation when you are told to compress: keeps your system messages and your last keepTurns turns (cut to keepTokens), and replaces the rest by a recap (tasks, decisions, open questions, files touched, the last request). Every replaced message is archived first, so nothing is lost (read it back with read_archive). Answers the new messages to continue with. With sessionId, your session starts its advice again from the smaller context. Refused when it would save less than minGainPercent.',
    input: CompactHistoryInputSchema,
    output: CompactHistoryOutputSchema,
    annotations: WRITES,
    run: async (
      {
        messages,
        sessionId,
        keepTurns,
        keepTokens,
        minGainPercent,
      }: z.output<typeof CompactHistoryInputSchema>,
      context,
    ) =>
      compaction(
        {
          history: messages,
          ...(sessionId === undefined ? {} : { sessionId }),
          ...(keepTurns === undefined ? {} : { keepTurns }),
          ...(keepTokens === undefined ? {} : { keepTokens }),
          ...(minGainPercent === undefined ? {} : { minGainPercent }),
        },
        context,
      ),
  });
}

/** `evict_task`: completed tasks' tool outputs archived and replaced by tombstones. */
function evictTaskTool(): BarometerTool {
  return defineTool({
    name: 'evict_task',
    title: 'Evict completed tasks’ tool outputs',
    description:
      'Frees your context of finished work: the tool outputs of the tasks you list as done (tagged with task_id on the tool message, or on the assistant message or its tool call) are archived, then replaced by a short tombstone "[Task <id> completed: output evicted to archive] <where>"; the summary you give for each task stays. Tool calls keep their results. Answers the new messages to continue with; read_archive brings an evicted output back.',
    input: EvictTaskInputSchema,
    output: EvictTaskOutputSchema,
    annotations: WRITES,
    run: async ({ messages, tasks, sessionId }: z.output<typeof EvictTaskInputSchema>, context) =>
      compaction(
        { history: { messages, tasks }, ...(sessionId === undefined ? {} : { sessionId }) },
        context,
      ),
  });
}

/**
 * `end_subtask`: the agent says its sub-task is done. The call itself is the boundary: barometer's proxy sees it in
 * the next request (its answer follows the call there) and evicts the sub-task's tool output from the request after
 * (the batch is decided while that request goes upstream), archived first: the tri-modal strategy's task-completion
 * eviction, for agents whose own tools barometer cannot watch. The tool answers which session it was and whether a
 * proxy acts on it; it changes nothing itself.
 */
function endSubtaskTool(): BarometerTool {
  return defineTool({
    name: 'end_subtask',
    title: 'End the current sub-task',
    description:
      "Call when you have finished a sub-task (a fix, a feature, an investigation) and will not need its tool outputs verbatim again. When your requests go through barometer's proxy, it archives the outputs of the work before this call and replaces each with a short tombstone naming the archive (read_archive or your Read tool brings one back), from your next requests on. Your messages, the tool calls and this summary stay.",
    input: EndSubtaskInputSchema,
    output: EndSubtaskOutputSchema,
    annotations: WRITES,
    run: async ({ sessionId: given }: z.output<typeof EndSubtaskInputSchema>, context) => {
      const own = given === undefined ? await ownSession(context) : undefined;
      const sessionId = given ?? own?.id ?? null;
      const summary =
        sessionId === null
          ? undefined
          : (await context.monitor.view(sessionId).catch(() => undefined))?.proxy;
      const acting = summary?.acting === true;
      const next = acting
        ? `barometer's proxy archives this sub-task's tool outputs and replaces them with tombstones from your next requests on; read_archive brings any back.`
        : sessionId === null
          ? "No barometer session is known for you here: nothing is evicted. Run your agent through barometer's proxy (barometer wrap) for end_subtask to free your context."
          : `barometer's proxy does not act on session ${sessionId}${summary ? ' (it only observes)' : ''}: nothing is evicted. Run your agent through barometer wrap for end_subtask to free your context.`;
      return { ok: true, value: { sessionId, acting, next }, text: next };
    },
  });
}

/** `read_archive`: archived content read back, one item exactly or every item of a task. */
function readArchiveTool(): BarometerTool {
  return defineTool({
    name: 'read_archive',
    title: 'Read archived content back',
    description:
      'Brings back what a compaction or an eviction took out of your context: give location, the tombstone you see (or the address it names; its #item part picks one item), or sessionId, taskId and item. With an item the text is that item exactly as it was; without, every archived item of the task. An item that is not there is an error listing the items that are.',
    input: ReadArchiveInputSchema,
    output: ReadArchiveOutputSchema,
    annotations: READ_ONLY,
    parse: (raw) => readArchiveTarget(raw),
    run: async (given: ArchiveTarget, context) => {
      const target =
        'location' in given ? archiveAt(given.location, context) : { ok: true as const, value: given };
      if (!target.ok) return { ok: false, error: invalidArguments(target.issues) };
      const { sessionId, taskId, itemId } = target.value;
      const records = await context.archive.readArchive(sessionId, taskId);
      if (itemId === undefined) {
        return {
          ok: true,
          value: { sessionId, taskId, records },
          text: renderArchiveRecords(records),
        };
      }
      const record = records.findLast((entry) => entry.itemId === itemId);
      if (!record) {
        return {
          ok: false,
          error: {
            error: `No item ${JSON.stringify(itemId)} in ${sessionId}/${taskId}`,
            code: 'BR_ERR_ARCHIVE_NOT_FOUND',
            items: records.map((entry) => entry.itemId),
          },
        };
      }
      return {
        ok: true,
        value: { ...record, bytes: Buffer.byteLength(record.content) },
        // The archived bytes exactly: nothing added, so that a client can put them back as they were.
        text: record.content,
      };
    },
  });
}

/**
 * The session of the agent the server serves, when it can tell: the latest session whose agent is the client's
 * process (its hooks recorded it), else the latest session of the client's working directory (by the agent's
 * hooks, `barometer watch`, or create_session with workingDirectory).
 */
async function ownSession(context: ToolContext): Promise<{ id: string; chosen: string } | undefined> {
  const { clientProcessId: pid, clientWorkingDirectory: cwd } = context;
  if (pid === undefined && cwd === undefined) return undefined;
  const sessions = await context.monitor.list();
  const plural = (count: number) => `${count} session${count === 1 ? '' : 's'}`;
  const agents = pid === undefined ? [] : sessions.filter((summary) => summary.agentProcessId === pid);
  if (agents[0]) {
    return {
      id: agents[0].id,
      chosen: `session ${agents[0].id}: the most recently updated of ${plural(agents.length)} whose agent is process ${pid}, the process that started this server (its hooks said so)`,
    };
  }
  const mine = cwd === undefined ? [] : sessions.filter((summary) => summary.workingDirectory === cwd);
  if (!mine[0]) return undefined;
  return {
    id: mine[0].id,
    chosen: `session ${mine[0].id}: the most recently updated of ${plural(mine.length)} whose agent works in ${cwd}, the folder this server was started in${pid === undefined ? '' : ` (no session's hooks named process ${pid}, the process that started this server)`}`,
  };
}

/** Checks the arguments of `read_archive`; a location is resolved against the archive when the tool runs. */
function readArchiveTarget(raw: unknown): Result<ArchiveTarget> {
  const parsed = parseWith(ReadArchiveInputSchema, raw);
  if (!parsed.ok) return parsed;
  const { location, sessionId, taskId, item } = parsed.value;
  if (location !== undefined) return { ok: true, value: { location } };
  // The schema requires sessionId and taskId without a location.
  return {
    ok: true,
    value: { sessionId: sessionId!, taskId: taskId!, ...(item === undefined ? {} : { itemId: item }) },
  };
}

/**
 * The archive a location names (a tombstone, an archive path under this archive's root, an API address), its
 * ids checked by the one id rule; every problem is an issue of `location`.
 */
function archiveAt(
  location: string,
  context: ToolContext,
): Result<{ sessionId: string; taskId: string; itemId?: string }> {
  const address = findArchiveAddress(location, context.archive.root);
  const where =
    context.archiveAddresses === 'api'
      ? '/api/v1/archives/<session>/<task>?item=<id>'
      : `${context.archive.root}/<session>/<task>.log#<item id> or /api/v1/archives/<session>/<task>?item=<id>`;
  if (!address) {
    return {
      ok: false,
      issues: [{ field: 'location', value: location, message: `names no archive: expected ${where}` }],
    };
  }
  const ids = parseWith(ArchiveParamsSchema, { session: address.sessionId, task: address.taskId });
  if (!ids.ok) {
    return {
      ok: false,
      issues: ids.issues.map((issue) => ({
        ...issue,
        field: 'location',
        message: `${issue.field} id ${issue.message}`,
      })),
    };
  }
  return { ok: true, value: address };
}
