import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { z } from 'zod';
import { type CompiledValidator, compileValidator } from '../errors/compiled-validator.js';
import { BarometerValidationError, type Result } from '../errors/validation.js';

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
  /**
   * The schemas of the request's parts. Fastify validates each part with the validator compiled from its schema
   * before the handler runs (decision 104), and the handler reads the part as parsed; a bad part is a 400 of the
   * error catalogue naming each field, its value and the allowed range.
   */
  params?: z.ZodType;
  query?: z.ZodType;
  /** Query parameters documented by hand (the pressure route's, with the seed's ranges). */
  queryParameters?: Array<Record<string, unknown>>;
  body?: z.ZodType;
  /**
   * The parse of a part that does more than its schema says (the regulator's rules between fields, a usage body
   * whose shape `format` chooses); by default the part's schema, compiled.
   */
  parse?: Partial<Record<RequestPart, (raw: unknown) => Result<unknown>>>;
  /** A request that works, shown in a 400 that names a bad field of the body or the query. */
  example?: string;
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

/**
 * The parse of a part whose handler answers a bad one in its own protocol (the MCP route: JSON-RPC errors, which
 * the MCP SDK's transport writes): every value passes to the handler.
 */
export function answeredByHandler(raw: unknown): Result<unknown> {
  return { ok: true, value: raw };
}

/** The parts of a request a route can declare a schema for. */
export type RequestPart = 'params' | 'query' | 'body';

/** Fastify's name of each part in a route's `schema`. */
const FASTIFY_PART: Readonly<Record<RequestPart, 'params' | 'querystring' | 'body'>> = {
  params: 'params',
  query: 'querystring',
  body: 'body',
};

/** Each schema compiled once, however many routes and apps use it (the session id is the params of ten routes). */
const compiled = new WeakMap<z.ZodType, CompiledValidator<unknown>>();

function compiledOf(schema: z.ZodType): CompiledValidator<unknown> {
  let validator = compiled.get(schema);
  if (validator === undefined) {
    validator = compileValidator(schema as z.ZodType<unknown>);
    compiled.set(schema, validator);
  }
  return validator;
}

/**
 * What Fastify is given as a part's schema: an object of its own class, which Fastify hands to the route's
 * validator compiler untouched (it rewrites plain objects as JSON Schema shorthand).
 */
class PartSchema {
  constructor(readonly validate: (data: unknown) => { value: unknown } | { error: Error }) {}
}

/** The validator Fastify runs on one part: the parse, its value kept as the part, its issues as a 400. */
function partValidator(route: ApiRoute, part: RequestPart, schema: z.ZodType): PartSchema {
  const own = route.parse?.[part];
  const parse = own ?? compiledOf(schema).parse;
  const context = part === 'body' ? 'request body' : part === 'query' ? 'query' : 'path';
  const example = part === 'params' ? undefined : route.example;
  return new PartSchema((data) => {
    // Fastify passes an absent body as null; the JSON parser refuses a body of `null` (json-body.ts), so null here
    // is no body, which is an empty object: every field absent.
    const parsed = parse(part === 'body' && data === null ? {} : data);
    if (parsed.ok) return { value: parsed.value };
    return {
      error: new BarometerValidationError(parsed.issues, context, 'BR_ERR_INVALID_PARAM', example),
    };
  });
}

/** The route's part schemas as Fastify takes them, beside the options' own (a response schema). */
function fastifySchema(route: ApiRoute): RouteShorthandOptions['schema'] | undefined {
  const parts: Partial<Record<'params' | 'querystring' | 'body', PartSchema>> = {};
  let any = false;
  for (const part of ['params', 'query', 'body'] as const) {
    const schema = route[part];
    if (schema === undefined) continue;
    parts[FASTIFY_PART[part]] = partValidator(route, part, schema);
    any = true;
  }
  return any ? { ...(route.options?.schema ?? {}), ...parts } : route.options?.schema;
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
    const schema = fastifySchema(route);
    scope.route({
      method: route.method,
      url: route.url,
      ...(route.options ?? {}),
      ...(schema === undefined ? {} : { schema }),
      // Every part schema is a PartSchema: its validator is the compiled one it holds.
      validatorCompiler: ({ schema: part }) => (part as PartSchema).validate,
      handler: route.handler as never,
    });
  }
}

/** `/api/v1/sessions/:id` → `/api/v1/sessions/{id}`. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
