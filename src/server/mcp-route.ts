import type { FastifyReply, FastifyRequest } from 'fastify';
import { McpErrorAnswerSchema, McpMessageSchema, McpResponseSchema } from '../contract/service.js';
import { type ApiRoute, answeredByHandler } from '../http/route-table.js';
import { createBarometerMcpServer } from '../mcp/create-mcp-server.js';
import type { SessionMonitor } from '../session/session-monitor.js';
import type { ArchiveStore } from '../store/archive.js';
import { StreamableHTTPServerTransport } from '../vendor/mcp-sdk-http.js';

/** A JSON-RPC error answer, the shape MCP clients read, with barometer's code in `data`. */
function jsonRpcError(message: string, data?: Record<string, unknown>, code = -32000) {
  return { jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id: null };
}

export interface McpRouteOptions {
  monitor: SessionMonitor;
  archive: ArchiveStore;
  now: () => number;
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
      // A message that is no JSON-RPC message is answered by the transport with a JSON-RPC error, not a Problem.
      parse: { body: answeredByHandler },
      responses: {
        '200': { description: 'The JSON-RPC response (application/json)', schema: McpResponseSchema },
        '202': { description: 'A notification or response accepted', empty: true },
        '400': {
          description: 'Not a JSON-RPC message (an empty batch: -32600)',
          schema: McpErrorAnswerSchema,
        },
        '403': notAllowed['403'],
        '406': {
          description: 'The Accept header must list application/json and text/event-stream',
          schema: McpErrorAnswerSchema,
        },
      },
      handler: async (request, reply) => {
        // JSON-RPC 2.0: "an empty Array" is an Invalid Request (-32600), answered with an error, not accepted.
        if (Array.isArray(request.body) && request.body.length === 0) {
          return reply
            .code(400)
            .send(jsonRpcError('Invalid Request: an empty batch', { code: 'BR_ERR_INVALID_PARAM' }, -32600));
        }
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
      handler: methodNotAllowed,
    },
  ];
}
