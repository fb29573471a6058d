import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { z } from 'zod';

/** A JSON answer: the contract schema it satisfies (src/contract). */
export interface JsonResponse {
  description: string;
  schema: z.ZodType;
  /** Another content type the same status may answer with, as text (the archive route's `?item=`). */
  alternativeContentType?: string;
}

/** An answer that is not JSON: text, bytes, or an event stream whose messages are typed by event name. */
export interface OtherResponse {
  description: string;
  contentType: string;
  /** For `text/event-stream`: the schema of each message's data, by event name. */
  messages?: Readonly<Record<string, z.ZodType>>;
}

/** An answer without a body (204, 202). */
export interface EmptyResponse {
  description: string;
  empty: true;
}

/** A success answer must say what it holds: a schema, a content type, or no body at all. */
export type SuccessResponse = JsonResponse | OtherResponse | EmptyResponse;

/** An error answer: the contract's Problem body, unless the route names another schema. */
export interface ErrorResponse {
  description: string;
  schema?: z.ZodType;
}

/**
 * A route's answers by status. A 2xx answer without a schema (or a content type, or `empty: true`) does not type
 * check, and registering one throws: every answer is in the contract.
 */
export interface RouteResponses {
  [status: `2${string}`]: SuccessResponse;
  [status: `4${string}`]: ErrorResponse;
  [status: `5${string}`]: ErrorResponse;
}

/** One HTTP route: what registers it with Fastify and what documents it in /openapi.json, in one place. */
export interface ApiRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** Fastify's form: `/api/v1/sessions/:id`. */
  url: string;
  summary: string;
  /**
   * Which encapsulated scope registers it: `json` (the API's JSON parser), `text` (raw text bodies), `raw` (bodies
   * as bytes, any content type: the proxy's), `root`.
   */
  scope: 'json' | 'text' | 'raw' | 'root';
  params?: z.ZodType;
  query?: z.ZodType;
  /** Query parameters documented by hand (the pressure route's, with the seed's ranges). */
  queryParameters?: Array<Record<string, unknown>>;
  body?: z.ZodType;
  /** A body that is not JSON (the replay route's log text). */
  textBody?: string;
  responses: RouteResponses;
  /**
   * Why a route never answers 2xx (GET and DELETE /mcp: a stateless MCP server answers 405, as the MCP
   * specification says): it has no success answer to type.
   */
  unserved?: string;
  options?: RouteShorthandOptions;
  handler: (request: FastifyRequest, reply: FastifyReply) => unknown;
}

/** Whether a status is a success (2xx). */
export function isSuccessStatus(status: string): boolean {
  return status.startsWith('2');
}

/** The JSON schema of an answer, when it has one. */
export function responseSchema(response: SuccessResponse | ErrorResponse): z.ZodType | undefined {
  return 'schema' in response ? response.schema : undefined;
}

/**
 * Checks that every success answer of a route says what it holds (the type says so too; this catches a table built
 * around the types).
 * @throws Error naming the route and the status
 */
export function assertTypedResponses(
  route: Pick<ApiRoute, 'method' | 'url' | 'responses' | 'unserved'>,
): void {
  const entries = Object.entries(route.responses) as Array<[string, SuccessResponse | ErrorResponse]>;
  if (!entries.some(([status]) => isSuccessStatus(status)) && route.unserved === undefined)
    throw new Error(
      `${route.method} ${route.url} documents no success answer (nor why it has none: unserved)`,
    );
  for (const [status, response] of entries) {
    if (!isSuccessStatus(status)) continue;
    const typed = 'schema' in response || 'contentType' in response || 'empty' in response;
    if (!typed)
      throw new Error(
        `${route.method} ${route.url} answers ${status} without a schema: declare its contract schema (src/contract), its content type, or empty: true`,
      );
  }
}

/** Registers the routes of one scope. @throws Error for a route whose success answer has no schema */
export function registerRoutes(
  scope: FastifyInstance,
  routes: readonly ApiRoute[],
  which: ApiRoute['scope'],
): void {
  for (const route of routes) {
    if (route.scope !== which) continue;
    assertTypedResponses(route);
    scope.route({
      method: route.method,
      url: route.url,
      ...(route.options ?? {}),
      handler: route.handler as never,
    });
  }
}

/** `/api/v1/sessions/:id` → `/api/v1/sessions/{id}`. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
