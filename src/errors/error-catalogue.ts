/**
 * The exit codes of the `barometer` CLI, one per kind of failure, so that a script can tell "fix your input" from
 * "nothing there" from "the data is damaged" from "try again later" without reading stderr.
 */
export const EXIT_CODES = {
  /** The command did what was asked. */
  ok: 0,
  /** An unexpected fault in barometer (a bug, or the system refused: disk full, permission denied). */
  internal: 1,
  /** The input is wrong: a flag, an argument, a file's content, a request. Fix it and run again. */
  invalidInput: 2,
  /** What the command names does not exist: a session, an archive or an item in it, an artifact. */
  notFound: 3,
  /** Stored bytes do not match their hash or cannot be read whole: the data is damaged. */
  integrity: 4,
  /** The input is valid but the current state refuses it: a compaction that saves too little, an id in use. */
  refused: 5,
  /** A limit or the server's state says "not now": rate limits, full stores, timeouts, shutdown. Retry later. */
  unavailable: 6,
} as const;

/** One entry of the catalogue: what the code means, and how the HTTP service and the CLI answer it. */
export interface ErrorCatalogueEntry {
  /** The HTTP status of an answer carrying this code. */
  readonly status: number;
  /** The exit code of the CLI when a command fails with this code. */
  readonly exit: (typeof EXIT_CODES)[keyof typeof EXIT_CODES];
  /** One line: what happened. docs/errors.md adds what to do about it. */
  readonly meaning: string;
}

/**
 * Every machine code barometer answers with, its HTTP status, its CLI exit code and its meaning: the one table
 * that the server, the CLI and docs/errors.md read (errors/error-catalogue.test.ts checks the document against
 * it both ways, and that every `BR_ERR_*` literal in the sources is listed here).
 */
