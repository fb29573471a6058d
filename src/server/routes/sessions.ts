import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import {
  ALL_SESSIONS_STREAM_MESSAGES,
  CompactionAnswerSchema,
  CompactionInputSchema,
  DEFAULT_SESSION_PAGE,
  EventsQuerySchema,
  MAX_SESSION_PAGE,
  SampleParamsSchema,
  SamplesAnswerSchema,
  SESSION_STREAM_MESSAGES,
  SessionIdParamsSchema,
  SessionListQuerySchema,
  SessionListSchema,
  SessionOptionsSchema,
  SessionViewSchema,
  SubAgentsAnswerSchema,
  UsageAnswerSchema,
  UsageInputSchema,
} from '../../contract/sessions.js';
import { BarometerValidationError } from '../../errors/validation.js';
import { sendProblem } from '../../http/problem.js';
import type { ApiRoute } from '../../http/route-table.js';
import type { SessionMonitor } from '../../session/session-monitor.js';
import type { UsageUpdate } from '../../session/session-options.js';
import { parseUsageInput } from '../../session/usage-input.js';
import type { EventHub } from '../event-hub.js';
import { readSample, SAMPLES } from '../samples.js';

export const SESSION_CREATE_EXAMPLE =
  'POST /api/v1/sessions {"model":"claude-opus-4-6","agent":"claude-code","tokenBudget":2000000}';
export const COMPACTION_EXAMPLE =
  'POST /api/v1/sessions/:id/compactions {"before":182000,"after":41000,"trigger":"auto"}';
export const LIST_EXAMPLE =
  'GET /api/v1/sessions?limit=100 then GET /api/v1/sessions?limit=100&cursor=<nextCursor>';
export const USAGE_EXAMPLE =
  'POST /api/v1/sessions/:id/usage {"promptTokens":123000,"completionTokens":800} or {"format":"anthropic","response":{...}}';

/** The path's id, as Fastify validated it by the one id rule (an id the API cannot have is a 400 naming it). */
function idOf(request: FastifyRequest): string {
  return (request.params as SessionIdParams).id;
}

type SessionIdParams = z.output<typeof SessionIdParamsSchema>;
type ListQuery = z.output<typeof SessionListQuerySchema>;

/** The sessions API (docs/sessions-api.md): each route translates to one monitor call. */
export function sessionRoutes(monitor: SessionMonitor, hub: EventHub): ApiRoute[] {
  return [
    ...sessionResourceRoutes(monitor),
    ...sessionInputRoutes(monitor),
    ...sessionStreamRoutes(monitor, hub),
    ...sampleRoutes(monitor),
  ];
}

/** The routes that create, list, read and delete sessions. */
function sessionResourceRoutes(monitor: SessionMonitor): ApiRoute[] {
  return [
    {
      method: 'POST',
      url: '/api/v1/sessions',
      scope: 'json',
      summary: 'Create a monitored session for a model (and agent, limits, budget)',
      body: SessionOptionsSchema,
      example: SESSION_CREATE_EXAMPLE,
      responses: {
        '201': { description: 'The session view', schema: SessionViewSchema },
        '409': { description: 'A session with that id exists' },
        '503': { description: 'The store holds its maximum of sessions (BR_ERR_SESSION_LIMIT)' },
      },
      handler: async (request, reply) =>
        reply.code(201).send(await monitor.create(request.body as z.output<typeof SessionOptionsSchema>)),
    },
    {
      method: 'GET',
      url: '/api/v1/sessions',
      scope: 'json',
      summary: `List sessions (summaries), one page at a time in id order: limit (default ${DEFAULT_SESSION_PAGE}, at most ${MAX_SESSION_PAGE}) and cursor (the nextCursor of the page before); follow nextCursor until null (a page read while sessions still load after a restart may hold fewer than limit)`,
      query: SessionListQuerySchema,
      example: LIST_EXAMPLE,
      responses: {
        '200': { description: '{ sessions, nextCursor }', schema: SessionListSchema },
      },
      handler: async (request) => {
        const query = request.query as ListQuery;
        return monitor.listPage(query.cursor ?? null, query.limit ?? DEFAULT_SESSION_PAGE);
      },
    },
    {
      method: 'GET',
      url: '/api/v1/sessions/:id',
      scope: 'json',
      summary: 'Read a session view (summary, timeline, markers)',
      params: SessionIdParamsSchema,
      responses: {
        '200': { description: 'The session view', schema: SessionViewSchema },
        '404': { description: 'No such session' },
      },
      handler: async (request) => monitor.view(idOf(request)),
    },
    {
      method: 'GET',
      url: '/api/v1/sessions/:id/sub-agents',
      scope: 'json',
      summary:
        "Read a session's sub-agents (the sessions created with it as parentId, and theirs) and its totals with them",
      params: SessionIdParamsSchema,
      responses: {
        '200': { description: 'The sub-agents and the totals', schema: SubAgentsAnswerSchema },
        '404': { description: 'No such session' },
      },
      handler: async (request) => monitor.subAgents(idOf(request)),
    },
    {
      method: 'DELETE',
      url: '/api/v1/sessions/:id',
      scope: 'json',
      summary: 'Delete a session',
      params: SessionIdParamsSchema,
      responses: {
        '204': { description: 'Deleted', empty: true },
        '404': { description: 'No such session' },
      },
      handler: async (request, reply) => {
        await monitor.delete(idOf(request));
        return reply.code(204).send();
      },
    },
  ];
}

