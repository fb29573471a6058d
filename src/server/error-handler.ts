import type { FastifyReply, FastifyRequest } from 'fastify';
import { BarometerError } from '../errors/barometer-error.js';
import { ERROR_CATALOGUE, type ErrorCode, isErrorCode } from '../errors/error-catalogue.js';
import { BarometerValidationError } from '../errors/validation.js';
import { sendInvalid, sendProblem } from '../http/problem.js';
import { codeOfStatus, FASTIFY_ERROR_CODES } from './fastify-error-codes.js';

/** What the error handler needs to know of the route a failed request was for. */
export interface RouteBodyRules {
  /** The content types the route reads. */
  contentTypes: readonly string[];
  /** The largest body the route reads, in bytes. */
  bodyLimitBytes: number;
}

/** Seed 000's `error` for a fault; `code`, `message` and `requestId` are barometer's. */
export const INTERNAL_ERROR_TITLE = 'Failed to evaluate request';

/** Something thrown: an Error, or what a plugin threw (e.g. @fastify/rate-limit's error builder's object). */
type Thrown = {
  code?: unknown;
  message?: unknown;
  statusCode?: unknown;
  status?: unknown;
  validationContext?: unknown;
};

/** The catalogue code an error is answered with: its own, Fastify's mapped, its status's, or BR_ERR_INTERNAL. */
export function codeOfError(error: unknown): ErrorCode {
  if (error instanceof BarometerError) return error.code;
  const thrown = (error ?? {}) as Thrown;
  if (isErrorCode(thrown.code)) return thrown.code;
  if (typeof thrown.code === 'string' && Object.hasOwn(FASTIFY_ERROR_CODES, thrown.code)) {
    return FASTIFY_ERROR_CODES[thrown.code as keyof typeof FASTIFY_ERROR_CODES];
  }
  // Only an error without a code of its own is answered by its status: http-errors (@fastify/static). An
  // unknown code (a Node errno, an unlisted FST_ERR_*) says nothing a client may be told.
  if (thrown.code === undefined) return codeOfStatus(thrown.statusCode ?? thrown.status);
  return 'BR_ERR_INTERNAL';
}

/**
 * Seed 000's shape for a fault, `{ error, message }`, plus the code and the request id that finds the details in
 * the server log. The message never echoes the error's own: it may hold paths or another request's data.
 */
export function sendInternalError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
): FastifyReply {
  request.log.error({ err: error, reqId: request.id, url: request.url }, 'request failed');
  return reply.code(ERROR_CATALOGUE.BR_ERR_INTERNAL.status).send({
    error: INTERNAL_ERROR_TITLE,
    code: 'BR_ERR_INTERNAL',
    message: `An unexpected error occurred; the server log has its details under request id ${request.id}`,
    requestId: request.id,
  });
}

function pathOf(request: FastifyRequest): string {
  const url = request.raw.url ?? request.url;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The error handler of the service (also Fastify's `frameworkErrors`): every answer carries a code of the error
 * catalogue with the catalogue's status; nothing Fastify-internal (`FST_ERR_*`, its messages) reaches a client.
 */
export function buildErrorHandler(rulesFor: (request: FastifyRequest) => RouteBodyRules) {
  return function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const code = codeOfError(error);
    const thrown = (error ?? {}) as Thrown;
    if (code === 'BR_ERR_INTERNAL') return sendInternalError(request, reply, error);
    if (error instanceof BarometerError) {
      if (code === 'BR_ERR_INVALID_PARAM' && error.issues.length > 0) {
        // A request part refused by its route's validator (route-table.ts) shows the route's example.
        const example = error instanceof BarometerValidationError ? error.example : undefined;
        return sendInvalid(reply, error.issues, example);
      }
      if (ERROR_CATALOGUE[code].status >= 500) {
        request.log.error({ err: error, reqId: request.id, url: request.url }, 'request failed');
      }
      return sendProblem(reply, code, error.message, {
        ...(error.issues.length > 0 ? { issues: error.issues } : {}),
        ...error.details,
      });
    }
    const fastifyCode = typeof thrown.code === 'string' ? thrown.code : undefined;
    switch (code) {
      case 'BR_ERR_RATE_LIMITED':
        // The message is barometer's when the error carries the code (an error builder's object), else a library's.
        return sendProblem(
          reply,
          code,
          isErrorCode(thrown.code) ? String(thrown.message) : ERROR_CATALOGUE[code].meaning,
          {
            limit: 'requests_per_minute_per_ip',
          },
        );
      case 'BR_ERR_MALFORMED_JSON': {
        // Fastify's parser's message, with JSON.parse's where it breaks (json-body.ts); no data of the server.
        const message = String(thrown.message ?? 'Body is not valid JSON');
        return sendProblem(reply, code, `Malformed JSON body: ${message}`, {
          issues: [{ field: '(body)', value: null, message }],
        });
      }
      case 'BR_ERR_UNSUPPORTED_MEDIA_TYPE': {
        const given = request.headers['content-type'] ?? null;
        const accepted = rulesFor(request).contentTypes;
        return sendProblem(
          reply,
          code,
          given === null
            ? `A request body needs a content type: send ${accepted.join(' or ')}`
            : `Unsupported content type ${JSON.stringify(given)}: send ${accepted.join(' or ')}`,
          {
            issues: [
              {
                field: 'content-type',
                value: given,
                message: `must be ${accepted.length === 1 ? accepted[0] : `one of ${accepted.join(', ')}`}`,
                allowed: { values: accepted },
              },
            ],
          },
        );
      }
      case 'BR_ERR_BODY_TOO_LARGE': {
        const limitBytes = rulesFor(request).bodyLimitBytes;
        return sendProblem(reply, code, `Request body larger than the limit of ${limitBytes} bytes`, {
          limitBytes,
        });
      }
      case 'BR_ERR_INVALID_PARAM':
        return sendInvalid(reply, [
          fastifyCode === 'FST_ERR_MAX_PARAM_LENGTH'
            ? {
                field: '(path)',
                value: pathOf(request),
                message: 'a path segment is longer than the router accepts (ids are at most 128 characters)',
              }
            : {
                field: typeof thrown.validationContext === 'string' ? thrown.validationContext : '(request)',
                value: null,
                message: 'is not valid for this route',
              },
        ]);
      case 'BR_ERR_BAD_REQUEST':
        return sendProblem(
          reply,
          code,
          fastifyCode === 'FST_ERR_BAD_URL'
            ? `The path ${JSON.stringify(pathOf(request))} does not decode: malformed percent-encoding`
            : fastifyCode === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH'
              ? 'The request body does not match its Content-Length'
              : ERROR_CATALOGUE[code].meaning,
        );
      case 'BR_ERR_NOT_FOUND':
        return sendProblem(reply, code, `No route ${request.method} ${pathOf(request)}`);
      default:
        // A code a plugin or a library chose (http-errors): the catalogue's sentence, never the library's text.
        if (ERROR_CATALOGUE[code].status >= 500) {
          request.log.error({ err: error, reqId: request.id, url: request.url }, 'request failed');
        }
        return sendProblem(reply, code, ERROR_CATALOGUE[code].meaning);
    }
  };
}
