import * as z from 'zod';
import { CompactRequestSchema } from '../compaction/compact-request.js';
import { HealthLevelSchema } from '../health/health-level.js';
import { IdSchema } from '../ids/id-schema.js';
import { AgentNameSchema } from '../models/model-profile.js';
import { PressureInputSchema, PressureReportSchema } from '../pressure/schemas.js';
import { SessionOptionsSchema } from '../session/session-options.js';
import {
  SessionSummarySchema,
  TimelineMarkerSchema,
  UsageAnswerSchema,
  VerdictActionSchema,
} from '../session/session-schemas.js';
import { UsageInputSchema } from '../session/usage-input.js';
import { ArchiveItemIdSchema, ArchiveParamsSchema } from '../store/archive-address.js';
import { ArchiveRecordSchema } from './archives.js';
import { CompactAnswerSchema } from './compact.js';

/**
 * The input and the output of each MCP tool, built from the schemas that validate the same request and describe
 * the same answer over HTTP (DESIGN.md: one schema per concept), so that a field means and checks the same on
 * every surface. Where a route takes part of its input from the path (`/sessions/:id/usage`), the tool names it
 * `sessionId` beside the body. The outputs are advertised as each tool's `outputSchema`; a client checks every
 * tool's `structuredContent` against it.
 */

/**
 * `evaluate_pressure`: the body of `POST /api/v1/pressure`, with the three figures the regulator judges required:
 * over HTTP an absent figure takes the regulator's default, but a model asking "how pressed am I?" must say how
 * full its context is, how fast it burns tokens and how far it drifted, or the answer describes the defaults.
 */
export const EvaluatePressureInputSchema = PressureInputSchema.extend({
  memoryUsedPercent: PressureInputSchema.shape.memoryUsedPercent.unwrap().meta({
    description: 'How full your context window is, in percent of the window (0-100)',
  }),
  tokenBurnRatePerMin: PressureInputSchema.shape.tokenBurnRatePerMin.unwrap().meta({
    description:
      'How fast you spend tokens, on the 0-200 scale where 100 is your tokens-per-minute limit (tokens per minute ÷ limit × 100)',
  }),
  contextDriftPercent: PressureInputSchema.shape.contextDriftPercent.unwrap().meta({
    description: 'How far the conversation has moved from its task, in percent (0 on task, 100 unrelated)',
  }),
});

const id = (what: string) => IdSchema.meta({ description: what });

/**
 * `create_session`: the body of `POST /api/v1/sessions`, each property described for a model that fills it in.
 * The descriptions are added here, not on the shared schema's fields, so the HTTP contract stays as documented.
 * `agentProcessId` is left out: a model does not know its agent's process, which the agent's hooks record.
 */
export const CreateSessionInputSchema = SessionOptionsSchema.omit({ agentProcessId: true }).extend({
  id: id(
    'An id you choose, to find this session again (letters, digits, . _ -); omit it and one is made',
  ).optional(),
  model: SessionOptionsSchema.shape.model.meta({
    description:
      'The model id you run on, as its provider names it (claude-sonnet-4-5, gpt-5, gemini-2.5-pro)',
  }),
  agent: SessionOptionsSchema.shape.agent
    .unwrap()
    .meta({
      description: 'The agent you run in, if any: its own compaction narrows the window you can use',
    })
    .optional(),
  contextWindow: SessionOptionsSchema.shape.contextWindow
    .unwrap()
    .meta({
      description: 'Your context window in tokens, when you know it better than the model registry',
    })
    .optional(),
  agentReported: SessionOptionsSchema.shape.agentReported
    .unwrap()
    .meta({
      description:
        'What your agent reports of the model: contextWindow (the window it states), effectiveWindow (the one it measures against), maxOutput (a request max_tokens)',
    })
    .optional(),
  optimalMaxTokens: SessionOptionsSchema.shape.optimalMaxTokens
    .unwrap()
    .meta({
      description: 'Prompt size in tokens above which your context health turns caution (default 100000)',
    })
    .optional(),
  criticalMaxTokens: SessionOptionsSchema.shape.criticalMaxTokens
    .unwrap()
    .meta({
      description:
        'Prompt size in tokens above which your context health turns critical (default 90% of the window)',
    })
    .optional(),
  tokenBudget: SessionOptionsSchema.shape.tokenBudget
    .unwrap()
    .meta({
      description: 'Total tokens this session may spend; when it is spent the verdict is terminate',
    })
    .optional(),
  tpmLimit: SessionOptionsSchema.shape.tpmLimit
    .unwrap()
    .meta({
      description: 'Your tokens-per-minute rate limit (same as rateLimits.tokensPerMinute)',
    })
    .optional(),
  rateLimits: SessionOptionsSchema.shape.rateLimits
    .unwrap()
    .meta({
      description:
        'Your per-minute rate limits as your provider states them: requestsPerMinute, inputTokensPerMinute, outputTokensPerMinute, tokensPerMinute',
    })
    .optional(),
  maxWaitSeconds: SessionOptionsSchema.shape.maxWaitSeconds
    .unwrap()
    .meta({
      description:
        'The longest wait, in seconds, worth advising when only a rate limit presses (default 60); beyond it you are told to compress',
    })
    .optional(),
  kv: SessionOptionsSchema.shape.kv
    .unwrap()
    .meta({
      description:
        'For a local model (llama.cpp): nCtx, the KV cache size in cells, and optionally softLimit, hardLimit, nBatch',
    })
    .optional(),
  triggers: SessionOptionsSchema.shape.triggers
    .unwrap()
    .meta({
      description:
        'When to advise compaction: standardThreshold (tokens, default 200000), semanticThreshold (tokens at a completed task, default 50000), survivalMargin (default 1.2), minTurns',
    })
    .optional(),
  burnWindowSeconds: SessionOptionsSchema.shape.burnWindowSeconds
    .unwrap()
    .meta({
      description: 'The window over which your token burn rate is measured, in seconds (default 300)',
    })
    .optional(),
  cautionCadence: SessionOptionsSchema.shape.cautionCadence
    .unwrap()
    .meta({
      description: 'Calls between repeated caution reminders (default 10)',
    })
    .optional(),
  poolId: id('A shared budget pool this session draws on, with other agents').optional(),
  poolPriority: SessionOptionsSchema.shape.poolPriority
    .unwrap()
    .meta({
      description: 'Your priority in the pool: under pressure a low one is told to defer (default normal)',
    })
    .optional(),
  workingDirectory: SessionOptionsSchema.shape.workingDirectory
    .unwrap()
    .meta({
      description: 'The folder you work in: context_status without a sessionId finds your session by it',
    })
    .optional(),
  parentId: id('The session you are a sub-agent of: session lists show yours nested under it').optional(),
  title: SessionOptionsSchema.shape.title
    .unwrap()
    .meta({
      description: 'A short line saying what you were asked to do: the dashboard names your session by it',
    })
    .optional(),
  project: SessionOptionsSchema.shape.project
    .unwrap()
    .meta({
      description: 'The project you work on, when the last folders of your working directory do not name it',
    })
    .optional(),
});

