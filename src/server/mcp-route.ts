import type { FastifyReply, FastifyRequest } from 'fastify';
import { McpErrorAnswerSchema, McpMessageSchema, McpResponseSchema } from '../contract/service.js';
import { createBarometerMcpServer } from '../mcp/create-mcp-server.js';
import type { SessionMonitor } from '../session/session-monitor.js';
import type { ArchiveStore } from '../store/archive.js';
import { StreamableHTTPServerTransport } from '../vendor/mcp-sdk-http.js';
import type { ApiRoute } from './route-table.js';

/** The hostnames every local client uses; the listen host is added to them. */
const LOCALHOST_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * The hostnames a request to `/mcp` may name in its Host (and Origin) header: the listen host (unless it is a
 * wildcard address), the localhost variants, and the ones configured (`mcpAllowedHosts`). Port-agnostic, as the
 * SDK's own `hostHeaderValidation` middleware is; the port is checked against the socket the request came in on.
 */
export function mcpAllowedHostnames(listenHost: string, extra: readonly string[] = []): Set<string> {
  const names = new Set(LOCALHOST_NAMES);
  const host = listenHost.toLowerCase();
  if (!WILDCARD_HOSTS.has(host)) names.add(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
  for (const name of extra) names.add(name.toLowerCase());
  return names;
}

/** The hostname and port of a Host header or an Origin, as the URL parser reads them; undefined if malformed. */
function hostOf(text: string, withScheme: boolean): { hostname: string; port: string } | undefined {
  try {
    const url = new URL(withScheme ? text : `http://${text}`);
    if (!withScheme && (url.pathname !== '/' || url.search || url.username)) return undefined;
    return { hostname: url.hostname, port: url.port };
  } catch {
    return undefined;
  }
}

/**
 * DNS-rebinding protection for `/mcp` (the MCP specification's transport security; the SDK documents Host
 * validation): a page on another site that rebinds its name to 127.0.0.1 sends its own name in Host and Origin,
 * so both must name this service. A request without Origin (every non-browser client) is checked by Host alone.
 */
export function checkMcpHost(
  headers: { host?: string | undefined; origin?: string | undefined },
  allowed: ReadonlySet<string>,
  localPort?: number,
): { ok: true } | { ok: false; reason: string } {
  if (!headers.host) return { ok: false, reason: 'Missing Host header' };
  const host = hostOf(headers.host, false);
  if (!host) return { ok: false, reason: `Invalid Host header: ${JSON.stringify(headers.host)}` };
  if (!allowed.has(host.hostname)) return { ok: false, reason: `Host not allowed: ${host.hostname}` };
  // A port other than the one the request came in on names some other service (URL drops a scheme's default).
  if (host.port !== '' && localPort !== undefined && Number(host.port) !== localPort)
    return { ok: false, reason: `Host port ${host.port} is not this service's (${localPort})` };
  if (headers.origin !== undefined) {
    const origin = hostOf(headers.origin, true);
    if (!origin || !allowed.has(origin.hostname))
      return { ok: false, reason: `Origin not allowed: ${JSON.stringify(headers.origin)}` };
  }
  return { ok: true };
}

/** A JSON-RPC error answer, the shape MCP clients read, with barometer's code in `data`. */
function jsonRpcError(message: string, data?: Record<string, unknown>) {
  return { jsonrpc: '2.0', error: { code: -32000, message, ...(data ? { data } : {}) }, id: null };
}

export interface McpRouteOptions {
  monitor: SessionMonitor;
  archive: ArchiveStore;
  now: () => number;
  /** Hostnames allowed in Host and Origin (see {@link mcpAllowedHostnames}). */
  allowedHostnames: ReadonlySet<string>;
}

/**
 * The Host/Origin check as a route hook: it runs before the body is read, so a request from another site is
 * refused with 403 whatever its body (malformed or oversized bodies included), for every method.
 */
function hostGuard(allowed: ReadonlySet<string>) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const origin = request.headers.origin;
    const check = checkMcpHost(
      { host: request.headers.host, origin: Array.isArray(origin) ? origin[0] : origin },
      allowed,
      request.socket?.localPort,
    );
    if (check.ok) return done();
    reply.code(403).send(jsonRpcError(check.reason, { code: 'BR_ERR_FORBIDDEN_HOST' }));
  };
}

/**
 * `/mcp`: the MCP server over Streamable HTTP, stateless: each POST gets a fresh server and transport (the SDK's
 * stateless mode; no `Mcp-Session-Id`) over the app's one monitor, so a session created over HTTP is visible to
 * the tools and the other way round. Answers are JSON (`enableJsonResponse`): no tool streams. GET (a server
 * stream) and DELETE (ending a session) have nothing to serve without sessions: 405, as the SDK's stateless
 * example answers.
 */
export function mcpRoutes(options: McpRouteOptions): ApiRoute[] {
  const notAllowed = {
    '403': {
      description: 'Host or Origin header names another site (DNS-rebinding protection)',
      schema: McpErrorAnswerSchema,
    },
    '405': {
      description: 'Stateless server: no stream to open or session to end (use POST)',
      schema: McpErrorAnswerSchema,
    },
  };
  const guarded = { onRequest: hostGuard(options.allowedHostnames) };
  const methodNotAllowed = (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send(jsonRpcError('Method not allowed: this MCP server is stateless; send requests with POST'));
  return [
    {
      method: 'POST',
      url: '/mcp',
      scope: 'json',
      summary:
        'Model Context Protocol over Streamable HTTP (stateless): the barometer tools, as barometer mcp serves them',
      body: McpMessageSchema,
      responses: {
        '200': { description: 'The JSON-RPC response (application/json)', schema: McpResponseSchema },
        '202': { description: 'A notification or response accepted', empty: true },
        '403': notAllowed['403'],
        '406': {
          description: 'The Accept header must list application/json and text/event-stream',
          schema: McpErrorAnswerSchema,
        },
      },
      options: guarded,
      handler: async (request, reply) => {
        const server = createBarometerMcpServer({
          monitor: options.monitor,
          archive: options.archive,
          now: options.now,
          archiveAddresses: 'api',
          onError: (error, tool) => request.log.error({ err: error, tool }, 'MCP tool failed'),
        });
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        reply.hijack();
        reply.raw.on('close', () => {
          transport.close().catch(() => {});
          server.close().catch(() => {});
        });
        try {
          await server.connect(transport);
          await transport.handleRequest(request.raw, reply.raw, request.body);
        } catch (error) {
          request.log.error({ err: error }, 'MCP request failed');
          if (!reply.raw.headersSent) {
            reply.raw
              .writeHead(500, { 'content-type': 'application/json' })
              .end(JSON.stringify(jsonRpcError('Internal error', { code: 'BR_ERR_INTERNAL' })));
          }
        }
        return reply;
      },
    },
    {
      method: 'GET',
      url: '/mcp',
      scope: 'json',
      summary: 'Not served: the MCP endpoint is stateless (405)',
      responses: notAllowed,
      unserved:
        'A stateless MCP server has no stream to open nor session to end: 405 (MCP specification, transports)',
      options: guarded,
      handler: methodNotAllowed,
    },
    {
      method: 'DELETE',
      url: '/mcp',
      scope: 'json',
      summary: 'Not served: the MCP endpoint is stateless (405)',
      responses: notAllowed,
      unserved:
        'A stateless MCP server has no stream to open nor session to end: 405 (MCP specification, transports)',
      options: guarded,
      handler: methodNotAllowed,
    },
  ];
}
