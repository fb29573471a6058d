import { sep } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { CompletedTaskSchema, compactOpenAIMessages } from '../../compaction/compact-messages.js';
import { BudgetLimitsSchema } from '../../discipline/budget-limits.js';
import { capHotState } from '../../discipline/cap-hot-state.js';
import { enforceBudget } from '../../discipline/enforce-budget.js';
import { HotStateSchema } from '../../discipline/hot-state.js';
import { storeReferences } from '../../discipline/store-references.js';
import { PromptPartsSchema, validateBudgets } from '../../discipline/validate-budgets.js';
import { DiffOnlyOptionsSchema, validateDiffOnly } from '../../discipline/validate-diff-only.js';
import { HeadroomValidationError, parseWith } from '../../errors/validation.js';
import { ArchiveError, type ArchiveStore } from '../../store/archive.js';
import { type ArtifactRegistry, ArtifactRegistryError } from '../../store/artifact-registry.js';
import type { MemorySessionStore } from '../../store/memory-session-store.js';
import { sendInvalid, sendProblem } from '../problem.js';

export const HotStateCheckSchema = z.strictObject({
  hotState: z.unknown(),
  /** Cap in tokens; the state falls back to its minimal form above it. @default 1000 */
  maxTokens: z.number().int().min(1).optional(),
  /** A prompt to check against the budgets together with the hot state. */
  prompt: PromptPartsSchema.optional(),
  limits: BudgetLimitsSchema.optional(),
});

export const EnforceRequestSchema = z.strictObject({
  hotState: z.unknown(),
  limits: BudgetLimitsSchema.optional(),
  compress: z.boolean().optional(),
  reference: z.boolean().optional(),
});

export const DiffCheckSchema = DiffOnlyOptionsSchema.extend({ output: z.string() });

export const CompactRequestSchema = z.strictObject({
  messages: z.array(z.unknown()),
  /** Completed tasks: their tagged tool outputs (`task_id`) are evicted instead of a recap being made. */
  tasks: z.array(CompletedTaskSchema).optional(),
  sessionId: z.string().optional(),
  keepTurns: z.number().int().min(0).optional(),
});

const HOT_STATE_EXAMPLE =
  'POST /api/v1/hot-state/check {"hotState":{"session_id":"s1","objective":"fix the build"},"maxTokens":1000}';
const COMPACT_EXAMPLE =
  'POST /api/v1/compact {"messages":[{"role":"system","content":"..."},...],"sessionId":"s1","keepTurns":2}';

/** Parses a body, then the hot state inside it, naming fields as `hotState.<field>`. */
function hotStateOf(reply: FastifyReply, raw: unknown, example: string) {
  const parsed = parseWith(HotStateSchema, raw);
  if (parsed.ok) return parsed.value;
  sendInvalid(
    reply,
    parsed.issues.map((issue) => ({ ...issue, field: issue.field ? `hotState.${issue.field}` : 'hotState' })),
    example,
  );
  return undefined;
}

