/**
 * Bundles the lean CLI entries (`barometer statusline`, `barometer hook`) into one file each, over the files `tsc`
 * wrote for them: an agent runs these on every status line refresh and hooked event, and one file starts faster
 * than the ~230 module files (zod's among them) it replaces. See docs/decisions/007-lean-agent-entries.md.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import data from '../src/models/data/models.json' with { type: 'json' };
import { familyTableTexts, type ModelRow } from '../src/models/model-table-text.js';

const ENTRIES = ['statusline-main', 'hook-main', 'report-main'] as const;

/**
 * JSON modules as `JSON.parse('…')` rather than an object literal: V8 parses a JSON string several times faster
 * than the same data as JavaScript (the model registry is 400 KB).
 */
const jsonAsParse: Plugin = {
  name: 'json-as-parse',
  setup(builder) {
    builder.onLoad({ filter: /\.json$/ }, async (args) => {
      const minified = JSON.stringify(JSON.parse(await readFile(args.path, 'utf8')));
      return { contents: `export default JSON.parse(${JSON.stringify(minified)});`, loader: 'js' };
    });
  },
};

/**
 * The model table by family: in the bundles, `find-model.ts`'s and `family-estimate.ts`'s `./model-table.js` (the JSON module, whose 5,044 rows
 * are parsed whole at load) is replaced by a module that reads, on a look-up, the one of the files written beside
 * the bundle that holds the family looked up, and parses only that family's line (`model-table-text.ts`). A status
 * line looks up one or two models: parsing the whole table, and compiling it as part of the bundle, was the largest
 * part of its start-up (docs/decisions/080).
 */
const FAMILY_FOLDER = 'model-families';
const modelTableByFamily: Plugin = {
  name: 'model-table-by-family',
  setup(builder) {
    builder.onResolve({ filter: /^\.\/model-table\.js$/ }, (args) =>
      /\/src\/models\/(?:find-model|family-estimate)\.ts$/.test(args.importer)
        ? { path: 'model-table', namespace: 'model-table' }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'model-table' }, () => {
      const { source, licence, generated, rows } = data;
      const info = JSON.stringify({ source, licence, generated, rows: rows.length });
      return {
        contents: `
          import { readFileSync } from 'node:fs';
          import { familyMembersFromText, familyRowsFromText, familyShard } from './model-table-text.ts';
          export const MODEL_TABLE_INFO = Object.freeze(${info});
          const shardText = (key) =>
            readFileSync(new URL(\`./${FAMILY_FOLDER}/\${familyShard(key)}.txt\`, import.meta.url), 'utf8');
          export function familyRows(family) {
            return familyRowsFromText(shardText(family), family);
          }
          export function familyMembers(pattern) {
            return familyMembersFromText(shardText(pattern), pattern);
          }`,
        loader: 'js',
        resolveDir: fileURLToPath(new URL('../src/models/', import.meta.url)),
      };
    });
  },
};

/**
 * Node's built-in modules through `require` rather than `import`: an ES module import of a built-in builds its ES
 * module facade, which reads every export, and reading `node:fs`'s `ReadStream` getter loads and compiles Node's
 * file streams, which a status line never uses (docs/decisions/080).
 */
const builtinsByRequire: Plugin = {
  name: 'builtins-by-require',
  setup(builder) {
    builder.onResolve({ filter: /^node:/ }, (args) =>
      args.namespace === 'builtin-require'
        ? { path: args.path, external: true }
        : { path: args.path, namespace: 'builtin-require' },
    );
    builder.onLoad({ filter: /.*/, namespace: 'builtin-require' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * zod exports every locale's error messages (`z.locales`, about 250 KB of the bundle) through a namespace the
 * bundler cannot shake; barometer sets none (zod's English default is configured by zod itself). Only English is kept.
 */
const englishZodLocale: Plugin = {
  name: 'english-zod-locale',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${'node_modules'}/zod/`)
        ? { path: 'zod-locales-en', namespace: 'zod-locales' }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'zod-locales' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js';",
      resolveDir: process.cwd(),
      loader: 'js',
    }));
  },
};

/**
 * The config loader (and the YAML parser it brings, ~110 KB) stays a separate module that the entry imports only
 * when a config file exists: bundled, esbuild inlines a dynamic import, so every status line paid to parse it.
 * The bundle sits where `tsc` wrote the entry, so the relative path finds `tsc`'s `dist/models/load-config.js`.
 */
const lazyConfigLoader: Plugin = {
  name: 'lazy-config-loader',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/models\/load-config\.js$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
    );
  },
};

/**
 * Entries whose lazily imported work goes into chunks of its own beside them (`dist/cli/<entry>-chunk-<hash>.js`,
 * where `../vendor/` still finds the tokenizer): a `barometer report` answered from its cache never runs the what-if
 * (the session replay, the eviction policy, the what-if simulation), and in one file every run compiled it.
 */
const SPLIT: ReadonlySet<string> = new Set(['report-main']);

// The bundles find the table beside them (`modelTableByFamily`).
await rm(`dist/cli/${FAMILY_FOLDER}`, { recursive: true, force: true });
await mkdir(`dist/cli/${FAMILY_FOLDER}`, { recursive: true });
for (const [shard, text] of familyTableTexts(data.rows as unknown as ModelRow[]).entries()) {
  await writeFile(`dist/cli/${FAMILY_FOLDER}/${shard}.txt`, text);
}
for (const name of ENTRIES) {
  const result = await build({
    entryPoints: [`src/cli/${name}.ts`],
    ...(SPLIT.has(name)
      ? { outdir: 'dist/cli', splitting: true, entryNames: '[name]', chunkNames: `${name}-chunk-[hash]` }
      : { outfile: `dist/cli/${name}.js` }),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    legalComments: 'linked',
    // commander is CommonJS and requires Node's built-ins: give the ES module bundle a require of its own.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    plugins: [
      ...(name === 'statusline-main' ? [builtinsByRequire] : []),
      modelTableByFamily,
      jsonAsParse,
      englishZodLocale,
      lazyConfigLoader,
    ],
    allowOverwrite: true,
    metafile: true,
    logLevel: 'warning',
  });
  const inputs = Object.keys(result.metafile.inputs);
  const outputs = Object.entries(result.metafile.outputs).filter(([path]) => path.endsWith('.js'));
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
  const file = `dist/cli/${name}.js`;
  const entry = outputs.find(([path]) => path === file)?.[1];
  const chunks = outputs
    .filter(([path]) => path !== file)
    .map(([path, output]) => `${path} ${kib(output.bytes)}`);
  console.log(
    `bundled ${file}: ${inputs.length} modules, ${kib(entry?.bytes ?? 0)}` +
      (chunks.length > 0 ? `; chunks: ${chunks.join(', ')}` : ''),
  );
}
