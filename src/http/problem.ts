import type { FastifyReply } from 'fastify';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors/error-catalogue.js';
import { echoValue, type ValidationIssue } from '../errors/validation.js';

/** The body of every 4xx answer: a sentence, a stable code, an example of a good request, and the issues. */
export interface ProblemBody {
  error: string;
  code: ErrorCode;
  example?: string;
  issues?: ValidationIssue[];
  [extra: string]: unknown;
}

/** Sends a 400 whose issues name each bad field, its value and the allowed range. */
export function sendInvalid(reply: FastifyReply, issues: ValidationIssue[], example?: string): FastifyReply {
  const fields = [...new Set(issues.map((issue) => issue.field || '(body)'))].join(', ');
  const body: ProblemBody = {
    error: `Invalid parameters: ${fields}`,
    code: 'BR_ERR_INVALID_PARAM',
    ...(example === undefined ? {} : { example }),
    issues: issues.map((issue) => ({
      ...issue,
      field: issue.field || '(body)',
      value: echoValue(issue.value),
    })),
  };
  return reply.code(ERROR_CATALOGUE.BR_ERR_INVALID_PARAM.status).send(body);
}

/**
 * Sends any other problem, with the HTTP status the error catalogue gives its code. `extra` adds structured
 * fields; it cannot replace `error` or `code` (the keys stay first in the body).
 */
export function sendProblem(
  reply: FastifyReply,
  code: ErrorCode,
  error: string,
  extra: Readonly<Record<string, unknown>> = {},
): FastifyReply {
  const body: ProblemBody = Object.assign({ error, code }, extra, { error, code });
  return reply.code(ERROR_CATALOGUE[code].status).send(body);
}
