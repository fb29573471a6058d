import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findCycle, type ImportEdge, importGraph, importsOf, reachable } from './import-graph.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Tests and their helpers (a test's fake provider starts the service) are no layer's code.
const edges = importGraph(ROOT, ['src', 'web/src', 'bench', 'examples']).filter(
  (edge) => !edge.from.endsWith('.test.ts') && !/(^|\/)test-helpers\//.test(edge.from),
);
const layer = (path: string) =>
  /^src\/([^/]+)\//.exec(path)?.[1] ?? (path.startsWith('web/') ? 'web' : path.split('/')[0]);

/** DESIGN.md's layering, each rule a set of layers a layer must not import. */
const CORE = [
  'pressure',
  'kv',
  'health',
  'discipline',
  'compaction',
  // Token windows and per-minute quota arithmetic (decision 021): pure, read by the triggers and the session.
  'quota',
  'tokens',
  'models',
  'usage',
  'errors',
  'ids',
  // The what-if replay's core: log histories, calibration, the cached cost; archives only through interfaces.
  'whatif',
  // The providers' prompt caches (issue 38): pure models, time a parameter, read by the what-if, the policy and the proxy.
  'cache',
];
const SURFACES = [
  'http',
  'session',
  'store',
  'pools',
  'report',
  'contract',
  'server',
  'cli',
  'mcp',
  'integrations',
  'proxy',
];
const FORBIDDEN: Record<string, readonly string[]> = {
  // src/vendor holds the dependencies the package bundles (the MCP SDK, the static file server, prom-client): the
  // surfaces' own, never the core's.
  ...Object.fromEntries(CORE.map((name) => [name, [...SURFACES, 'vendor']])),
  store: ['session', 'contract', 'server', 'cli', 'mcp', 'integrations'],
  session: ['contract', 'server', 'cli', 'mcp', 'integrations'],
  pools: ['contract', 'server', 'cli', 'mcp', 'integrations'],
  // `barometer report` reads logs from disk over the readers, the session's what-if and the core, below the surfaces.
  report: ['contract', 'server', 'cli', 'mcp', 'integrations'],
  // The contract (every wire shape) sits above the library and below the surfaces that speak it.
  contract: ['server', 'cli', 'mcp', 'integrations'],
  server: ['cli'],
  // The MCP server is a surface over the session, store and core, beside the HTTP service: never over it.
  mcp: ['server', 'cli', 'integrations'],
  // The route table and the problem answers that the service and the proxy both register with (Fastify's types, the
  // error catalogue): below every surface.
  http: ['session', 'store', 'pools', 'report', 'contract', 'server', 'cli', 'mcp', 'integrations', 'proxy'],
  // The proxy is a surface over the session, store and core that registers its own routes in the service: never
  // over the service itself (no import back), nor the CLI.
  proxy: ['server', 'cli', 'mcp', 'integrations'],
};
const NETWORK_AND_SERVER_PACKAGES = /^(node:(net|http|https|http2)|fastify|@fastify\/|pino$|commander$)/;

function violations(list: readonly ImportEdge[]): string[] {
  const found: string[] = [];
  for (const edge of list) {
    const from = layer(edge.from);
    if (edge.to === null) {
      if (CORE.includes(from!) && NETWORK_AND_SERVER_PACKAGES.test(edge.specifier))
        found.push(`${edge.from} → ${edge.specifier} (the pure core loads no server or network package)`);
      continue;
    }
    const to = layer(edge.to);
    // The dashboard reads the contract's types and runs none of src's code: `import type` only, no exception.
    if (from === 'web' && edge.to.startsWith('src/') && !edge.typeOnly)
      found.push(`${edge.from} → ${edge.specifier} (web may only \`import type\` from src)`);
    else if (from === 'web' && edge.to.startsWith('src/') && !edge.to.startsWith('src/contract/'))
      found.push(
        `${edge.from} → ${edge.specifier} (web reads the server's shapes from the contract, src/contract)`,
      );
    if (from && to && FORBIDDEN[from]?.includes(to!))
      found.push(`${edge.from} → ${edge.specifier} (${from} must not import ${to})`);
  }
  return found;
}

