import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { HeadroomValidationError, parseWith } from '../../errors/validation.js';
import { replayIntoSession, sessionForLog } from '../../session/replay.js';
import type { SessionOptions } from '../../session/session-options.js';
import { sessionSummary } from '../../session/session-timeline.js';
import { parseUsageInput } from '../../session/usage-input.js';
import type { MemorySessionStore } from '../../store/memory-session-store.js';
import { readSessionLog } from '../../usage/read-session-log.js';
import { sendInvalid, sendProblem } from '../problem.js';
import { readSample, SAMPLES } from '../samples.js';
import { openEventStream } from '../sse.js';

export const SESSION_CREATE_EXAMPLE =
  'POST /api/v1/sessions {"model":"claude-opus-4-6","agent":"claude-code","tokenBudget":2000000}';
export const COMPACTION_EXAMPLE =
  'POST /api/v1/sessions/:id/compactions {"before":182000,"after":41000,"trigger":"auto"}';

/** A compaction the caller made (or the agent did): the context size before (default: the last prompt) and after. */
export const CompactionInputSchema = z.strictObject({
  before: z.number().int().min(0).optional(),
  after: z.number().int().min(0),
  trigger: z.string().min(1).max(64).optional(),
  timestamp: z
    .union([z.iso.datetime({ offset: true }), z.number().int().min(0)], {
      error: 'must be an ISO 8601 time or epoch milliseconds',
    })
    .optional(),
});

export const USAGE_EXAMPLE =
  'POST /api/v1/sessions/:id/usage {"promptTokens":123000,"completionTokens":800} or {"format":"anthropic","response":{...}}';

/** Maps a library validation error to its status: unknown model 400, duplicate id 409, else 400. */
export function sendValidationError(
  reply: FastifyReply,
  error: HeadroomValidationError,
  example?: string,
): FastifyReply {
  if (error.code === 'HR_ERR_SESSION_EXISTS') {
    return sendProblem(reply, 409, error.code, error.message, { issues: error.issues });
  }
  if (error.code !== 'HR_ERR_INVALID_PARAM') {
    return sendProblem(reply, 400, error.code, error.message, {
      issues: error.issues,
      ...(example ? { example } : {}),
    });
  }
  return sendInvalid(reply, error.issues, example);
}

function notFound(reply: FastifyReply, id: string): FastifyReply {
  return sendProblem(reply, 404, 'HR_ERR_SESSION_NOT_FOUND', `No session ${JSON.stringify(id)}`);
}

