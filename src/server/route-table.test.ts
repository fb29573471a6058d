import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { compileValidator } from '../errors/compiled-validator.js';
import { parseWith } from '../errors/validation.js';
import { type ApiRoute, openApiPath, registerRoutes } from '../http/route-table.js';
import { IdSchema } from '../ids/id-schema.js';
import { apiReference } from './api-reference.js';
import { buildApp } from './app.js';
import { buildErrorHandler } from './error-handler.js';
import { jsonBodyParser } from './json-body.js';

async function withApp<T>(work: (app: Awaited<ReturnType<typeof buildApp>>) => Promise<T>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'barometer-routes-'));
  const app = await buildApp({ logLevel: 'silent', dataDir, dashboard: false });
  try {
    return await work(app);
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('the route table', () => {
  it('registers exactly the routes /openapi.json documents, both ways (regression: POST /sessions/{id}/compactions was missing)', async () => {
    await withApp(async (app) => {
      const documented = new Set<string>();
      const paths = (await app.inject({ url: '/openapi.json' })).json().paths as Record<
        string,
        Record<string, unknown>
      >;
      for (const [path, operations] of Object.entries(paths)) {
        for (const method of Object.keys(operations)) documented.add(`${method.toUpperCase()} ${path}`);
      }
      // Every route Fastify registered (seen by an onRoute hook installed before any), less the dashboard's.
      const registered = new Set(
        app.barometerRegistered
          .filter(
            (route) => route.method !== 'HEAD' && (route.url.startsWith('/api/') || !isDashboard(route.url)),
          )
          .map((route) => `${route.method} ${openApiPath(route.url)}`),
      );
      expect([...documented].sort()).toEqual([...registered].sort());
      expect(documented).toContain('POST /api/v1/sessions/{id}/compactions');
    });
  });

  it('types every operation of /openapi.json: 0 operations without a 2xx answer schema', async () => {
    await withApp(async (app) => {
      const document = (await app.inject({ url: '/openapi.json' })).json() as {
        paths: Record<string, Record<string, OpenApiOperation>>;
        components: { schemas: Record<string, unknown> };
      };
      const untyped: string[] = [];
      const unserved: string[] = [];
      let operations = 0;
      for (const [path, methods] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(methods)) {
          operations++;
          const name = `${method.toUpperCase()} ${path}`;
          const statuses = Object.keys(operation.responses);
          const successes = statuses.filter((status) => status.startsWith('2'));
          if (successes.length === 0) {
            // Only an operation that says why it never succeeds may have no success answer.
            if (operation['x-barometer-unserved']) unserved.push(name);
            else untyped.push(`${name}: no 2xx answer`);
          }
          for (const status of statuses) {
            const response = operation.responses[status]!;
            const bodiless = status === '204' || status === '202';
            const schemas = Object.values(response.content ?? {}).filter((media) => media.schema);
            if (bodiless ? response.content !== undefined : schemas.length === 0)
              untyped.push(`${name} ${status}`);
          }
        }
      }
      expect(untyped).toEqual([]);
      expect(unserved.sort()).toEqual(['DELETE /mcp', 'GET /mcp']);
      expect(operations).toBe(app.barometerRoutes.length);
      // The three the issue named: liveness, this document and the MCP endpoint are typed like the rest.
      for (const [path, method] of [
        ['/healthz', 'get'],
        ['/openapi.json', 'get'],
        ['/mcp', 'post'],
      ] as const) {
        const schema = document.paths[path]?.[method]?.responses['200']?.content?.['application/json']
          ?.schema as { $ref?: string } | undefined;
        const resolved = schema?.$ref
          ? document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]
          : schema;
        expect(resolved, `${method} ${path}`).toSatisfy(
          (value: Record<string, unknown>) => typeof value.type === 'string' || Array.isArray(value.anyOf),
        );
      }
    });
  });

  it('refuses to register a route whose success answer has no schema', async () => {
    const { assertTypedResponses } = await import('../http/route-table.js');
    const route = {
      method: 'GET' as const,
      url: '/api/v1/x',
      responses: { '200': { description: 'something' } } as never,
    };
    expect(() => assertTypedResponses(route)).toThrow(/GET \/api\/v1\/x answers 200 without a schema/);
    expect(() =>
      assertTypedResponses({ ...route, responses: { '404': { description: 'no such x' } } }),
    ).toThrow(/documents no success answer/);
    expect(() =>
      assertTypedResponses({ ...route, responses: { '204': { description: 'gone', empty: true } } }),
    ).not.toThrow();
  });

  it('documents a request schema for every JSON body and a response for every route', async () => {
    await withApp(async (app) => {
      for (const route of app.barometerRoutes) {
        expect(Object.keys(route.responses).length, route.url).toBeGreaterThan(0);
        if (route.method === 'POST' && route.scope === 'json' && !route.url.includes('/samples/')) {
          expect(route.body, `${route.method} ${route.url}`).toBeDefined();
        }
      }
    });
  });
});