/** `context_status`: the `:id` of `GET /api/v1/sessions/:id`; without it, the caller's own session when known. */
export const ContextStatusInputSchema = z.strictObject({
  sessionId: IdSchema.optional().meta({
    description:
      'Your session id, if you know it. Omit it: the server answers for the session of the agent you run in (found by your working directory) and says how it chose, or lists the recent sessions',
  }),
});

/** `report_usage`: the `:id` and the body of `POST /api/v1/sessions/:id/usage`. */
export const ReportUsageInputSchema = z.strictObject({
  sessionId: IdSchema.optional().meta({
    description:
      'Your session id (from create_session). Omit it to report to the session of the agent you run in, found by your working directory',
  }),
  usage: UsageInputSchema.meta({
    description:
      'What your last model call used: { promptTokens, completionTokens?, cachedReadTokens?, ... } as counted, or { format, response } with the provider response that reported it',
  }),
});

/** A chat message as the compaction tools take it: OpenAI's chat shape, other fields kept as they are. */
export const ChatMessageSchema = z
  .looseObject({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']).meta({ description: 'Who wrote it' }),
    content: z
      .union([z.string(), z.array(z.unknown()), z.null()])
      .meta({ description: 'The text, or the content parts' }),
    tool_calls: z
      .array(z.unknown())
      .optional()
      .meta({ description: 'The tool calls of an assistant message' }),
    tool_call_id: z.string().optional().meta({ description: 'On a tool message: the call it answers' }),
    task_id: z.string().optional().meta({
      description: 'The task this tool output belongs to (evict_task evicts it when the task is done)',
    }),
  })
  .meta({ description: 'One chat message, as the OpenAI chat API writes it' });

const messages = z.array(ChatMessageSchema).meta({ description: 'Your conversation, oldest first' });
const compactSessionId = id(
  'Your session id: the session records the compaction, so its advice starts again from the smaller context',
).optional();

/** `compact_history`: the body of `POST /api/v1/compact` without `tasks` (recap and flush). */
export const CompactHistoryInputSchema = CompactRequestSchema.omit({ tasks: true }).extend({
  messages,
  sessionId: compactSessionId,
  keepTurns: CompactRequestSchema.shape.keepTurns
    .unwrap()
    .meta({
      description: 'Recent turns kept word for word (default 2)',
    })
    .optional(),
  keepTokens: CompactRequestSchema.shape.keepTokens
    .unwrap()
    .meta({
      description: 'The kept turns are shortened to at most this many tokens (default 20000)',
    })
    .optional(),
  minGainPercent: CompactRequestSchema.shape.minGainPercent
    .unwrap()
    .meta({
      description: 'Refuse when the compaction would save less than this percent of the tokens (default 5)',
    })
    .optional(),
});

