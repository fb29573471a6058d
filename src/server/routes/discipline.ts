import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { ArchiveAnswerSchema, ArchiveParamsSchema, ArchiveQuerySchema } from '../../contract/archives.js';
import { CompactAnswerSchema, CompactRequestSchema } from '../../contract/compact.js';
import {
  ArtifactParamsSchema,
  BudgetDecisionSchema,
  DiffCheckSchema,
  DiffOnlyResultSchema,
  EnforceRequestSchema,
  HotStateCheckAnswerSchema,
  HotStateCheckSchema,
  HotStateSchema,
} from '../../contract/discipline.js';
import { capHotState } from '../../discipline/cap-hot-state.js';
import { enforceBudget } from '../../discipline/enforce-budget.js';
import { storeReferences } from '../../discipline/store-references.js';
import { validateBudgets } from '../../discipline/validate-budgets.js';
import { validateDiffOnly } from '../../discipline/validate-diff-only.js';
import { BarometerValidationError, parseWith } from '../../errors/validation.js';
import { sendInvalid, sendProblem } from '../../http/problem.js';
import type { ApiRoute } from '../../http/route-table.js';
import type { SessionMonitor } from '../../session/session-monitor.js';
import { ArchiveError, type ArchiveStore } from '../../store/archive.js';
import { apiAddresses } from '../../store/archive-address.js';
import { type ArtifactRegistry, ArtifactRegistryError } from '../../store/artifact-registry.js';

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

/** The stores the discipline routes read and write. */
interface DisciplineStores {
  archive: ArchiveStore;
  artifacts: ArtifactRegistry;
  monitor: SessionMonitor;
}

/** Context discipline (seed 002) and compaction (seed 004) over HTTP. */
export function disciplineRoutes(stores: DisciplineStores): ApiRoute[] {
  return [
    ...hotStateRoutes(stores),
    ...diffRoutes(),
    ...compactRoutes(stores),
    ...storedContentRoutes(stores),
  ];
}

/** The hot-state routes: check a hot state against its budgets, and enforce them (seed 002). */
function hotStateRoutes(stores: DisciplineStores): ApiRoute[] {
  return [
    {
      method: 'POST',
      url: '/api/v1/hot-state/check',
      scope: 'json',
      summary: 'Validate a hot state, cap it to a token budget, and check the prompt budgets',
      body: HotStateCheckSchema,
      example: HOT_STATE_EXAMPLE,
      responses: { '200': { description: '{ capped, budgets }', schema: HotStateCheckAnswerSchema } },
      handler: async (request, reply) => {
        const body = request.body as z.output<typeof HotStateCheckSchema>;
        const state = hotStateOf(reply, body.hotState, HOT_STATE_EXAMPLE);
        if (!state) return reply;
        const capped = capHotState(state, body.maxTokens ?? body.limits?.maxHotStateTokens ?? 1000);
        const budgets = validateBudgets(state, body.prompt, body.limits ? { limits: body.limits } : {});
        return { capped, budgets };
      },
    },
    {
      method: 'POST',
      url: '/api/v1/hot-state/enforce',
      scope: 'json',
      summary:
        'Run the budgeter on a hot state: pass, compress, reference (lists stored as artifacts) or reject',
      body: EnforceRequestSchema,
      example: HOT_STATE_EXAMPLE,
      responses: {
        '200': { description: 'The decision', schema: BudgetDecisionSchema },
        '413': { description: 'A list to move to an artifact is too large' },
      },
      handler: async (request, reply) => {
        const body = request.body as z.output<typeof EnforceRequestSchema>;
        const state = hotStateOf(reply, body.hotState, HOT_STATE_EXAMPLE);
        if (!state) return reply;
        const { hotState: _ignored, ...options } = body;
        // Reference extraction stores the moved lists before answering, so every id in the new state resolves.
        try {
          return await storeReferences(enforceBudget(state, options), stores.artifacts);
        } catch (error) {
          if (error instanceof ArtifactRegistryError && error.code === 'BR_ERR_ARTIFACT_TOO_LARGE') {
            return sendProblem(
              reply,
              error.code,
              `A list to move to an artifact is too large: ${error.message}`,
            );
          }
          throw error;
        }
      },
    },
  ];
}

/** The diff-only check of an output (seed 002). */
function diffRoutes(): ApiRoute[] {
  return [
    {
      method: 'POST',
      url: '/api/v1/diff/check',
      scope: 'json',
      summary: 'Check that an output is diff-only (unified diff or JSON Patch)',
      body: DiffCheckSchema,
      example:
        'POST /api/v1/diff/check {"output":"--- a/x\\n+++ b/x\\n@@ ...","taskType":"code-modification"}',
      responses: { '200': { description: '{ ok, kind, reasons, ... }', schema: DiffOnlyResultSchema } },
      handler: async (request) => {
        const { output, ...options } = request.body as z.output<typeof DiffCheckSchema>;
        return validateDiffOnly(output, options);
      },
    },
  ];
}