/** The sessions API (docs/sessions-api.md): create, post usage, read, delete, live events, samples. */
export function registerSessionRoutes(api: FastifyInstance, store: MemorySessionStore): void {
  api.post('/sessions', async (request, reply) => {
    const body = request.body ?? {};
    if (typeof body !== 'object' || Array.isArray(body)) {
      return sendInvalid(
        reply,
        [{ field: '', value: body, message: 'must be a JSON object' }],
        SESSION_CREATE_EXAMPLE,
      );
    }
    try {
      return reply.code(201).send(store.create(body as SessionOptions));
    } catch (error) {
      if (error instanceof HeadroomValidationError)
        return sendValidationError(reply, error, SESSION_CREATE_EXAMPLE);
      throw error;
    }
  });

  api.get('/sessions', async () => ({ sessions: store.list() }));

  api.get<{ Params: { id: string } }>('/sessions/:id', async (request, reply) => {
    return store.get(request.params.id) ?? notFound(reply, request.params.id);
  });

  api.delete<{ Params: { id: string } }>('/sessions/:id', async (request, reply) => {
    if (!store.delete(request.params.id)) return notFound(reply, request.params.id);
    return reply.code(204).send();
  });

  api.post<{ Params: { id: string } }>(
    '/sessions/:id/usage',
    { config: { evaluation: true } },
    async (request, reply) => {
      if (!store.has(request.params.id)) return notFound(reply, request.params.id);
      const parsed = parseUsageInput(request.body);
      if (!parsed.ok) return sendInvalid(reply, parsed.issues, USAGE_EXAMPLE);
      try {
        const result = store.update(request.params.id, parsed.value);
        if (!result) return notFound(reply, request.params.id);
        const { update, view } = result;
        return {
          verdict: update.verdict,
          health: update.health,
          signals: update.signals,
          regulator: update.regulator.report.pressure,
          trigger: {
            fire: update.trigger.fire,
            trigger: update.trigger.trigger ?? null,
            reasons: update.trigger.reasons,
          },
          events: update.events,
          session: view,
        };
      } catch (error) {
        if (error instanceof HeadroomValidationError) return sendValidationError(reply, error, USAGE_EXAMPLE);
        throw error;
      }
    },
  );

  api.post<{ Params: { id: string } }>('/sessions/:id/compactions', async (request, reply) => {
    if (!store.has(request.params.id)) return notFound(reply, request.params.id);
    const parsed = parseWith(CompactionInputSchema, request.body ?? {});
    if (!parsed.ok) return sendInvalid(reply, parsed.issues, COMPACTION_EXAMPLE);
    const { before, after, trigger, timestamp } = parsed.value;
    const recorded = store.recordCompaction(request.params.id, {
      after,
      trigger: trigger ?? 'manual',
      ...(before === undefined ? {} : { before }),
      ...(timestamp === undefined ? {} : { timestamp }),
    });
    if (!recorded) return notFound(reply, request.params.id);
    return reply.code(201).send({ event: recorded.event, session: recorded.view });
  });

  api.get<{ Params: { id: string } }>('/sessions/:id/events', async (request, reply) => {
    const id = request.params.id;
    const view = store.get(id);
    if (!view) return notFound(reply, id);
    let unsubscribe = () => {};
    const stream = openEventStream(request, reply, () => unsubscribe());
    stream.send('session', view);
    unsubscribe = store.subscribe((event) => {
      if (event.id !== id) return;
      if (event.type === 'session') stream.send('session', event.view);
      else if (event.type === 'session_event')
        stream.send(event.event.type, { sessionId: id, ...event.event });
      else {
        stream.send('deleted', { id });
        stream.close();
      }
    });
  });

  api.get('/events', async (request, reply) => {
    let unsubscribe = () => {};
    const stream = openEventStream(request, reply, () => unsubscribe());
    stream.send('sessions', { sessions: store.list() });
    unsubscribe = store.subscribe((event) => {
      // Summaries only: a list needs no timelines, and every update of every session goes to every client here.
      if (event.type === 'session') stream.send('session', sessionSummary(event.view));
      else if (event.type === 'deleted') stream.send('deleted', { id: event.id });
    });
  });

  api.get('/samples', async () => ({
    samples: SAMPLES.map(({ name, format, description }) => ({ name, format, description })),
  }));

  let loaded = 0;
  api.post<{ Params: { name: string } }>('/samples/:name/load', async (request, reply) => {
    const text = readSample(request.params.name);
    if (!text) {
      return sendProblem(reply, 404, 'HR_ERR_NOT_FOUND', `No sample ${JSON.stringify(request.params.name)}`, {
        samples: SAMPLES.map((sample) => sample.name),
      });
    }
    const log = readSessionLog(await text);
    loaded++;
    const id = `sample-${request.params.name}-${loaded}`;
    // The model and window come from the log, exactly as `headroom replay` would take them.
    const probe = sessionForLog(log, { id });
    let view: ReturnType<typeof store.create>;
    try {
      view = store.create({
        id,
        model: probe.model,
        ...(probe.agent ? { agent: probe.agent as SessionOptions['agent'] } : {}),
        ...(probe.thresholds.limit === undefined ? {} : { contextWindow: probe.thresholds.limit }),
      });
    } catch (error) {
      if (error instanceof HeadroomValidationError) return sendValidationError(reply, error);
      throw error;
    }
    const loadedView = store.batch(view.id, (session, timeline) => {
      replayIntoSession(session, log, (update, index, compaction) => {
        timeline.record(update, index, compaction ? [compaction] : []);
      });
    });
    return reply.code(201).send(loadedView);
  });
}
