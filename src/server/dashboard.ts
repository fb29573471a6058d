import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import fastifyStatic from '../vendor/fastify-static.js';

/**
 * Where `npm run build` puts the dashboard. Resolved from this file, so it is the same from `src/server`
 * (tsx, tests) and from `dist/server` (the built package): both are two levels below the repository root.
 */
export const DEFAULT_DASHBOARD_ROOT = fileURLToPath(new URL('../../web/dist/', import.meta.url));

/**
 * Paths the dashboard routes on the client; the server answers each with index.html so that a reload or a
 * shared link opens the right page. `/` itself is index.html already.
 */
export const DASHBOARD_CLIENT_ROUTES = [
  '/sessions',
  '/sessions/:id',
  '/sessions/:id/archives/:task',
  '/replay',
  '/report',
  '/regulator',
] as const;

/** Options of `registerDashboard`; unknown keys are rejected. */
export const DashboardOptionsSchema = z.strictObject({
  /**
   * Folder of the built dashboard (holding index.html), as a path or a file URL.
   * @default DEFAULT_DASHBOARD_ROOT (web/dist)
   */
  root: z.union([z.string().min(1), z.instanceof(URL)]).optional(),
});
export type DashboardOptions = z.input<typeof DashboardOptionsSchema>;

/** What was registered: the built files, or the page that says how to build them. */
export interface DashboardStatus {
  built: boolean;
  root: string;
}

/** Scripts, styles and data come from this origin only; the dashboard is never framed. */
const HTML_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

const MISSING_BUILD_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>barometer: dashboard not built</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5">
<h1>The dashboard is not built</h1>
<p>This barometer server has no dashboard files to serve. Build them with</p>
<pre style="background:#eff2f5; padding: 0.75rem 1rem; border-radius: 6px">npm run build</pre>
<p>and restart the server (<code>npm start</code> does both). The API works without it: see
<a href="/openapi.json">/openapi.json</a> and <code>/api/v1</code>.</p>
</body>
</html>
`;

/**
 * Serves the dashboard at `/`: the files built by Vite, with index.html for the client-side routes.
 * Hashed assets are cached for a year; index.html is revalidated so that a new build shows at once.
 * Files the build pre-compressed are sent as brotli or gzip to browsers that accept them.
 * When the build is missing, `/` and the client routes answer a page that says to run `npm run build`,
 * with status 503, and everything else keeps its usual 404.
 * @throws BarometerValidationError when an option is invalid.
 * @example await registerDashboard(app); // serves web/dist
 */
export async function registerDashboard(
  app: FastifyInstance,
  options: DashboardOptions = {},
): Promise<DashboardStatus> {
  const parsed = parseWith(DashboardOptionsSchema, options);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'dashboard options');
  const configured = parsed.value.root ?? DEFAULT_DASHBOARD_ROOT;
  const root = configured instanceof URL ? fileURLToPath(configured) : configured;
  const built = existsSync(join(root, 'index.html'));

  // Encapsulated, so that the `sendFile` decorator and these routes' settings stay inside the dashboard.
  await app.register(async (scope) => {
    if (!built) {
      for (const path of ['/', ...DASHBOARD_CLIENT_ROUTES]) {
        scope.get(path, (_request, reply) =>
          reply
            .code(503)
            .type('text/html; charset=utf-8')
            .header('cache-control', 'no-store')
            .send(MISSING_BUILD_PAGE),
        );
      }
      return;
    }
    await scope.register(fastifyStatic, {
      root,
      // One route per built file, found once at start: an unknown path stays a JSON 404, not a file lookup.
      wildcard: false,
      // The build writes .br and .gz beside each text file; a browser that accepts one gets it as is.
      preCompressed: true,
      cacheControl: false,
      setHeaders: (response, sentPath) => {
        const path = sentPath.replace(/\.(br|gz)$/, '');
        response.setHeader('vary', 'accept-encoding');
        if (path.endsWith('.html')) {
          response.setHeader('cache-control', 'no-cache');
          for (const [name, value] of Object.entries(HTML_HEADERS)) response.setHeader(name, value);
        } else if (/[\\/]assets[\\/]/.test(path)) {
          // Vite names assets by content hash: a changed file gets a new name.
          response.setHeader('cache-control', 'public, max-age=31536000, immutable');
        } else {
          response.setHeader('cache-control', 'public, max-age=3600');
        }
      },
    });
    for (const path of DASHBOARD_CLIENT_ROUTES) {
      scope.get(path, (_request, reply) => reply.sendFile('index.html'));
    }
  });
  return { built, root };
}