/** The compaction of a chat history (seed 004), recorded by a live session of its id. */
function compactRoutes(stores: DisciplineStores): ApiRoute[] {
  return [
    {
      method: 'POST',
      url: '/api/v1/compact',
      scope: 'json',
      summary:
        'Compact an OpenAI chat history: recap and flush, or evict completed tasks; archives first, and a live session of sessionId records it',
      body: CompactRequestSchema,
      example: COMPACT_EXAMPLE,
      responses: {
        '200': {
          description: '{ mode, evicted, before, after, archives, messages, counter, sessionRecorded }',
          schema: CompactAnswerSchema,
        },
        '422': { description: 'Refused: the result would not be smaller' },
      },
      handler: async (request, reply) => {
        try {
          const { messages, tasks, sessionId, keepTurns, keepTokens, minGainPercent } =
            request.body as z.output<typeof CompactRequestSchema>;
          const result = await stores.monitor.compact({
            history: tasks ? { messages, tasks } : messages,
            ...(sessionId === undefined ? {} : { sessionId }),
            ...(keepTurns === undefined ? {} : { keepTurns }),
            ...(keepTokens === undefined ? {} : { keepTokens }),
            ...(minGainPercent === undefined ? {} : { minGainPercent }),
          });
          if (!result.ok) {
            return sendProblem(reply, result.code, `Compaction refused: ${result.reason}`, {
              before: result.before,
              after: result.after,
            });
          }
          const { ok: _ok, ...answer } = result;
          return apiAddresses(answer, stores.archive.root);
        } catch (error) {
          if (error instanceof BarometerValidationError && error.code === 'BR_ERR_INVALID_PARAM') {
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
      },
    },
  ];
}

/** What compaction and reference extraction stored: archives (or one item of one) and artifacts. */
function storedContentRoutes(stores: DisciplineStores): ApiRoute[] {
  return [
    {
      method: 'GET',
      url: '/api/v1/archives/:session/:task',
      scope: 'json',
      summary: 'Read an archive (records), or one item exactly with ?item=ID',
      params: ArchiveParamsSchema,
      query: ArchiveQuerySchema,
      responses: {
        '200': {
          description:
            '{ sessionId, taskId, records, skipped: [{ offset, bytes }] (regions not readable as whole records) }, or with ?item= the item as text/plain, byte for byte',
          schema: ArchiveAnswerSchema,
          alternativeContentType: 'text/plain',
        },
        '404': { description: 'No such archive or item' },
        '500': { description: 'The item asked for may lie in damaged bytes (BR_ERR_INTEGRITY)' },
      },
      handler: async (request, reply) => {
        const { session, task } = request.params as z.output<typeof ArchiveParamsSchema>;
        try {
          const { item } = request.query as z.output<typeof ArchiveQuerySchema>;
          if (item === undefined) {
            // Whole records, and where bytes were skipped as torn or damaged: nothing unreadable is hidden.
            const decoded = await stores.archive.inspectArchive(session, task);
            return { sessionId: session, taskId: task, records: decoded.records, skipped: decoded.skipped };
          }
          const record = await stores.archive.readItem(session, task, item);
          // The archived bytes exactly, for `curl -o`.
          return reply.type('text/plain; charset=utf-8').send(record.content);
        } catch (error) {
          if (error instanceof ArchiveError) {
            // The server's paths stay on the server.
            return sendProblem(
              reply,
              error.code,
              error.message
                .replaceAll(error.path, `${session}/${task}`)
                .replaceAll(stores.archive.root, '<archive root>'),
            );
          }
          throw error;
        }
      },
    },
    {
      method: 'GET',
      url: '/api/v1/artifacts/:id',
      scope: 'json',
      summary: 'Read a stored artifact by its sha256 id',
      params: ArtifactParamsSchema,
      responses: {
        '200': { description: 'The artifact bytes', contentType: 'application/octet-stream' },
        '404': { description: 'No such artifact' },
        '500': { description: 'The stored bytes do not match the id (BR_ERR_INTEGRITY)' },
      },
      handler: async (request, reply) => {
        const { id } = request.params as z.output<typeof ArtifactParamsSchema>;
        try {
          const content = await stores.artifacts.get(id);
          return reply.type('application/octet-stream').send(content);
        } catch (error) {
          if (error instanceof ArtifactRegistryError) {
            return sendProblem(reply, error.code, error.message);
          }
          throw error;
        }
      },
    },
  ];
}
