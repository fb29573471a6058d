import * as z from 'zod';
import type { ApiRoute } from '../../http/route-table.js';
import { evaluateResolved } from '../../pressure/evaluate.js';
import { NUMERIC_PARAMETER_NAMES, NUMERIC_PARAMETERS } from '../../pressure/parameters.js';
import { parsePressureInput } from '../../pressure/parse.js';
import type { ResolvedPressureInput } from '../../pressure/resolve-input.js';
import { PressureInputSchema, PressureQuerySchema, PressureReportSchema } from '../../pressure/schemas.js';

const exampleQuery = [
  ...NUMERIC_PARAMETER_NAMES.map((name) => `${name}=${NUMERIC_PARAMETERS[name].default}`),
  'systemMode=production',
  'agentProfile=balanced',
].join('&');
/** Shown in every 400 of this route so that a caller sees a request that works. */
export const PRESSURE_GET_EXAMPLE = `/api/v1/pressure?${exampleQuery}`;
export const PRESSURE_POST_EXAMPLE = `POST /api/v1/pressure ${JSON.stringify({
  memoryUsedPercent: 72,
  tokenBurnRatePerMin: 55,
  contextDriftPercent: 68,
  tokenBudgetTotal: 100000,
  tokenBudgetUsed: 62000,
  systemMode: 'production',
})}`;

/** `a | null` as one type list, which fast-json-stringify serializes without trying each branch. */
function simplifyNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(simplifyNullable);
  if (node === null || typeof node !== 'object') return node;
  const object = node as Record<string, unknown>;
  const branches = object.anyOf as Array<Record<string, unknown>> | undefined;
  if (branches?.length === 2 && branches[1]?.type === 'null' && typeof branches[0]?.type === 'string') {
    return { type: [branches[0].type, 'null'] };
  }
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, simplifyNullable(value)]));
}

/**
 * The 200 body's JSON Schema, from the same zod schema, so that Fastify serializes reports with a compiled
 * serializer instead of JSON.stringify.
 */
const REPORT_RESPONSE_SCHEMA = simplifyNullable(
  (({ $schema: _ignored, ...rest }) => rest)(z.toJSONSchema(PressureReportSchema, { target: 'draft-7' })),
);
const routeOptions = { config: { evaluation: true }, schema: { response: { 200: REPORT_RESPONSE_SCHEMA } } };

/** `GET|POST /api/v1/pressure`: seed 000's regulator, stateless. Synchronous handlers: the evaluation never
 * waits, and a promise per request is measurable overhead. */
export function pressureRoutes(
  context: { now: () => number },
  queryParameters: Array<Record<string, unknown>>,
): ApiRoute[] {
  const responses = {
    '200': { description: 'The pressure report', schema: PressureReportSchema },
    '429': { description: 'Rate limit (per IP) or concurrency limit (per agent) exceeded; see Retry-After' },
  };
  return [
    {
      method: 'GET',
      url: '/api/v1/pressure',
      scope: 'json',
      summary: 'Evaluate context pressure (the stateless context-pressure regulator) from query parameters',
      query: PressureQuerySchema,
      queryParameters,
      parse: { query: (raw) => parsePressureInput(raw, 'text') },
      example: PRESSURE_GET_EXAMPLE,
      responses,
      options: routeOptions,
      handler: (request, reply) =>
        reply.send(evaluateResolved(request.query as ResolvedPressureInput, { now: context.now() })),
    },
    {
      method: 'POST',
      url: '/api/v1/pressure',
      scope: 'json',
      summary: 'Evaluate context pressure (the stateless context-pressure regulator) from a JSON body',
      body: PressureInputSchema,
      // The body's compiled check and the rules between fields, run by Fastify before the handler.
      parse: { body: (raw) => parsePressureInput(raw, 'body') },
      example: PRESSURE_POST_EXAMPLE,
      responses,
      options: routeOptions,
      handler: (request, reply) =>
        reply.send(evaluateResolved(request.body as ResolvedPressureInput, { now: context.now() })),
    },
  ];
}
