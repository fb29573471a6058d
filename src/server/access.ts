import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from '../http/problem.js';

/**
 * What a key may do: read (GET, event streams, archives, metrics), write (post usage, compact, reserve and settle
 * pool tokens…), admin (webhooks; creating and deleting pools, which sets what every agent may spend).
 */
export const KEY_SCOPES = ['read', 'write', 'admin'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export interface ApiKey {
  key: string;
  scopes: KeyScope[];
}

/** Each scope grants the ones below it: admin ⊃ write ⊃ read. */
export const SCOPE_GRANTS: Readonly<Record<KeyScope, readonly KeyScope[]>> = {
  read: ['read'],
  write: ['read', 'write'],
  admin: ['read', 'write', 'admin'],
};

/** The shortest key accepted: a guessable key is no key. */
export const MIN_KEY_LENGTH = 16;

/**
 * Reads `BAROMETER_API_KEYS`: entries separated by spaces, commas or semicolons, each `KEY` (every scope) or
 * `KEY:SCOPE[+SCOPE…]`. Returns the keys, or the first problem found (never echoing a key).
 */
export function parseApiKeys(text: string): { ok: true; keys: ApiKey[] } | { ok: false; message: string } {
  const keys: ApiKey[] = [];
  const entries = text.split(/[\s,;]+/).filter(Boolean);
  for (const [index, entry] of entries.entries()) {
    const colon = entry.lastIndexOf(':');
    const key = colon === -1 ? entry : entry.slice(0, colon);
    const scopes = colon === -1 ? ['admin'] : entry.slice(colon + 1).split('+');
    if (key.length < MIN_KEY_LENGTH) {
      return { ok: false, message: `key ${index + 1} is shorter than ${MIN_KEY_LENGTH} characters` };
    }
    const unknown = scopes.find((scope) => !(KEY_SCOPES as readonly string[]).includes(scope));
    if (unknown !== undefined) {
      return {
        ok: false,
        message: `key ${index + 1} has an unknown scope ${JSON.stringify(unknown)} (scopes: ${KEY_SCOPES.join(', ')})`,
      };
    }
    keys.push({ key, scopes: [...new Set(scopes.flatMap((scope) => SCOPE_GRANTS[scope as KeyScope]))] });
  }
  return { ok: true, keys };
}

/** Whether a listen address is reachable only from this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/** The scope a request needs, or null for what is always open (liveness, the dashboard's static files). */
export function scopeFor(method: string, route: string | undefined): KeyScope | null {
  if (route === '/healthz') return null;
  if (
    route === undefined ||
    (!route.startsWith('/api/') && route !== '/metrics' && route !== '/mcp' && route !== '/openapi.json')
  ) {
    return null;
  }
  if (route.startsWith('/api/v1/webhooks')) return 'admin';
  if (
    (method === 'POST' && route === '/api/v1/pools') ||
    (method === 'DELETE' && route === '/api/v1/pools/:id')
  )
    return 'admin';
  if (method === 'GET' || method === 'HEAD') return 'read';
  // The regulator is a pure evaluation: a read.
  if (route === '/api/v1/pressure') return 'read';
  return 'write';
}

function keyOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match) return match[1];
  }
  // EventSource cannot send headers: the event streams (and only they) take the key as `access_token`.
  const route = request.routeOptions.url ?? '';
  if (route.endsWith('/events')) {
    const token = (request.query as Record<string, unknown> | undefined)?.access_token;
    if (typeof token === 'string' && token.length > 0) return token;
  }
  return undefined;
}

function same(given: string, known: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(known);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface AccessOptions {
  keys: readonly ApiKey[];
  /** Origins allowed to call the API from a browser (CORS); `*` allows any. */
  corsOrigins: readonly string[];
}

/**
 * API keys and CORS on an app. With keys, every API route needs `Authorization: Bearer <key>` with the scope the
 * route needs: none given → 401 naming the header; a key without the scope → 403 naming the scope. `/healthz` and
 * the dashboard's files stay open (the dashboard asks for a key when the API answers 401).
 */
export function registerAccess(app: FastifyInstance, options: AccessOptions): void {
  const origins = new Set(options.corsOrigins);
  if (origins.size > 0) {
    app.addHook('onRequest', (request, reply, done) => {
      const origin = request.headers.origin;
      if (typeof origin === 'string' && (origins.has('*') || origins.has(origin))) {
        reply.header('access-control-allow-origin', origins.has('*') ? '*' : origin);
        reply.header('vary', 'Origin');
        reply.header('access-control-expose-headers', 'retry-after');
        if (request.method === 'OPTIONS') {
          reply.header('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
          reply.header('access-control-allow-headers', 'authorization, content-type, x-agent-id');
          reply.header('access-control-max-age', '600');
          reply.code(204).send();
          return;
        }
      }
      done();
    });
  }
  if (options.keys.length === 0) return;
  const keys = options.keys;
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    if (request.method === 'OPTIONS') return done();
    const needed = scopeFor(request.method, request.routeOptions.url);
    if (needed === null) return done();
    const given = keyOf(request);
    if (given === undefined) {
      reply.header('www-authenticate', 'Bearer realm="barometer"');
      sendProblem(
        reply,
        'BR_ERR_UNAUTHORIZED',
        `This service requires an API key: send "Authorization: Bearer <key>" with the "${needed}" scope`,
        { scope: needed },
      );
      return;
    }
    const match = keys.find((candidate) => same(given, candidate.key));
    if (!match) {
      reply.header('www-authenticate', 'Bearer realm="barometer", error="invalid_token"');
      sendProblem(reply, 'BR_ERR_UNAUTHORIZED', 'The API key is not known to this service', {
        scope: needed,
      });
      return;
    }
    if (!match.scopes.includes(needed)) {
      sendProblem(
        reply,
        'BR_ERR_FORBIDDEN',
        `The API key lacks the "${needed}" scope this route needs (it has: ${match.scopes.join(', ')})`,
        { scope: needed },
      );
      return;
    }
    done();
  });
}
