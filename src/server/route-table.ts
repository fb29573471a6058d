import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { z } from 'zod';

/** A response of a route: its description and, for JSON bodies, the schema it satisfies. */
export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
  /** For bodies that are not JSON (text/plain, text/event-stream, octet-stream). */
  contentType?: string;
}

/** One HTTP route: what registers it with Fastify and what documents it in /openapi.json, in one place. */
export interface ApiRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** Fastify's form: `/api/v1/sessions/:id`. */
  url: string;
  summary: string;
  /** Which encapsulated scope registers it: `json` (the API's JSON parser), `text` (raw text bodies), `root`. */
  scope: 'json' | 'text' | 'root';
  params?: z.ZodType;
  query?: z.ZodType;
  /** Query parameters documented by hand (the pressure route's, with the seed's ranges). */
  queryParameters?: Array<Record<string, unknown>>;
  body?: z.ZodType;
  /** A body that is not JSON (the replay route's log text). */
  textBody?: string;
  responses: Record<string, RouteResponse>;
  options?: RouteShorthandOptions;
  handler: (request: FastifyRequest, reply: FastifyReply) => unknown;
}

/** Registers the routes of one scope. */
export function registerRoutes(
  scope: FastifyInstance,
  routes: readonly ApiRoute[],
  which: ApiRoute['scope'],
): void {
  for (const route of routes) {
    if (route.scope !== which) continue;
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