/** The routes that feed a session: a generation's usage and a compaction. */
function sessionInputRoutes(monitor: SessionMonitor): ApiRoute[] {
  return [
    {
      method: 'POST',
      url: '/api/v1/sessions/:id/usage',
      scope: 'json',
      summary: "Post one generation's usage (normalized, or a raw provider response) and get the verdict",
      params: SessionIdParamsSchema,
      body: UsageInputSchema,
      // The shape is chosen by `format`, so that the issues name the fields of the shape the caller meant.
      parse: { body: parseUsageInput },
      example: USAGE_EXAMPLE,
      responses: {
        '200': { description: 'What the agent needs to act (at most a few KB)', schema: UsageAnswerSchema },
        '404': { description: 'No such session' },
      },
      // The monitor answers within the call over a store that does (the memory store): the service's hot path
      // then pays no promise; over Redis, or for a pooled session, the answer is sent when it comes.
      handler: (request, reply) => {
        const answer = monitor.postUsage(idOf(request), request.body as UsageUpdate);
        return answer instanceof Promise ? answer.then((later) => reply.send(later)) : reply.send(answer);
      },
    },
    {
      method: 'POST',
      url: '/api/v1/sessions/:id/compactions',
      scope: 'json',
      summary: 'Record a compaction of the session (the agent’s own, or one made elsewhere)',
      params: SessionIdParamsSchema,
      body: CompactionInputSchema,
      example: COMPACTION_EXAMPLE,
      responses: {
        '201': {
          description: 'The compaction event and the session summary',
          schema: CompactionAnswerSchema,
        },
        '404': { description: 'No such session' },
      },
      handler: async (request, reply) => {
        const { trigger, ...rest } = request.body as z.output<typeof CompactionInputSchema>;
        return reply
          .code(201)
          .send(await monitor.recordCompaction(idOf(request), { ...rest, trigger: trigger ?? 'manual' }));
      },
    },
  ];
}

/** The server-sent event streams: one session's, and every session's. */
function sessionStreamRoutes(monitor: SessionMonitor, hub: EventHub): ApiRoute[] {
  return [
    {
      method: 'GET',
      url: '/api/v1/sessions/:id/events',
      scope: 'json',
      summary: 'Server-sent events of one session: its view, then model events and updates (what was added)',
      params: SessionIdParamsSchema,
      responses: {
        '200': {
          description: 'text/event-stream (see docs/sessions-api.md)',
          contentType: 'text/event-stream',
          messages: SESSION_STREAM_MESSAGES,
        },
        '404': { description: 'No such session' },
        '503': { description: 'Too many event-stream clients (BR_ERR_TOO_MANY_STREAMS)' },
      },
      handler: async (request, reply) => {
        const id = idOf(request);
        if (!hub.hasRoom()) return tooManyStreams(reply, hub);
        const view = await monitor.view(id);
        hub.open(request, reply, id, `event: session\ndata: ${JSON.stringify(view)}\n\n`);
        return reply;
      },
    },
    {
      method: 'GET',
      url: '/api/v1/events',
      scope: 'json',
      summary:
        'Server-sent events of every session: one page of the list (limit, cursor as GET /api/v1/sessions), then the latest summary of each changed session',
      query: EventsQuerySchema,
      example: LIST_EXAMPLE,
      responses: {
        '200': {
          description: 'text/event-stream (see docs/sessions-api.md)',
          contentType: 'text/event-stream',
          messages: ALL_SESSIONS_STREAM_MESSAGES,
        },
        '503': { description: 'Too many event-stream clients (BR_ERR_TOO_MANY_STREAMS)' },
      },
      handler: async (request, reply) => {
        const query = request.query as ListQuery;
        if (!hub.hasRoom()) return tooManyStreams(reply, hub);
        const page = await monitor.listPage(query.cursor ?? null, query.limit ?? DEFAULT_SESSION_PAGE);
        hub.open(request, reply, null, `event: sessions\ndata: ${JSON.stringify(page)}\n\n`);
        return reply;
      },
    },
  ];
}

/** The bundled sample sessions: their list, and loading one into a live session. */
function sampleRoutes(monitor: SessionMonitor): ApiRoute[] {
  return [
    {
      method: 'GET',
      url: '/api/v1/samples',
      scope: 'json',
      summary: 'The bundled sample sessions',
      responses: { '200': { description: '{ samples }', schema: SamplesAnswerSchema } },
      handler: async () => ({
        samples: SAMPLES.map(({ name, format, description }) => ({ name, format, description })),
      }),
    },
    {
      method: 'POST',
      url: '/api/v1/samples/:name/load',
      scope: 'json',
      summary: 'Load a bundled sample into a new live session',
      params: SampleParamsSchema,
      responses: {
        '201': { description: 'The session view', schema: SessionViewSchema },
        '404': { description: 'No such sample' },
      },
      handler: async (request, reply) => {
        const { name } = request.params as { name: string };
        const text = readSample(name);
        if (!text) {
          return sendProblem(reply, 'BR_ERR_NOT_FOUND', `No sample ${JSON.stringify(name)}`, {
            samples: SAMPLES.map((sample) => sample.name),
          });
        }
        const log = await text;
        // A fresh id each time: the same sample may be loaded again beside the first.
        for (let attempt = 1; ; attempt++) {
          const id = `sample-${name}-${attempt}`;
          if (await monitor.has(id)) continue;
          try {
            return reply.code(201).send(await monitor.loadLog({ log, id }));
          } catch (error) {
            if (error instanceof BarometerValidationError && error.code === 'BR_ERR_SESSION_EXISTS') continue;
            throw error;
          }
        }
      },
    },
  ];
}

function tooManyStreams(reply: FastifyReply, hub: EventHub): FastifyReply {
  reply.header('retry-after', '5');
  return sendProblem(
    reply,
    'BR_ERR_TOO_MANY_STREAMS',
    `Too many event-stream clients: at most ${hub.maxStreams} at once`,
    { limit: hub.maxStreams },
  );
}