export const ERROR_CATALOGUE = {
  BR_ERR_INVALID_PARAM: {
    status: 400,
    exit: EXIT_CODES.invalidInput,
    meaning: 'A parameter is missing, of the wrong type, out of range or unknown.',
  },
  BR_ERR_MALFORMED_JSON: {
    status: 400,
    exit: EXIT_CODES.invalidInput,
    meaning: 'The request body is not valid JSON, or is empty under a JSON content type.',
  },
  BR_ERR_BAD_REQUEST: {
    status: 400,
    exit: EXIT_CODES.invalidInput,
    meaning:
      'The request cannot be read as sent: malformed HTTP, a URL that does not decode, or a body that does not match its Content-Length.',
  },
  BR_ERR_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    exit: EXIT_CODES.invalidInput,
    meaning: 'The request body has a content type the route does not read.',
  },
  BR_ERR_BODY_TOO_LARGE: {
    status: 413,
    exit: EXIT_CODES.invalidInput,
    meaning: 'The request body is larger than the configured limit.',
  },
  BR_ERR_HEADERS_TOO_LARGE: {
    status: 431,
    exit: EXIT_CODES.invalidInput,
    meaning: 'The request line and headers are larger than the HTTP server accepts.',
  },
  BR_ERR_METHOD_NOT_ALLOWED: {
    status: 405,
    exit: EXIT_CODES.invalidInput,
    meaning: 'The route exists, but not for this method; the Allow header lists the methods it takes.',
  },
  BR_ERR_RANGE_NOT_SATISFIABLE: {
    status: 416,
    exit: EXIT_CODES.invalidInput,
    meaning: 'A dashboard file was asked for with a Range that lies outside it.',
  },
  BR_ERR_PRECONDITION_FAILED: {
    status: 412,
    exit: EXIT_CODES.refused,
    meaning: 'A conditional request (If-Match, If-Unmodified-Since) for a dashboard file did not hold.',
  },
  BR_ERR_UNAUTHORIZED: {
    status: 401,
    exit: EXIT_CODES.invalidInput,
    meaning: 'The service requires an API key and the request carries none, or one it does not know.',
  },
  BR_ERR_FORBIDDEN: {
    status: 403,
    exit: EXIT_CODES.invalidInput,
    meaning: 'The API key lacks the scope (read, write, admin) the route needs.',
  },
  BR_ERR_FORBIDDEN_HOST: {
    status: 403,
    exit: EXIT_CODES.invalidInput,
    meaning:
      'The Host header names another site (DNS-rebinding protection), or a browser request that changes state comes from an origin that is not allowed.',
  },
  BR_ERR_NOT_FOUND: {
    status: 404,
    exit: EXIT_CODES.notFound,
    meaning: 'No such route or resource.',
  },
  BR_ERR_SESSION_NOT_FOUND: {
    status: 404,
    exit: EXIT_CODES.notFound,
    meaning: 'No session with that id.',
  },
  BR_ERR_ARCHIVE_NOT_FOUND: {
    status: 404,
    exit: EXIT_CODES.notFound,
    meaning: 'No archive for that session and task, or no such item in it.',
  },
  BR_ERR_ARTIFACT_NOT_FOUND: {
    status: 404,
    exit: EXIT_CODES.notFound,
    meaning: 'No artifact with that id.',
  },
  BR_ERR_POOL_NOT_FOUND: {
    status: 404,
    exit: EXIT_CODES.notFound,
    meaning: 'No pool with that id.',
  },
  BR_ERR_RESERVATION_NOT_FOUND: {
    status: 404,
    exit: EXIT_CODES.notFound,
    meaning: 'No reservation with that id in that pool (or it was forgotten a day after it ended).',
  },
  BR_ERR_POOL_EXISTS: {
    status: 409,
    exit: EXIT_CODES.refused,
    meaning: 'A pool with that id already exists.',
  },
  BR_ERR_SESSION_EXISTS: {
    status: 409,
    exit: EXIT_CODES.refused,
    meaning: 'A session with that id already exists.',
  },
  BR_ERR_DATA_DIR_LOCKED: {
    status: 409,
    exit: EXIT_CODES.refused,
    meaning:
      'Another running process holds the data dir (its lock file names it); one process writes a data dir at a time.',
  },
  BR_ERR_ARTIFACT_TOO_LARGE: {
    status: 413,
    exit: EXIT_CODES.invalidInput,
    meaning: 'The artifact is larger than the registry allows.',
  },
  BR_ERR_COMPACTION_REFUSED: {
    status: 422,
    exit: EXIT_CODES.refused,
    meaning: 'The compaction would not make the context smaller by the minimum gain; nothing was written.',
  },
  BR_ERR_INTEGRITY: {
    status: 500,
    exit: EXIT_CODES.integrity,
    meaning: 'Stored content does not match its hash, or the record asked for may lie in damaged bytes.',
  },
  BR_ERR_RATE_LIMITED: {
    status: 429,
    exit: EXIT_CODES.unavailable,
    meaning: 'Too many requests from one client IP in the current minute.',
  },
  BR_ERR_POOL_EXHAUSTED: {
    status: 429,
    exit: EXIT_CODES.unavailable,
    meaning:
      "A pool refused a reservation: it would take the pool over this priority's ceiling of a limit; the answer says why and when to retry.",
  },
  BR_ERR_TOO_MANY_CONCURRENT: {
    status: 429,
    exit: EXIT_CODES.unavailable,
    meaning: 'Too many evaluations in flight for one agent (x-agent-id).',
  },
  BR_ERR_REQUEST_TIMEOUT: {
    status: 408,
    exit: EXIT_CODES.unavailable,
    meaning: 'The request headers and body did not all arrive within the request timeout.',
  },
  BR_ERR_SESSION_LIMIT: {
    status: 503,
    exit: EXIT_CODES.unavailable,
    meaning: 'The session store holds its maximum; creating one more is refused, never done by dropping one.',
  },
  BR_ERR_TOO_MANY_STREAMS: {
    status: 503,
    exit: EXIT_CODES.unavailable,
    meaning: 'Too many event-stream clients are connected.',
  },
  BR_ERR_UNAVAILABLE: {
    status: 503,
    exit: EXIT_CODES.unavailable,
    meaning:
      'The server cannot serve the request now (it is shutting down), or, for a CLI command that talks to a service, no barometer service answers at its URL; retry, here later or elsewhere.',
  },
  BR_ERR_UPSTREAM_UNREACHABLE: {
    status: 502,
    exit: EXIT_CODES.unavailable,
    meaning:
      'The proxy could not reach the provider it forwards to (refused, unknown host, reset or closed before an answer, or no answer within its headers timeout); the request was not answered by the provider.',
  },
  BR_ERR_PORT_IN_USE: {
    status: 503,
    exit: EXIT_CODES.unavailable,
    meaning:
      'The address and port a service was told to listen on are taken by another process; nothing was started.',
  },
  BR_ERR_STORE_UNAVAILABLE: {
    status: 503,
    exit: EXIT_CODES.unavailable,
    meaning:
      "The store did not answer (the shared Redis, or the data dir's database could not be read or written), or an update kept conflicting with other instances; nothing was applied.",
  },
  BR_ERR_INTERNAL: {
    status: 500,
    exit: EXIT_CODES.internal,
    meaning: 'An unexpected fault; the answer carries a request id that finds the details in the server log.',
  },
} as const satisfies Record<`BR_ERR_${string}`, ErrorCatalogueEntry>;

/** A machine code of the catalogue. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** Every code of the catalogue, in its order. */
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as readonly ErrorCode[] as readonly [
  ErrorCode,
  ...ErrorCode[],
];

/** Whether a value is a code of the catalogue (an error thrown by a dependency may carry any `code`). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CATALOGUE, value);
}
