/**
 * Every machine code headroom answers with, in one place. docs/errors.md lists the same codes;
 * errors/codes.test.ts checks that the two agree.
 */
export const ERROR_CODES = {
  HR_ERR_INVALID_PARAM: 'A parameter is missing, of the wrong type, out of range or unknown.',
  HR_ERR_MALFORMED_JSON: 'The request body is not valid JSON.',
  HR_ERR_UNSUPPORTED_MEDIA_TYPE: 'The request body has a content type other than application/json.',
  HR_ERR_BODY_TOO_LARGE: 'The request body is larger than the configured limit.',
  HR_ERR_RATE_LIMITED: 'Too many requests from one client IP in the current minute.',
  HR_ERR_TOO_MANY_CONCURRENT: 'Too many evaluations in flight for one agent (x-agent-id).',
  HR_ERR_NOT_FOUND: 'No such route or resource.',
  HR_ERR_FORBIDDEN_HOST:
    'The Host or Origin header of an /mcp request names another site (DNS-rebinding protection).',
  HR_ERR_SESSION_NOT_FOUND: 'No session with that id.',
  HR_ERR_SESSION_EXISTS: 'A session with that id already exists.',
  HR_ERR_SESSION_LIMIT:
    'The session store holds its maximum; creating one more is refused, never done by dropping one.',
  HR_ERR_TOO_MANY_STREAMS: 'Too many event-stream clients are connected.',
  HR_ERR_UNKNOWN_MODEL: 'The model is not in the registry and no context window was given.',
  HR_ERR_USAGE_UNAVAILABLE: 'The provider response carries no usage figures.',
  HR_ERR_ARCHIVE_NOT_FOUND: 'No archive for that session and task.',
  HR_ERR_ARTIFACT_NOT_FOUND: 'No artifact with that id.',
  HR_ERR_ARTIFACT_TOO_LARGE: 'The artifact is larger than the registry allows.',
  HR_ERR_INTEGRITY: 'Stored content does not match its hash.',
  HR_ERR_COMPACTION_REFUSED: 'The compaction would not make the context smaller.',
  HR_ERR_INTERNAL: 'An unexpected fault; the message says what failed.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