describe('import rules (DESIGN.md layering)', () => {
  it('keeps every layer to what it may import', () => {
    expect(violations(edges)).toEqual([]);
  });

  it('has no import cycle in src', () => {
    expect(findCycle(edges.filter((edge) => edge.from.startsWith('src/')))).toBeNull();
  });

  it('loads no server, CLI, MCP server, Fastify or pino from the library entry (import "barometer")', () => {
    const { files, packages } = reachable(edges, 'src/index.ts');
    expect([...files].filter((file) => /^src\/(server|cli|mcp)\//.test(file))).toEqual([]);
    expect([...packages].filter((name) => NETWORK_AND_SERVER_PACKAGES.test(name))).toEqual([]);
    expect([...packages].filter((name) => name.startsWith('@modelcontextprotocol/'))).toEqual([]);
  });

  it('keeps the MCP server off the HTTP service: barometer/mcp loads no Fastify and no server code', () => {
    const { files, packages } = reachable(edges, 'src/mcp/index.ts');
    expect([...files].filter((file) => /^src\/(server|cli)\//.test(file))).toEqual([]);
    expect([...packages].filter((name) => /^(fastify|@fastify\/|pino$|commander$)/.test(name))).toEqual([]);
  });

  it.each([
    'src/integrations/ai-sdk.ts',
    'src/integrations/openai.ts',
    'src/integrations/anthropic.ts',
    'src/integrations/langchain.ts',
    'src/integrations/claude-agent-sdk.ts',
    'src/integrations/openai-agents.ts',
    'src/integrations/mastra.ts',
  ])('loads no server, CLI, Fastify or pino from the adapter entry %s, and no SDK at run time', (entry) => {
    const { files, packages } = reachable(edges, entry);
    expect([...files].filter((file) => /^src\/(server|cli)\//.test(file))).toEqual([]);
    expect([...packages].filter((name) => NETWORK_AND_SERVER_PACKAGES.test(name))).toEqual([]);
    // The SDKs are optional peers, read by types only: an adapter must load without them.
    expect(
      [...packages].filter((name) =>
        /^(ai|openai|@anthropic-ai\/|@ai-sdk\/|langchain|@langchain\/|@openai\/agents|@mastra\/)/.test(name),
      ),
    ).toEqual([]);
  });

  it('loads at run time only what an install brings: dependencies, Node, and the bundled packages via src/vendor', () => {
    // The package bundles some devDependencies into dist/vendor (docs/decisions/019-install-size.md): imported from
    // anywhere else, one would be missing from every user's install. Types are erased; tests and helpers not shipped.
    const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const installed = new Set(Object.keys(manifest.dependencies));
    const packageOf = (specifier: string) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/');
    const shipped = (path: string) =>
      path.startsWith('src/') && !path.startsWith('src/vendor/') && !/\/(test-helpers|fixtures)\//.test(path);
    const missing = edges.filter(
      (edge) =>
        shipped(edge.from) &&
        edge.to === null &&
        !edge.typeOnly &&
        !edge.specifier.startsWith('node:') &&
        !installed.has(packageOf(edge.specifier)),
    );
    expect(missing.map((edge) => `${edge.from} → ${edge.specifier}`)).toEqual([]);
    // What src/vendor bundles is a devDependency: left in dependencies, it would be installed and shipped twice.
    const bundled = new Set(
      edges
        .filter((edge) => edge.from.startsWith('src/vendor/') && edge.to === null)
        .map((edge) => packageOf(edge.specifier)),
    );
    expect(bundled.size).toBeGreaterThan(0);
    expect([...bundled].filter((name) => installed.has(name))).toEqual([]);
  });

  it('keeps Session a thin wrapper over the pure steps (a generation, a compaction)', () => {
    const session = edges.filter(
      (edge) => edge.from === 'src/session/session.ts' && edge.to !== null && !edge.typeOnly,
    );
    expect(session.map((edge) => edge.to).sort()).toEqual(
      [
        'src/errors/validation.ts',
        'src/session/compaction-step.ts',
        'src/session/session-health.ts',
        'src/session/session-signals.ts',
        'src/session/session-state.ts',
        'src/session/session-state-schema.ts',
        'src/session/step-session.ts',
      ].sort(),
    );
  });
});

describe('lean agent entries: barometer statusline and barometer hook run on every refresh and tool call', () => {
  const SERVER = /^(fastify|@fastify\/|pino$|@modelcontextprotocol\/)/;
  const OTHER_COMMANDS =
    /^src\/(server|mcp)\/|^src\/cli\/(program|serve|watch|replay|compact|archive|pressure|interactive)\.ts$|^src\/cli\/commands\/(?!statusline|hook)/;

  it('main.ts imports every entry on demand: no command module loads before argv is read', () => {
    const main = edges.filter((edge) => edge.from === 'src/cli/main.ts');
    expect(main.filter((edge) => !edge.dynamic)).toEqual([]);
    expect(main.map((edge) => edge.to).sort()).toEqual(
      [
        'src/cli/hook-main.ts',
        'src/cli/program.ts',
        'src/cli/report-main.ts',
        'src/cli/statusline-main.ts',
      ].sort(),
    );
  });

  it('src/cli/report-main.ts loads no server and no other command (a cached report is answered in well under a second)', () => {
    const { files, packages } = reachable(edges, 'src/cli/report-main.ts');
    const others = [...files].filter(
      (file) => OTHER_COMMANDS.test(file) && file !== 'src/cli/commands/report.ts',
    );
    expect(others).toEqual([]);
    expect([...packages].filter((name) => SERVER.test(name))).toEqual([]);
  });

  for (const [entry, allowedNetwork] of [
    ['src/cli/statusline-main.ts', []],
    ['src/cli/hook-main.ts', ['node:http', 'node:https']],
  ] as const) {
    it(`${entry} loads no server, no other command, no tokenizer${allowedNetwork.length ? '' : ' and no network'}`, () => {
      const { files, packages } = reachable(edges, entry);
      expect([...files].filter((file) => OTHER_COMMANDS.test(file))).toEqual([]);
      expect([...packages].filter((name) => SERVER.test(name))).toEqual([]);
      expect([...packages].filter((name) => name.startsWith('gpt-tokenizer'))).toEqual([]);
      const network = [...packages].filter((name) => /^node:(net|http|https|http2)$/.test(name));
      expect(network.sort()).toEqual([...allowedNetwork].sort());
    });
  }

  it('src/cli/statusline-main.ts builds no schema it never parses: not a stored session state, not the contract (verdict, regulator report)', () => {
    // Each zod schema costs its construction at start-up; these ~450 of them were about half a status line's.
    const { files } = reachable(edges, 'src/cli/statusline-main.ts');
    const unused = [
      'src/session/session.ts',
      'src/session/session-state-schema.ts',
      'src/session/session-schemas.ts',
      'src/pressure/schemas.ts',
    ];
    expect(unused.filter((file) => files.has(file))).toEqual([]);
  });

  it('src/cli/statusline-main.ts sets zod up for one parse before any schema is built, and loads commander only for flags', () => {
    const own = edges.filter((edge) => edge.from === 'src/cli/statusline-main.ts');
    // ES modules run in the order they are imported: the first one runs before any module that builds a schema.
    expect(own[0]?.to).toBe('src/cli/one-shot-zod.ts');
    // What Claude Code runs, `barometer statusline` alone, parses no flag: commander is imported for flags only.
    const { packages } = reachable(
      edges.filter((edge) => !edge.dynamic),
      'src/cli/statusline-main.ts',
    );
    expect([...packages].filter((name) => name === 'commander')).toEqual([]);
    expect(reachable(edges, 'src/cli/statusline-main.ts').packages.has('commander')).toBe(true);
    // node:crypto's load cost a status line more than the transcript checkpoint's hashing was worth.
    expect(reachable(edges, 'src/cli/statusline-main.ts').packages.has('node:crypto')).toBe(false);
  });

  it('the checker sees a server import as a violation of the lean entry', () => {
    const fake: ImportEdge[] = [
      { from: 'src/cli/statusline-main.ts', specifier: './x.js', typeOnly: false, to: 'src/cli/x.ts' },
      {
        from: 'src/cli/x.ts',
        specifier: '../server/serve.js',
        typeOnly: false,
        dynamic: true,
        to: 'src/server/serve.ts',
      },
      { from: 'src/server/serve.ts', specifier: 'fastify', typeOnly: false, to: null },
    ];
    const { files, packages } = reachable(fake, 'src/cli/statusline-main.ts');
    expect([...files].filter((file) => OTHER_COMMANDS.test(file))).toEqual(['src/server/serve.ts']);
    expect([...packages]).toEqual(['fastify']);
  });
});

describe('the checker itself', () => {
  it('reads static, type-only, re-export and dynamic imports, and not those in comments', () => {
    const found = importsOf(
      "import { a } from './a.js';\nimport type { B } from './b.js';\nimport { type C } from './c.js';\nexport { d } from './d.js';\n// import x from './x.js';\nconst e = await import('./e.js');",
    );
    expect(found).toEqual([
      { specifier: './a.js', typeOnly: false },
      { specifier: './b.js', typeOnly: true },
      { specifier: './c.js', typeOnly: true },
      { specifier: './d.js', typeOnly: false },
      { specifier: './e.js', typeOnly: false, dynamic: true },
    ]);
  });

  it('catches a forbidden import, a value import from web, and a cycle', () => {
    const fake: ImportEdge[] = [
      { from: 'src/pressure/x.ts', specifier: '../session/y.js', typeOnly: false, to: 'src/session/y.ts' },
      {
        from: 'web/src/page.ts',
        specifier: '../../src/server/app.js',
        typeOnly: false,
        to: 'src/server/app.ts',
      },
      {
        from: 'web/src/format.ts',
        specifier: '../../src/contract/index.js',
        typeOnly: false,
        to: 'src/contract/index.ts',
      },
      {
        from: 'web/src/view.ts',
        specifier: '../../src/session/session-schemas.js',
        typeOnly: true,
        to: 'src/session/session-schemas.ts',
      },
      {
        from: 'web/src/fine.ts',
        specifier: '../../src/contract/index.js',
        typeOnly: true,
        to: 'src/contract/index.ts',
      },
      { from: 'src/session/y.ts', specifier: './z.js', typeOnly: false, to: 'src/session/z.ts' },
      { from: 'src/session/z.ts', specifier: './y.js', typeOnly: true, to: 'src/session/y.ts' },
    ];
    expect(violations(fake)).toEqual([
      'src/pressure/x.ts → ../session/y.js (pressure must not import session)',
      'web/src/page.ts → ../../src/server/app.js (web may only `import type` from src)',
      'web/src/format.ts → ../../src/contract/index.js (web may only `import type` from src)',
      "web/src/view.ts → ../../src/session/session-schemas.js (web reads the server's shapes from the contract, src/contract)",
    ]);
    expect(findCycle(fake)).toEqual(['src/session/y.ts', 'src/session/z.ts', 'src/session/y.ts']);
  });
});

/** The package and the subpath (`./x`) a bare specifier names, or null for a builtin or a package's main entry. */
function packageSubpath(specifier: string): { name: string; subpath: string } | null {
  if (specifier.startsWith('node:')) return null;
  const parts = specifier.split('/');
  const nameLength = specifier.startsWith('@') ? 2 : 1;
  if (parts.length <= nameLength) return null;
  return { name: parts.slice(0, nameLength).join('/'), subpath: `./${parts.slice(nameLength).join('/')}` };
}

/** Whether a package's `exports` map offers a subpath (exact keys and `*` patterns, as Node resolves them). */
function exportsOffer(exportsField: unknown, subpath: string): boolean {
  if (typeof exportsField !== 'object' || exportsField === null) return false;
  return Object.entries(exportsField).some(([key, target]) => {
    if (target === null || !key.startsWith('./')) return false;
    if (!key.includes('*')) return key === subpath;
    const [before, after] = key.split('*') as [string, string];
    return (
      subpath.startsWith(before) && subpath.endsWith(after) && subpath.length >= before.length + after.length
    );
  });
}

describe("no import reaches into another library's private files", () => {
  const ALL = importGraph(ROOT, ['src', 'web/src', 'bench', 'examples', 'scripts', 'test']);

  it('imports every package subpath through what the package exports', () => {
    const found: string[] = [];
    for (const edge of ALL) {
      const target = edge.to === null ? packageSubpath(edge.specifier) : null;
      if (target === null || target.name === 'barometer') continue;
      const manifest = JSON.parse(
        readFileSync(join(ROOT, 'node_modules', target.name, 'package.json'), 'utf8'),
      ) as { exports?: unknown };
      const offered =
        manifest.exports === undefined
          ? // Without an exports map every file is reachable: a stylesheet a package documents is fine; its lib/ and
            // internal/ modules are its private code.
            target.subpath.endsWith('.css') || !/(^|\/)(lib|internal)\//.test(target.subpath.slice(2))
          : exportsOffer(manifest.exports, target.subpath);
      if (!offered) found.push(`${edge.from} → ${edge.specifier} (not an entry ${target.name} exports)`);
    }
    expect(found).toEqual([]);
  });

  it('the check refuses a private file and accepts an exported subpath', () => {
    expect(exportsOffer({ '.': './index.js', './server/*': './dist/server/*' }, './server/stdio.js')).toBe(
      true,
    );
    expect(exportsOffer({ '.': './index.js' }, './lib/symbols.js')).toBe(false);
    expect(packageSubpath('fastify/lib/symbols.js')).toEqual({
      name: 'fastify',
      subpath: './lib/symbols.js',
    });
    expect(packageSubpath('@scope/pkg')).toBeNull();
  });
});