/** `evict_task`: the body of `POST /api/v1/compact` with `tasks` (surgical eviction; the recap options do not apply). */
export const EvictTaskInputSchema = z.strictObject({
  messages,
  sessionId: compactSessionId,
  tasks: CompactRequestSchema.shape.tasks
    .unwrap()
    .min(1, 'must list at least one completed task: { id, summary }')
    .meta({
      description:
        'The tasks you finished: { id, summary } each, the summary (15 characters or more) staying in your context in place of their tool outputs',
    }),
});

/** `end_subtask`: the agent says its current sub-task is done. */
export const EndSubtaskInputSchema = z.strictObject({
  summary: z.string().max(500, 'must be at most 500 characters').optional().meta({
    description:
      'What the finished sub-task did, in a few words (kept in your context with the tool call; the output is archived)',
  }),
  sessionId: IdSchema.optional().meta({
    description:
      'Your session id, if you know it. Omit it: the server finds the session of the agent you run in (by your working directory)',
  }),
});

/**
 * `read_archive`: a tombstone or its address (`<archive path>#<item id>`, `/api/v1/archives/<session>/<task>?item=<id>`),
 * or the ids of `GET /api/v1/archives/:session/:task?item=`, named as every other tool names them.
 */
export const ReadArchiveInputSchema = z
  .strictObject({
    location: z.string().min(1).max(4096).optional().meta({
      description:
        'A tombstone from your context ("[Task <id> completed: output evicted to archive] <where>"), or the address it names; its #item part picks one item',
    }),
    sessionId: ArchiveParamsSchema.shape.session
      .optional()
      .meta({ description: 'The session the archive belongs to (instead of location)' }),
    taskId: ArchiveParamsSchema.shape.task
      .optional()
      .meta({ description: 'The task whose outputs were archived (instead of location)' }),
    item: ArchiveItemIdSchema.optional().meta({
      description:
        'One archived item (a tool call id and part, as the tombstone names it); omit it for the whole archive',
    }),
  })
  .superRefine((value, context) => {
    const byIds = value.sessionId !== undefined || value.taskId !== undefined;
    if (value.location !== undefined && (byIds || value.item !== undefined)) {
      context.addIssue({
        code: 'custom',
        path: ['location'],
        message: 'give either location, or sessionId and taskId (and item), not both',
      });
    } else if (value.location === undefined) {
      for (const key of ['sessionId', 'taskId'] as const) {
        if (value[key] === undefined)
          context.addIssue({
            code: 'custom',
            path: [key],
            message: 'is required without location (or give location: a tombstone or its address)',
          });
      }
    }
  });

/** `evaluate_pressure`: the 200 body of `POST /api/v1/pressure`. */
export const EvaluatePressureOutputSchema = PressureReportSchema;

/** `create_session`: the new session's summary. */
export const CreateSessionOutputSchema = z.strictObject({ session: SessionSummarySchema });

/** One session as `context_status` lists it without an id: enough to pick one. */
export const ListedSessionSchema = z.strictObject({
  id: z.string(),
  model: z.string(),
  agent: AgentNameSchema.nullable(),
  updatedAt: z.string().meta({ description: 'ISO 8601 time', format: 'date-time' }).nullable(),
  generations: z.number().int().min(0),
  health: HealthLevelSchema,
  action: VerdictActionSchema.nullable(),
});

/**
 * `context_status`: with `sessionId`, the session's summary and latest markers; without, the most recently updated
 * sessions and how many there are.
 */
export const ContextStatusOutputSchema = z.union([
  z.strictObject({
    session: SessionSummarySchema,
    markers: z.array(TimelineMarkerSchema),
    /** How the session was chosen when no sessionId was given (the caller's working directory). */
    chosen: z.string().optional(),
  }),
  z.strictObject({ sessions: z.array(ListedSessionSchema), total: z.number().int().min(0) }),
]);

/** `report_usage`: the 200 body of `POST /api/v1/sessions/:id/usage`. */
export const ReportUsageOutputSchema = UsageAnswerSchema;

/** `compact_history` and `evict_task`: the 200 body of `POST /api/v1/compact`. */
export const CompactHistoryOutputSchema = CompactAnswerSchema;
export const EvictTaskOutputSchema = CompactAnswerSchema;

/**
 * `end_subtask`: which session it was, whether barometer's proxy acts on its requests (only then does the output go),
 * and what happens next, in a sentence.
 */
export const EndSubtaskOutputSchema = z.strictObject({
  sessionId: z.string().nullable(),
  /** Whether barometer's proxy edits this session's requests: the one that evicts the sub-task's output. */
  acting: z.boolean(),
  next: z.string(),
});

/** `read_archive`: one item exactly as archived (with its size in bytes), or every record of the archive. */
export const ReadArchiveOutputSchema = z.union([
  ArchiveRecordSchema.extend({ bytes: z.number().int().min(0) }),
  z.strictObject({ sessionId: z.string(), taskId: z.string(), records: z.array(ArchiveRecordSchema) }),
]);
