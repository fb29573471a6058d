import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findCycle, type ImportEdge, importGraph, importsOf, reachable } from './import-graph.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const edges = importGraph(ROOT, ['src', 'web/src', 'bench', 'examples']).filter(
  (edge) => !edge.from.endsWith('.test.ts'),
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
];
const SURFACES = ['session', 'store', 'pools', 'server', 'cli', 'mcp', 'integrations'];
const FORBIDDEN: Record<string, readonly string[]> = {
  ...Object.fromEntries(CORE.map((name) => [name, SURFACES])),
  store: ['session', 'server', 'cli', 'mcp', 'integrations'],
  session: ['server', 'cli', 'mcp', 'integrations'],
  server: ['cli'],
  // The MCP server is a surface over the session, store and core, beside the HTTP service: never over it.
  mcp: ['server', 'cli', 'integrations'],
};
/**
 * Value imports from src that web may make, each with its reason. The regulator page prints the API's report
 * exactly as `barometer pressure` does by running the CLI's own formatter: a pure function of 42 lines whose own
 * imports are types only, so the bundle gains no server code, and the two outputs cannot drift apart.
 */
const WEB_VALUE_IMPORTS = new Set(['src/cli/format-pressure.ts']);
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
    if (from === 'web' && edge.to.startsWith('src/') && !edge.typeOnly && !WEB_VALUE_IMPORTS.has(edge.to))
      found.push(`${edge.from} → ${edge.specifier} (web imports types only from src)`);
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

  it.each(['src/integrations/ai-sdk.ts', 'src/integrations/openai.ts', 'src/integrations/anthropic.ts'])(
    'loads no server, CLI, Fastify or pino from the adapter entry %s, and no SDK at run time',
    (entry) => {
      const { files, packages } = reachable(edges, entry);
      expect([...files].filter((file) => /^src\/(server|cli)\//.test(file))).toEqual([]);
      expect([...packages].filter((name) => NETWORK_AND_SERVER_PACKAGES.test(name))).toEqual([]);
      // The SDKs are optional peers, read by types only: an adapter must load without them.
      expect([...packages].filter((name) => /^(ai|openai|@anthropic-ai\/sdk|@ai-sdk\/)/.test(name))).toEqual(
        [],
      );
    },
  );

  it('keeps Session a thin wrapper over the pure step', () => {
    const session = edges.filter(
      (edge) => edge.from === 'src/session/session.ts' && edge.to !== null && !edge.typeOnly,
    );
    expect(session.map((edge) => edge.to).sort()).toEqual(
      [
        'src/errors/validation.ts',
        'src/session/session-health.ts',
        'src/session/session-signals.ts',
        'src/session/session-state.ts',
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
      ['src/cli/hook-main.ts', 'src/cli/program.ts', 'src/cli/statusline-main.ts'].sort(),
    );
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
      { from: 'src/session/y.ts', specifier: './z.js', typeOnly: false, to: 'src/session/z.ts' },
      { from: 'src/session/z.ts', specifier: './y.js', typeOnly: true, to: 'src/session/y.ts' },
    ];
    expect(violations(fake)).toHaveLength(2);
    expect(findCycle(fake)).toEqual(['src/session/y.ts', 'src/session/z.ts', 'src/session/y.ts']);
  });
});
