/**
 * Bundles the dependencies barometer vendors into dist/vendor, so that an install does not carry them whole
 * (docs/decisions/019-install-size.md):
 * - each module of src/vendor (the MCP SDK's server and transports, @fastify/static, prom-client) is bundled over
 *   the re-export file `tsc` wrote for it, with the packages the install has anyway (package.json
 *   `dependencies`) left external;
 * - the two gpt-tokenizer encodings barometer counts with become one CommonJS file each, which
 *   src/tokens/create-token-counter.ts requires on a counter's first count.
 * The licence of every package bundled is written to dist/vendor/THIRD-PARTY-NOTICES.txt.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { TOKEN_ENCODINGS } from '../src/tokens/create-token-counter.js';

const OUT = 'dist/vendor';
const VENDORED = ['mcp-sdk', 'mcp-sdk-stdio', 'mcp-sdk-http', 'fastify-static', 'prom-client'] as const;

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> };
// What the install brings anyway stays a plain import: bundled, it would be loaded twice (zod, fastify, ...).
const external = Object.keys(manifest.dependencies);

// The vendored packages are CommonJS in part and require Node's built-ins: an ES module bundle needs a require.
const REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

const inputs: string[] = [];
const report = (metafile: Metafile) => {
  inputs.push(...Object.keys(metafile.inputs));
  for (const [file, output] of Object.entries(metafile.outputs))
    console.log(`bundled ${file}: ${Object.keys(output.inputs).length} modules, ${kib(output.bytes)} KiB`);
};
const kib = (bytes: number) => (bytes / 1024).toFixed(0);

// One build with code splitting, so that what two entries share (the SDK's protocol types) is one chunk, loaded once.
const modules = await build({
  entryPoints: VENDORED.map((name) => ({ in: `src/vendor/${name}.ts`, out: name })),
  outdir: OUT,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external,
  // Whitespace and syntax only: names stay, so a stack trace through the SDK or the static server reads.
  minifyWhitespace: true,
  minifySyntax: true,
  banner: { js: REQUIRE_BANNER },
  legalComments: 'none',
  allowOverwrite: true,
  metafile: true,
  logLevel: 'warning',
});
report(modules.metafile);

for (const encoding of TOKEN_ENCODINGS) {
  const encodingBundle = await build({
    stdin: {
      contents: `module.exports = require('gpt-tokenizer/encoding/${encoding}');`,
      resolveDir: process.cwd(),
      sourcefile: `gpt-tokenizer-${encoding}.cjs`,
      loader: 'js',
    },
    outfile: join(OUT, `gpt-tokenizer-${encoding}.cjs`),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  report(encodingBundle.metafile);
}

writeFileSync(join(OUT, 'THIRD-PARTY-NOTICES.txt'), notices(inputs));

/** The package folder (node_modules/name or node_modules/@scope/name, nested ones too) of a bundled file. */
function packageFolder(input: string): string | undefined {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  return match?.[1];
}

/** Name, version, licence and licence text of each bundled package, as its MIT / ISC / BSD / Apache terms ask. */
function notices(bundledInputs: readonly string[]): string {
  const folders = [
    ...new Set(bundledInputs.map(packageFolder).filter((folder) => folder !== undefined)),
  ].sort();
  const sections = folders.map((folder) => {
    const about = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      license?: string;
    };
    const licenseFile = readdirSync(folder).find((name) => /^(licen[cs]e|copying)(\.|$)/i.test(name));
    const text = licenseFile
      ? readFileSync(join(folder, licenseFile), 'utf8').trim()
      : `(no licence file in the package; package.json says ${about.license ?? 'nothing'})`;
    return `${about.name}@${about.version} (${about.license ?? 'unknown'})\n\n${text}`;
  });
  return `barometer bundles the following packages into dist/vendor (docs/decisions/019-install-size.md).\n\n${sections.join(`\n\n${'-'.repeat(78)}\n\n`)}\n`;
}
