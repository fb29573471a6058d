import * as z from 'zod';
import { ProblemSchema } from '../contract/problem.js';
import {
  type ApiRoute,
  type ErrorResponse,
  isSuccessStatus,
  openApiPath,
  responseSchema,
  type SuccessResponse,
} from '../http/route-table.js';
import { ENUM_PARAMETERS, NUMERIC_PARAMETER_NAMES, NUMERIC_PARAMETERS } from '../pressure/parameters.js';
import { BAROMETER_VERSION } from '../version.js';

export { ProblemSchema } from '../contract/problem.js';

/** Named schemas (zod `.meta({ id })`) collected while converting, published under components.schemas. */
type Components = Record<string, unknown>;

/** Points zod's local definitions at components.schemas, where OpenAPI wants them. */
function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === '$ref' && typeof value === 'string'
        ? value.replace(/^#\/(definitions|\$defs)\//, '#/components/schemas/')
        : rewriteRefs(value);
  }
  return out;
}

function toSchema(schema: z.ZodType, components: Components): unknown {
  const { definitions, $defs, ...rest } = z.toJSONSchema(schema, {
    target: 'openapi-3.0',
    unrepresentable: 'any',
  }) as Record<string, unknown> & { definitions?: Record<string, unknown>; $defs?: Record<string, unknown> };
  for (const [name, definition] of Object.entries({ ...definitions, ...$defs })) {
    components[name] = rewriteRefs(definition);
  }
  return rewriteRefs(rest);
}

/**
 * The rules between fields that a JSON schema cannot say, stated in each operation's description (issue 29, F12:
 * 2,125 fuzzed requests were refused by rules the document did not state). Each is checked where its route reads
 * the request, and answered 400 naming the field.
 */
const CROSS_FIELD_RULES: Readonly<Record<string, readonly string[]>> = {
  'POST /api/v1/sessions': [
    'criticalMaxTokens must not exceed the window (contextWindow, or the model’s)',
    'optimalMaxTokens must not exceed the critical threshold (criticalMaxTokens, or 90% of the window)',
    'rateLimits.tokensPerMinute, when given with tpmLimit (its alias), must equal it',
    'kv.hardLimit must be at least kv.nBatch when both are given',
    'a model outside the registry needs contextWindow',
  ],
  'POST /api/v1/sessions/:id/usage': [
    'timestamp (or the usage record’s own time) must not be ahead of the service’s clock by more than its tolerance (--clock-skew, 5 minutes by default)',
    'a body with format is a raw provider response ({ format, response }); without it, a normalized usage record',
  ],
  'POST /api/v1/sessions/:id/compactions': [
    'after must not exceed before (or, without before, the session’s last prompt)',
    'timestamp must not be ahead of the service’s clock by more than its tolerance (--clock-skew)',
  ],
  'GET /api/v1/pressure': ['tokenBudgetUsed must not exceed tokenBudgetTotal'],
  'POST /api/v1/pressure': ['tokenBudgetUsed must not exceed tokenBudgetTotal'],
  'POST /api/v1/replay': ['policy goes with whatIf=true'],
  'POST /api/v1/pools': [
    'at least one of tokenBudget, tokensPerMinute, requestsPerMinute',
    'priorityCeilings must not decrease from low to normal to high to urgent',
  ],
};
const BODY_RULES =
  'Every JSON body is an object (or, for /mcp, a JSON-RPC message or batch): `null` is refused.';

const FORBIDDEN_HOST_DESCRIPTION =
  'BR_ERR_FORBIDDEN_HOST: the Host header names another site (DNS rebinding), or a browser request that changes state comes from an origin that is not allowed';
const INVALID_DESCRIPTION = 'Invalid input: every issue names the field, the value and the allowed range';

