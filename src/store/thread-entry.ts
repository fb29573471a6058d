import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts the worker thread of a module beside `from` (`name` without its extension): its compiled `.js` from a
 * build, its TypeScript through tsx's API from source (tsx, vitest). Node 20 does not run a worker's module through
 * the hooks `--import tsx` registers (the thread fails on the `.ts` extension), so they are registered in the
 * thread itself. tsx is a development dependency: a build runs the compiled `.js`.
 */
export function startThread(from: string, name: string, options: WorkerOptions): Worker {
  // From source, tsx may add a query to the module's URL (its namespace).
  const source = new URL(from).pathname.endsWith('.ts');
  const url = new URL(`./${name}.${source ? 'ts' : 'js'}`, from);
  if (!source) return new Worker(url, options);
  // The ES module of the API (its CommonJS twin imports a file of its own that is not in the package).
  const api = pathToFileURL(
    join(dirname(createRequire(from).resolve('tsx/package.json')), 'dist/esm/api/index.mjs'),
  );
  const entry = `import(${JSON.stringify(api.href)}).then((api) => api.tsImport(${JSON.stringify(url.href)}, ${JSON.stringify(from)}))`;
  return new Worker(entry, { ...options, eval: true });
}