/** Context discipline (seed 002) and compaction (seed 004) over HTTP. */
export function registerDisciplineRoutes(
  api: FastifyInstance,
  stores: {
    archive: ArchiveStore;
    artifacts: ArtifactRegistry;
    sessions: MemorySessionStore;
    dataDir: string;
  },
): void {
  // Paths are reported relative to the data directory: a client has no use for the server's file system layout.
  const relative = (path: string) =>
    path.startsWith(stores.dataDir + sep) ? path.slice(stores.dataDir.length + 1) : path;

  api.post('/hot-state/check', async (request, reply) => {
    const body = parseWith(HotStateCheckSchema, request.body ?? {});
    if (!body.ok) return sendInvalid(reply, body.issues, HOT_STATE_EXAMPLE);
    const state = hotStateOf(reply, body.value.hotState, HOT_STATE_EXAMPLE);
    if (!state) return reply;
    const capped = capHotState(state, body.value.maxTokens ?? body.value.limits?.maxHotStateTokens ?? 1000);
    const budgets = validateBudgets(
      state,
      body.value.prompt,
      body.value.limits ? { limits: body.value.limits } : {},
    );
    return { capped, budgets };
  });

  api.post('/hot-state/enforce', async (request, reply) => {
    const body = parseWith(EnforceRequestSchema, request.body ?? {});
    if (!body.ok) return sendInvalid(reply, body.issues, HOT_STATE_EXAMPLE);
    const state = hotStateOf(reply, body.value.hotState, HOT_STATE_EXAMPLE);
    if (!state) return reply;
    const { hotState: _ignored, ...options } = body.value;
    // Reference extraction stores the moved lists before answering, so every id in the new state resolves.
    try {
      return await storeReferences(enforceBudget(state, options), stores.artifacts);
    } catch (error) {
      if (error instanceof ArtifactRegistryError && error.code === 'HR_ERR_ARTIFACT_TOO_LARGE') {
        return sendProblem(
          reply,
          413,
          error.code,
          `A list to move to an artifact is too large: ${error.message}`,
        );
      }
      throw error;
    }
  });

  api.post('/diff/check', async (request, reply) => {
    const body = parseWith(DiffCheckSchema, request.body ?? {});
    if (!body.ok)
      return sendInvalid(
        reply,
        body.issues,
        'POST /api/v1/diff/check {"output":"--- a/x\\n+++ b/x\\n@@ ...","taskType":"code-modification"}',
      );
    const { output, ...options } = body.value;
    return validateDiffOnly(output, options);
  });

  api.post('/compact', async (request, reply) => {
    const body = parseWith(CompactRequestSchema, request.body ?? {});
    if (!body.ok) return sendInvalid(reply, body.issues, COMPACT_EXAMPLE);
    try {
      const history = body.value.tasks
        ? { messages: body.value.messages, tasks: body.value.tasks }
        : body.value.messages;
      const result = await compactOpenAIMessages(history, {
        ...(body.value.sessionId === undefined ? {} : { sessionId: body.value.sessionId }),
        ...(body.value.keepTurns === undefined ? {} : { keepTurns: body.value.keepTurns }),
        archive: stores.archive,
      });
      if (!result.ok) {
        return sendProblem(reply, 422, result.code, `Compaction refused: ${result.reason}`, {
          before: result.before,
          after: result.after,
        });
      }
      const { mode, evicted, before, after, archives, messages, counter } = result;
      // A live session of the same id learns of the compaction, so its loop guards hold until it grows again.
      const sessionId = body.value.sessionId;
      const recorded =
        sessionId !== undefined && stores.sessions.has(sessionId)
          ? stores.sessions.recordCompaction(sessionId, { after: after.tokens, trigger: 'headroom' })
          : undefined;
      return {
        mode,
        evicted: evicted.map((task) => ({
          ...task,
          archive: task.archive === null ? null : relative(task.archive),
        })),
        before,
        after,
        archives: archives.map(relative),
        messages,
        counter,
        sessionRecorded: recorded !== undefined,
      };
    } catch (error) {
      if (error instanceof HeadroomValidationError) {
        return sendInvalid(
          reply,
          error.issues.map((issue) => ({
            ...issue,
            field: issue.field.startsWith('[') ? `messages${issue.field}` : issue.field,
          })),
          COMPACT_EXAMPLE,
        );
      }
      throw error;
    }
  });

  api.get<{ Params: { session: string; task: string }; Querystring: { item?: string } }>(
    '/archives/:session/:task',
    async (request, reply) => {
      const { session, task } = request.params;
      try {
        const records = await stores.archive.readArchive(session, task);
        const item = request.query.item;
        if (item === undefined) return { sessionId: session, taskId: task, records };
        const record = records.findLast((entry) => entry.itemId === item);
        if (!record)
          return sendProblem(
            reply,
            404,
            'HR_ERR_ARCHIVE_NOT_FOUND',
            `No item ${JSON.stringify(item)} in ${session}/${task}`,
          );
        // The archived bytes exactly, for `curl -o`.
        return reply.type('text/plain; charset=utf-8').send(record.content);
      } catch (error) {
        if (error instanceof HeadroomValidationError) return sendInvalid(reply, error.issues);
        if (error instanceof ArchiveError) {
          return sendProblem(
            reply,
            error.code === 'HR_ERR_ARCHIVE_NOT_FOUND' ? 404 : 500,
            error.code,
            error.message.replace(stores.archive.root, '<archive root>'),
          );
        }
        throw error;
      }
    },
  );

  api.get<{ Params: { id: string } }>('/artifacts/:id', async (request, reply) => {
    try {
      const content = await stores.artifacts.get(request.params.id);
      return reply.type('application/octet-stream').send(content);
    } catch (error) {
      if (error instanceof HeadroomValidationError) return sendInvalid(reply, error.issues);
      if (error instanceof ArtifactRegistryError) {
        return sendProblem(
          reply,
          error.code === 'HR_ERR_ARTIFACT_NOT_FOUND' ? 404 : 500,
          error.code,
          error.message,
        );
      }
      throw error;
    }
  });
}