/** The query parameters of `/api/v1/pressure`, from the seed's parameter table (ranges and defaults). */
export function pressureQueryParameters(): Array<Record<string, unknown>> {
  return [
    ...NUMERIC_PARAMETER_NAMES.map((name) => {
      const spec = NUMERIC_PARAMETERS[name];
      return {
        name,
        in: 'query',
        required: false,
        description: spec.description,
        schema: {
          type: 'number',
          minimum: spec.min,
          ...(spec.max === undefined ? {} : { maximum: spec.max }),
          default: spec.default,
        },
      };
    }),
    ...(['systemMode', 'agentProfile'] as const).map((name) => ({
      name,
      in: 'query',
      required: false,
      description: ENUM_PARAMETERS[name].description,
      schema: {
        type: 'string',
        enum: [...ENUM_PARAMETERS[name].values],
        default: ENUM_PARAMETERS[name].default,
      },
    })),
  ];
}

/** Parameters of one place (path or query) from an object schema: each property a parameter. */
function parametersOf(schema: z.ZodType, where: 'path' | 'query', components: Components) {
  const json = toSchema(schema, components) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    schema: property,
  }));
}

/**
 * The OpenAPI 3.0 document of the route table: every route with its parameters, request body and responses,
 * generated from the same zod schemas that validate requests and describe answers.
 */
export function buildOpenApiDocument(routes: readonly ApiRoute[]): Record<string, unknown> {
  const components: Components = {};
  const json = (schema: z.ZodType) => ({ schema: toSchema(schema, components) });
  const text = { schema: { type: 'string' } };
  // Every answer says what it holds: its schema, its content type (event streams with their messages' schemas),
  // no body at all, or, for an error, the Problem body unless the route names another.
  const content = (status: string, response: SuccessResponse | ErrorResponse) => {
    const schema = responseSchema(response);
    if (schema) {
      const alternative = 'alternativeContentType' in response ? response.alternativeContentType : undefined;
      return {
        content: {
          'application/json': json(schema),
          ...(alternative === undefined ? {} : { [alternative]: text }),
        },
      };
    }
    if ('contentType' in response) {
      return {
        content: { [response.contentType]: text },
        ...(response.messages
          ? {
              'x-barometer-messages': Object.fromEntries(
                Object.entries(response.messages).map(([event, message]) => [
                  event,
                  toSchema(message, components),
                ]),
              ),
            }
          : {}),
      };
    }
    if ('empty' in response || isSuccessStatus(status)) return {};
    return { content: { 'application/json': json(ProblemSchema) } };
  };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.url);
    const parameters = [
      ...(route.params ? parametersOf(route.params, 'path', components) : []),
      // Query parameters documented by hand replace the query schema's (the pressure route's, with the seed's ranges).
      ...(route.queryParameters ?? (route.query ? parametersOf(route.query, 'query', components) : [])),
    ];
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(route.responses) as Array<
      [string, SuccessResponse | ErrorResponse]
    >) {
      responses[status] = { description: response.description, ...content(status, response) };
    }
    // The Host and Origin check runs on every route (host-guard.ts).
    responses['403'] ??= { description: FORBIDDEN_HOST_DESCRIPTION, ...content('403', { description: '' }) };
    if (route.url.startsWith('/api/v1/')) {
      responses['400'] ??= { description: INVALID_DESCRIPTION, ...content('400', { description: '' }) };
    }
    paths[path] ??= {};
    const rules = CROSS_FIELD_RULES[`${route.method} ${route.url}`];
    paths[path][route.method.toLowerCase()] = {
      summary: route.summary,
      ...(rules || route.body
        ? {
            description: [
              ...(rules ? [`Rules between fields (400 naming the field): ${rules.join('; ')}.`] : []),
              ...(route.body ? [BODY_RULES] : []),
            ].join(' '),
          }
        : {}),
      ...(route.unserved === undefined ? {} : { 'x-barometer-unserved': route.unserved }),
      ...(parameters.length ? { parameters } : {}),
      ...(route.body
        ? {
            requestBody: {
              required: route.method !== 'GET',
              content: { 'application/json': { schema: toSchema(route.body, components) } },
            },
          }
        : route.textBody
          ? {
              requestBody: {
                required: true,
                description: route.textBody,
                content: { 'text/plain': { schema: { type: 'string' } } },
              },
            }
          : {}),
      responses,
    };
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'barometer',
      version: BAROMETER_VERSION,
      description:
        'Keeps LLM agent sessions alive under context, KV-cache, token-budget and rate-quota pressure.',
    },
    paths,
    components: { schemas: components },
  };
}