interface OpenApiOperation {
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  'x-barometer-unserved'?: string;
}

function isDashboard(url: string): boolean {
  return (
    url === '/' ||
    url === '/*' ||
    url.startsWith('/sessions') ||
    url === '/replay' ||
    url === '/report' ||
    url === '/regulator' ||
    url.startsWith('/assets')
  );
}

describe('docs/sessions-api.md', () => {
  it('holds the reference generated from the route table and the schemas (npm run docs:api writes it)', async () => {
    await withApp(async (app) => {
      const doc = readFileSync(new URL('../../docs/sessions-api.md', import.meta.url), 'utf8');
      const generated = apiReference(app.barometerRoutes);
      const start = doc.indexOf('<!-- reference:start -->');
      const end = doc.indexOf('<!-- reference:end -->');
      expect(start, 'the reference markers are in the doc').toBeGreaterThan(-1);
      expect(doc.slice(start + '<!-- reference:start -->'.length, end).trim()).toBe(generated.trim());
    });
  });
});

describe('a route’s declared schemas validate its request, through Fastify (issue 40)', () => {
  it('compiles every route’s part schema to a validator that answers as zod does', async () => {
    const edge = fc.oneof(
      fc.integer({ min: -2, max: 2_000_000 }),
      fc.double(),
      fc.string({ maxLength: 8 }),
      fc.constantFrom('', '1', 'x..y', 'true', 'auto', 'daily', 'anthropic', null, true, [], {}),
    );
    await withApp(async (app) => {
      for (const route of app.barometerRoutes) {
        for (const schema of [route.params, route.query, route.body]) {
          if (schema === undefined) continue;
          const shape = (schema as { shape?: Record<string, unknown> }).shape;
          const keys = shape ? Object.keys(shape) : ['a'];
          const validator = compileValidator(schema as z.ZodType<unknown>);
          fc.assert(
            fc.property(fc.dictionary(fc.constantFrom(...keys, 'extra'), edge, { maxKeys: 5 }), (input) => {
              expect(validator.parse(input), `${route.method} ${route.url}`).toEqual(
                parseWith(schema, input),
              );
            }),
            { numRuns: 200 },
          );
        }
      }
    });
  });

  /** A route whose handler checks nothing: it echoes what Fastify hands it. */
  async function echoApp() {
    const app = Fastify({ logger: false });
    app.setErrorHandler(
      buildErrorHandler(() => ({ contentTypes: ['application/json'], bodyLimitBytes: 1024 })),
    );
    app.removeContentTypeParser(['application/json']);
    app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser(app));
    const route: ApiRoute = {
      method: 'POST',
      url: '/echo/:id',
      scope: 'json',
      summary: 'Echo',
      params: z.strictObject({ id: IdSchema }),
      query: z.strictObject({ mode: z.enum(['a', 'b']).optional() }),
      body: z.strictObject({
        tokens: z.number().int().min(1),
        priority: z.enum(['low', 'normal']).default('normal'),
      }),
      example: 'POST /echo/x {"tokens":1}',
      responses: { '200': { description: 'The parts', schema: z.unknown() } },
      handler: async (request) => ({ params: request.params, query: request.query, body: request.body }),
    };
    registerRoutes(app, [route], 'json');
    await app.ready();
    return app;
  }

  const post = (app: FastifyInstance, url: string, payload?: string) =>
    app.inject({
      method: 'POST',
      url,
      ...(payload === undefined ? {} : { payload, headers: { 'content-type': 'application/json' } }),
    });

  it('refuses a malformed body the handler never checks with the catalogue’s 400: field, value, range, example', async () => {
    const app = await echoApp();
    const response = await post(app, '/echo/x', '{"tokens":0,"extra":true}');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: 'Invalid parameters: tokens, extra',
      code: 'BR_ERR_INVALID_PARAM',
      example: 'POST /echo/x {"tokens":1}',
      issues: [
        { field: 'tokens', value: 0, message: expect.stringMatching(/^must be/), allowed: { min: 1 } },
        { field: 'extra', value: true, message: 'unknown parameter' },
      ],
    });
    await app.close();
  });

  it('refuses a bad path id and a bad query value the same way, the path without the body’s example', async () => {
    const app = await echoApp();
    const id = await post(app, '/echo/a..b', '{"tokens":1}');
    expect(id.statusCode).toBe(400);
    expect(id.json()).toMatchObject({
      code: 'BR_ERR_INVALID_PARAM',
      issues: [{ field: 'id', value: 'a..b' }],
    });
    expect(id.json().example).toBeUndefined();
    const query = await post(app, '/echo/x?mode=c', '{"tokens":1}');
    expect(query.statusCode).toBe(400);
    expect(query.json()).toMatchObject({
      code: 'BR_ERR_INVALID_PARAM',
      issues: [{ field: 'mode', value: 'c', allowed: { values: ['a', 'b'] } }],
    });
    await app.close();
  });

  it('hands the handler the parts as parsed (defaults filled), an absent body as every field absent', async () => {
    const app = await echoApp();
    const good = await post(app, '/echo/x?mode=a', '{"tokens":3}');
    expect(good.statusCode).toBe(200);
    expect(good.json()).toEqual({
      params: { id: 'x' },
      query: { mode: 'a' },
      body: { tokens: 3, priority: 'normal' },
    });
    const absent = await post(app, '/echo/x');
    expect(absent.statusCode).toBe(400);
    expect(absent.json().issues).toMatchObject([{ field: 'tokens' }]);
    await app.close();
  });

  it('answers Fastify’s own JSON parser errors as BR_ERR_MALFORMED_JSON, and names a __proto__ key as unknown', async () => {
    const app = await echoApp();
    for (const payload of ['', '{"tokens":', '[1,']) {
      const response = await post(app, '/echo/x', payload);
      expect(response.statusCode, payload).toBe(400);
      expect(response.json().code, payload).toBe('BR_ERR_MALFORMED_JSON');
    }
    // Fastify's message, with JSON.parse's saying where parsing stopped (the catalogue's promise).
    const cut = await post(app, '/echo/x', '{"tokens":');
    expect(cut.json().error).toMatch(
      /^Malformed JSON body: Body is not valid JSON but content-type is set to 'application\/json': \S/,
    );
    const proto = await post(app, '/echo/x', '{"tokens":1,"__proto__":{"polluted":true},"constructor":{}}');
    expect(proto.statusCode).toBe(400);
    expect(
      proto
        .json()
        .issues.map((issue: { field: string }) => issue.field)
        .sort(),
    ).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const nothing = await post(app, '/echo/x', 'null');
    expect(nothing.json()).toMatchObject({
      code: 'BR_ERR_INVALID_PARAM',
      issues: [{ field: '(body)', value: null }],
    });
    await app.close();
  });
});
