import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
/** Where `npm run dev` serves the API; the dev server proxies the dashboard's calls there. */
const apiTarget = process.env.BAROMETER_API_URL ?? 'http://127.0.0.1:8797';

/** Text files worth compressing; below 1 KiB the headers cost more than compression saves. */
const COMPRESSIBLE = /\.(js|css|html|svg|json)$/;
const MIN_BYTES = 1024;

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * Writes `.br` and `.gz` beside each built text file, so that the server sends them as they are
 * (`preCompressed` in src/server/dashboard.ts) instead of compressing on every request: the dashboard's
 * script is about a third of its size in brotli.
 */
function precompress(): Plugin {
  return {
    name: 'barometer-precompress',
    apply: 'build',
    writeBundle(output) {
      if (!output.dir) return;
      for (const path of filesUnder(output.dir)) {
        if (!COMPRESSIBLE.test(path)) continue;
        const content = readFileSync(path);
        if (content.length < MIN_BYTES) continue;
        const brotli = brotliCompressSync(content, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: 11,
            [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
          },
        });
        if (brotli.length < content.length) writeFileSync(`${path}.br`, brotli);
        const gzip = gzipSync(content, { level: 9 });
        if (gzip.length < content.length) writeFileSync(`${path}.gz`, gzip);
      }
    },
  };
}

/**
 * The dashboard is built into `web/dist`, which `src/server/dashboard.ts` serves. `npm run dev:web` runs
 * the Vite dev server against a running `barometer serve`.
 */
export default defineConfig({
  root,
  base: '/',
  plugins: [precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // One small app: a single entry chunk loads faster than a waterfall of route chunks.
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
  server: {
    proxy: {
      // The service accepts only its own Host, and a POST only from its own origin (src/server/host-guard.ts):
      // the dev server speaks to it as the dashboard it serves would.
      '/api': {
        target: apiTarget,
        changeOrigin: true,
        configure: (proxy) =>
          proxy.on('proxyReq', (request) => {
            if (request.getHeader('origin') !== undefined)
              request.setHeader('origin', new URL(apiTarget).origin);
          }),
      },
      '/openapi.json': { target: apiTarget, changeOrigin: true },
    },
  },
});
