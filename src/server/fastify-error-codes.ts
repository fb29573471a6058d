import type { ErrorCode } from '../errors/error-catalogue.js';

/**
 * The errors of Fastify 5 (node_modules/fastify/lib/errors.js) that a client can cause, and the barometer code
 * each is answered with. Every other `FST_ERR_*` code has status 500 and is either thrown while the app is built
 * (routes, hooks, decorators, plugins, logger, listen options) or means a bug in a route (an invalid payload, a
 * bad status code, a reply sent twice): those are answered BR_ERR_INTERNAL. fastify-error-codes.test.ts walks
 * the installed Fastify's `errorCodes`, so an upgrade that adds a client-caused code fails until it is listed.
 * The plugins in use add none: @fastify/rate-limit throws what our `errorResponseBuilder` returns, and
 * @fastify/static sends http-errors without a code (see {@link codeOfStatus}).
 */
export const FASTIFY_ERROR_CODES = {
  /** 415: no parser for the request's content type (handle-request.js). */
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'BR_ERR_UNSUPPORTED_MEDIA_TYPE',
  /** 400: a QUERY request without a content type (only routes with method QUERY; barometer has none). */
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: 'BR_ERR_UNSUPPORTED_MEDIA_TYPE',
  /** 413: the body is larger than the route's or the parser's bodyLimit. */
  FST_ERR_CTP_BODY_TOO_LARGE: 'BR_ERR_BODY_TOO_LARGE',
  /** 400: the body's length differs from its Content-Length. */
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BR_ERR_BAD_REQUEST',
  /** 400: Fastify's JSON parser (the API's, json-body.ts, is Fastify's own with `__proto__` keys kept). */
  FST_ERR_CTP_EMPTY_JSON_BODY: 'BR_ERR_MALFORMED_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'BR_ERR_MALFORMED_JSON',
  /**
   * 400: Fastify's schema validation. The route table's validators (route-table.ts) answer a BarometerValidationError
   * of their own, which keeps its code and issues; kept for a validator that answers false.
   */
  FST_ERR_VALIDATION: 'BR_ERR_INVALID_PARAM',
  /** 400: declared by Fastify 5, raised by none of its code today. */
  FST_ERR_ROUTE_MISSING_CONTENT: 'BR_ERR_INVALID_PARAM',
  /** 404: the router's fallback when no not-found handler caught a request. */
  FST_ERR_NOT_FOUND: 'BR_ERR_NOT_FOUND',
  /** 400: a path that does not percent-decode (a framework error: reaches the handler via `frameworkErrors`). */
  FST_ERR_BAD_URL: 'BR_ERR_BAD_REQUEST',
  /**
   * 414: a path parameter longer than the router's maxParamLength (a framework error). An id is a parameter:
   * a 400 that names the path, as for any id longer than the id rule allows.
   */
  FST_ERR_MAX_PARAM_LENGTH: 'BR_ERR_INVALID_PARAM',
  /** 503: a route's handlerTimeout ran out (barometer sets none; kept for safety). */
  FST_ERR_HANDLER_TIMEOUT: 'BR_ERR_UNAVAILABLE',
} as const satisfies Record<`FST_ERR_${string}`, ErrorCode>;

/**
 * Fastify codes with a status other than 500 that no request can cause: they are thrown while routes and
 * parsers are registered. Listed so that the test can tell them from a new client-caused code.
 */
export const FASTIFY_SETUP_CODES_WITH_CLIENT_STATUS = [
  /** 400: a content-type parser added after start. */
  'FST_ERR_CTP_INSTANCE_ALREADY_STARTED',
  /** 400: a route registered with a URL that is not a string. */
  'FST_ERR_INVALID_URL',
] as const;

/**
 * The code of an error that carries an HTTP status but no code: the http-errors that @fastify/static's `send`
 * passes to the error handler (412 If-Match failed, 416 Range outside the file, 400/403 for paths it refuses,
 * which cannot occur with one route per built file). A 403 is answered as not found: the dashboard serves its
 * files and nothing else. Any other 4xx is a bad request; anything else, a fault.
 */
export function codeOfStatus(status: unknown): ErrorCode {
  if (typeof status !== 'number' || status < 400 || status >= 500) return 'BR_ERR_INTERNAL';
  switch (status) {
    case 403:
    case 404:
      return 'BR_ERR_NOT_FOUND';
    case 405:
      return 'BR_ERR_METHOD_NOT_ALLOWED';
    case 408:
      return 'BR_ERR_REQUEST_TIMEOUT';
    case 412:
      return 'BR_ERR_PRECONDITION_FAILED';
    case 413:
      return 'BR_ERR_BODY_TOO_LARGE';
    case 415:
      return 'BR_ERR_UNSUPPORTED_MEDIA_TYPE';
    case 416:
      return 'BR_ERR_RANGE_NOT_SATISFIABLE';
    case 429:
      return 'BR_ERR_RATE_LIMITED';
    case 431:
      return 'BR_ERR_HEADERS_TOO_LARGE';
    default:
      return 'BR_ERR_BAD_REQUEST';
  }
}
