import * as z from 'zod';

/** The service's own routes: liveness, the OpenAPI document, the MCP endpoint's JSON-RPC messages. */

/** `GET /healthz`. */
export const HealthzAnswerSchema = z.strictObject({ status: z.literal('ok') }).meta({ id: 'Healthz' });

/** `GET /openapi.json`: an OpenAPI 3.0 document (its paths and components are described by OpenAPI itself). */
export const OpenApiDocumentSchema = z
  .looseObject({
    openapi: z.literal('3.0.3'),
    info: z.looseObject({ title: z.string(), version: z.string(), description: z.string().optional() }),
    paths: z.record(z.string(), z.record(z.string(), z.unknown())),
    components: z.looseObject({ schemas: z.record(z.string(), z.unknown()) }),
  })
  .meta({ id: 'OpenApiDocument', description: 'An OpenAPI 3.0 document' });

/** `POST /mcp`: a JSON-RPC 2.0 message of the Model Context Protocol; the SDK's transport validates it fully. */
export const McpMessageSchema = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({
    description:
      'A JSON-RPC 2.0 message of the Model Context Protocol (initialize, tools/list, tools/call, ...); see docs/mcp.md',
  });

const JsonRpcErrorSchema = z.looseObject({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});

/**
 * `POST /mcp`'s JSON answer: a JSON-RPC 2.0 response, its `result` or its `error` (a tool's own answer is the
 * result of `tools/call`, typed by the tool's outputSchema: docs/mcp.md).
 */
export const McpResponseSchema = z
  .union([
    z.looseObject({
      jsonrpc: z.literal('2.0'),
      id: z.union([z.string(), z.number()]),
      result: z.record(z.string(), z.unknown()),
    }),
    z.looseObject({
      jsonrpc: z.literal('2.0'),
      id: z.union([z.string(), z.number()]).nullable(),
      error: JsonRpcErrorSchema,
    }),
  ])
  .meta({ id: 'McpResponse', description: 'A JSON-RPC 2.0 response of the Model Context Protocol' });

/** The JSON-RPC error the MCP endpoint answers itself (403 for another site's Host, 405 for GET and DELETE). */
export const McpErrorAnswerSchema = z.strictObject({
  jsonrpc: z.literal('2.0'),
  error: JsonRpcErrorSchema,
  id: z.null(),
});
