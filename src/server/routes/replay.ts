import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { HeadroomValidationError, parseWith } from '../../errors/validation.js';
import { replayLogText } from '../../session/replay.js';
import { LOG_FORMATS } from '../../usage/session-log.js';
import { sendInvalid } from '../problem.js';
import { sendValidationError } from './sessions.js';

export const ReplayQuerySchema = z.strictObject({
  format: z
    .enum(['auto', ...LOG_FORMATS], { error: `must be one of auto, ${LOG_FORMATS.join(', ')}` })
    .optional(),
  model: z.string().min(1).max(200).optional(),
  contextWindow: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of tokens')
    .transform(Number)
    .pipe(z.number().int().min(1))
    .optional(),
});

const EXAMPLE = 'POST /api/v1/replay?format=auto (body: the log file, as text/plain or application/x-ndjson)';

/** `POST /api/v1/replay`: the same replay as `headroom replay --json`, on an uploaded log. */
export function registerReplayRoutes(api: FastifyInstance, bodyLimit: number): void {
  api.register(async (scope) => {
    // The log is text whatever it is labelled: JSON Lines, or one JSON document (OpenHands).
    scope.removeContentTypeParser('application/json');
    for (const type of [
      'application/json',
      'text/plain',
      'application/x-ndjson',
      'application/jsonl',
      'application/octet-stream',
    ]) {
      scope.addContentTypeParser(type, { parseAs: 'string', bodyLimit }, (_request, body, done) =>
        done(null, body),
      );
    }
    scope.post('/replay', { bodyLimit }, async (request, reply) => {
      const query = parseWith(ReplayQuerySchema, request.query ?? {});
      if (!query.ok) return sendInvalid(reply, query.issues, EXAMPLE);
      if (typeof request.body !== 'string' || request.body.trim() === '') {
        return sendInvalid(
          reply,
          [{ field: '(body)', value: null, message: 'must be the text of a session log' }],
          EXAMPLE,
        );
      }
      try {
        return replayLogText(request.body, query.value);
      } catch (error) {
        if (error instanceof HeadroomValidationError) return sendValidationError(reply, error, EXAMPLE);
        throw error;
      }
    });
  });
}
