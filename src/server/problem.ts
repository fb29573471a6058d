import type { FastifyReply } from 'fastify';
import type { ErrorCode } from '../errors/codes.js';
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
    code: 'HR_ERR_INVALID_PARAM',
    ...(example === undefined ? {} : { example }),
    issues: issues.map((issue) => ({
      ...issue,
      field: issue.field || '(body)',
      value: echoValue(issue.value),
    })),
  };
  return reply.code(400).send(body);
}

/** Sends any other problem with its status. */
export function sendProblem(
  reply: FastifyReply,
  status: number,
  code: ErrorCode,
  error: string,
  extra: Record<string, unknown> = {},
): FastifyReply {
  return reply.code(status).send({ error, code, ...extra } satisfies ProblemBody);
}
