import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from '../http/problem.js';

/** A registered route as the onRoute hook saw it. */
export interface RegisteredRoute {
  method: string;
  url: string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `/api/v1/sessions/:id/usage` → a pattern that matches a concrete path of that route. */
function patternOf(url: string): RegExp {
  const segments = url.split('/').map((segment) => {
    if (segment === '*') return '.*';
    if (segment.startsWith(':')) return '[^/]+';
    return escapeRegExp(segment);
  });
  return new RegExp(`^${segments.join('/')}$`);
}

/**
 * The methods registered for a concrete path, to tell a wrong method (405 with `Allow`) from an unknown route
 * (404). Fastify's router answers both with its not-found handler; the route list is read once, at the first
 * miss, when every route is registered.
 */
export function allowedMethodsFinder(registered: readonly RegisteredRoute[]): (path: string) => string[] {
  let table: Array<{ pattern: RegExp; method: string }> | undefined;
  return (path) => {
    table ??= registered.map((route) => ({ pattern: patternOf(route.url), method: route.method }));
    const methods = new Set<string>();
    for (const route of table) if (route.pattern.test(path)) methods.add(route.method);
    return [...methods].sort();
  };
}

/** The not-found handler: 405 BR_ERR_METHOD_NOT_ALLOWED with `Allow` for a known path, else 404. */
export function buildNotFoundHandler(registered: readonly RegisteredRoute[]) {
  const allowedMethods = allowedMethodsFinder(registered);
  return function handleNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const url = request.raw.url ?? request.url;
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const allowed = allowedMethods(path);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(
        reply,
        'BR_ERR_METHOD_NOT_ALLOWED',
        `Method ${request.method} is not allowed on ${path}: use ${allowed.join(', ')}`,
        { allowed },
      );
    }
    return sendProblem(reply, 'BR_ERR_NOT_FOUND', `No route ${request.method} ${path}`);
  };
}
