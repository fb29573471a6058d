import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiReference } from './api-reference.js';
import { buildApp } from './app.js';
import { openApiPath } from './route-table.js';

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

function isDashboard(url: string): boolean {
  return (
    url === '/' ||
    url === '/*' ||
    url.startsWith('/sessions') ||
    url === '/replay' ||
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
