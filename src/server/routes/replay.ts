import { z } from 'zod';
import { parseWith } from '../../errors/validation.js';
import { replayLogText } from '../../session/replay.js';
import { LOG_FORMATS } from '../../usage/session-log.js';
import { sendInvalid } from '../problem.js';
import type { ApiRoute } from '../route-table.js';

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
export function replayRoutes(bodyLimit: number): ApiRoute[] {
  return [
    {
      method: 'POST',
      url: '/api/v1/replay',
      scope: 'text',
      summary: 'Replay a recorded agent session log (body: the log as text)',
      query: ReplayQuerySchema,
      textBody: 'The log file: JSON Lines, or one JSON document (OpenHands)',
      responses: { '200': { description: '{ format, model, contextWindow, calls, compactions, summary }' } },
      options: { bodyLimit },
      handler: async (request, reply) => {
        const query = parseWith(ReplayQuerySchema, request.query ?? {});
        if (!query.ok) return sendInvalid(reply, query.issues, EXAMPLE);
        if (typeof request.body !== 'string' || request.body.trim() === '') {
          return sendInvalid(
            reply,
            [{ field: '(body)', value: null, message: 'must be the text of a session log' }],
            EXAMPLE,
          );
        }
        return replayLogText(request.body, query.value);
      },
    },
  ];
}

/** The content types the replay route reads as text. */
export const REPLAY_CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'application/x-ndjson',
  'application/jsonl',
  'application/octet-stream',
] as const;
