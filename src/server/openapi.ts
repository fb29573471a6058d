import { z } from 'zod';
import { ERROR_CODES } from '../errors/codes.js';
import { ENUM_PARAMETERS, NUMERIC_PARAMETER_NAMES, NUMERIC_PARAMETERS } from '../pressure/parameters.js';
import { PressureInputSchema, PressureReportSchema } from '../pressure/schemas.js';
import { API_OPERATIONS } from './api-operations.js';

/** Extra operations contributed by other route modules (sessions, compaction), each with its schemas. */
export interface OpenApiOperation {
  path: string;
  method: 'get' | 'post' | 'delete';
  summary: string;
  requestBody?: z.ZodType;
  responses: Record<string, { description: string; schema?: z.ZodType }>;
  parameters?: Array<{ name: string; in: 'path' | 'query'; required?: boolean; description?: string }>;
}

const ValidationIssueSchema = z.object({
  field: z.string(),
  value: z.unknown(),
  message: z.string(),
  allowed: z
    .object({
      min: z.number().optional(),
      max: z.number().optional(),
      values: z.array(z.string()).optional(),
    })
    .optional(),
});

/** The body of every 4xx answer. */
export const ProblemSchema = z
  .object({
    error: z.string(),
    code: z.enum(Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES, ...(keyof typeof ERROR_CODES)[]]),
    example: z.string().optional(),
    issues: z.array(ValidationIssueSchema).optional(),
  })
  .meta({ description: 'An error: a sentence, a stable code and the issues' });

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

const problemResponses = {
  '400': {
    description: 'Invalid input: every issue names the field, the value and the allowed range',
    schema: ProblemSchema,
  },
  '429': {
    description: 'Rate limit (per IP) or concurrency limit (per agent) exceeded; see Retry-After',
    schema: ProblemSchema,
  },
};

/** The OpenAPI 3.0 document, generated from the same zod schemas that validate requests. */
export function buildOpenApiDocument(): Record<string, unknown> {
  const components: Components = {};
  const pressureParameters = [
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
  const jsonContent = (schema: z.ZodType) => ({
    'application/json': { schema: toSchema(schema, components) },
  });
  const responsesOf = (responses: OpenApiOperation['responses']) =>
    Object.fromEntries(
      Object.entries(responses).map(([status, response]) => [
        status,
        {
          description: response.description,
          ...(response.schema ? { content: jsonContent(response.schema) } : {}),
        },
      ]),
    );
  const paths: Record<string, Record<string, unknown>> = {
    '/api/v1/pressure': {
      get: {
        summary: 'Evaluate context pressure (seed 000) from query parameters',
        parameters: pressureParameters,
        responses: responsesOf({
          '200': { description: 'The pressure report', schema: PressureReportSchema },
          ...problemResponses,
        }),
      },
      post: {
        summary: 'Evaluate context pressure (seed 000) from a JSON body',
        requestBody: { required: false, content: jsonContent(PressureInputSchema) },
        responses: responsesOf({
          '200': { description: 'The pressure report', schema: PressureReportSchema },
          ...problemResponses,
        }),
      },
    },
    '/healthz': { get: { summary: 'Liveness', responses: { '200': { description: '{ "status": "ok" }' } } } },
  };
  for (const operation of API_OPERATIONS) {
    paths[operation.path] ??= {};
    paths[operation.path]![operation.method] = {
      summary: operation.summary,
      ...(operation.parameters
        ? {
            parameters: operation.parameters.map((parameter) => ({
              ...parameter,
              required: parameter.in === 'path' || parameter.required === true,
              schema: { type: 'string' },
            })),
          }
        : {}),
      ...(operation.requestBody
        ? { requestBody: { required: true, content: jsonContent(operation.requestBody) } }
        : {}),
      responses: responsesOf({ ...operation.responses, ...problemResponses }),
    };
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'headroom',
      version: '0.1.0',
      description:
        'Keeps LLM agent sessions alive under context, KV-cache, token-budget and rate-quota pressure.',
    },
    paths,
    components: { schemas: components },
  };
}
