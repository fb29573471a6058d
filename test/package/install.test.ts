import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CommandResult,
  cleanEnvironment,
  createEmptyProject,
  npmInstall,
  type PackedPackage,
  packBarometer,
  REPO_ROOT,
  runCommand,
} from '../../src/test-helpers/packed-install.js';

/**
 * barometer as a user gets it: the package packed from the built repository (`npm test` builds first), installed
 * from its tarball into an empty `npm init -y` project (CommonJS, no `type` field) in a temporary folder, and used
 * the ways a user uses it. Its dependencies come from the npm registry (or npm's cache): without it this suite
 * fails, it does not skip.
 */

const manifest = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
  peerDependencies: Record<string, string>;
};
const SUBPATHS = [
  'barometer',
  'barometer/server',
  'barometer/mcp',
  'barometer/ai-sdk',
  'barometer/openai',
  'barometer/anthropic',
  'barometer/langchain',
  'barometer/claude-agent-sdk',
  'barometer/openai-agents',
  'barometer/mastra',
  'barometer/internal',
];
/** One export of each entry that a user calls, and must be a function. */
const ENTRY_POINTS: Record<string, string> = {
  barometer: 'createTokenCounter',
  'barometer/server': 'startServer',
  'barometer/mcp': 'createBarometerMcpServer',
  'barometer/ai-sdk': 'barometerMiddleware',
  'barometer/openai': 'wrapOpenAI',
  'barometer/anthropic': 'wrapAnthropic',
  'barometer/langchain': 'barometerMiddleware',
  'barometer/claude-agent-sdk': 'barometerClaudeAgent',
  'barometer/openai-agents': 'barometerModel',
  'barometer/mastra': 'barometerProcessor',
  'barometer/internal': 'stepSession',
};
/** Texts whose counts the bundled encodings must give exactly as gpt-tokenizer does. */
const TEXTS = [
  'hello world',
  'The quick brown fox jumps over the lazy dog.\n\n',
  'function add(a: number, b: number): number {\n  return a + b;\n}\n',
  '{"role":"tool","content":[{"type":"text","text":"ls -la\\n total 48"}]}',
  '獲取 pydantic Field 用法文檔 — ünïcödé, emoji 🚀🔥',
  'a quoted special token <|endoftext|> and <|im_start|> counted as text',
  `${' '.repeat(40)}\t\t\n${'x'.repeat(300)}`,
];

let scratch: string;
let project: string;
let packed: PackedPackage;
let install: CommandResult;
const requireFromRepo = createRequire(join(REPO_ROOT, 'package.json'));

/** Node on a script of the project, in the project. */
const node = (args: string[]) => runCommand(process.execPath, args, { cwd: project, timeoutMs: 60_000 });
const npx = (args: string[]) =>
  runCommand('npx', ['--no-install', ...args], { cwd: project, timeoutMs: 60_000 });

beforeAll(async () => {
  const check = spawnSync(process.execPath, ['scripts/build.mjs', '--check'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  if (check.status !== 0)
    throw new Error(
      `the build is missing or older than its sources: run npm run build first\n${check.stdout}`,
    );
  scratch = await mkdtemp(join(tmpdir(), 'barometer-package-'));
  packed = await packBarometer(scratch);
  project = join(scratch, 'project');
  await mkdir(project);
  await createEmptyProject(project);
  install = await npmInstall(project, [packed.tarball]);
  if (install.code !== 0)
    throw new Error(`npm install of the tarball failed:\n${install.stdout}${install.stderr}`);
}, 300_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});

describe('the packed package', () => {
  it('holds the build, the dashboard, the samples, README and LICENSE', () => {
    expect(packed.files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/cli/main.js',
        'dist/vendor/gpt-tokenizer-o200k_base.cjs',
        'dist/vendor/gpt-tokenizer-cl100k_base.cjs',
        'dist/vendor/THIRD-PARTY-NOTICES.txt',
        'web/dist/index.html',
        'samples/claude-code-small.jsonl',
      ]),
    );
  });

  it('npm publish --dry-run is clean: nothing npm would correct in package.json, no warning but the login one', async () => {
    // Regression: npm 11 removed "./dist/cli/main.js" from `bin` at publish ("script name … was invalid and removed").
    const dryRun = await runCommand('npm', ['publish', '--dry-run', '--ignore-scripts'], {
      cwd: REPO_ROOT,
      timeoutMs: 120_000,
    });
    const warnings = `${dryRun.stdout}\n${dryRun.stderr}`
      .split('\n')
      .filter((line) => /^npm (warn|error)/i.test(line) && !/requires you to be logged in/i.test(line));
    expect(warnings).toEqual([]);
    expect(dryRun.code).toBe(0);
  });

  it('holds no source map, test file, test helper, fixture, build stamp or source', () => {
    const unwanted = packed.files.filter((path) =>
      /\.map$|\.test\.|test-helpers\/|fixtures\/|\.build-stamp$|^src\/|^test\/|^scripts\//.test(path),
    );
    expect(unwanted).toEqual([]);
  });
});

describe('npm install <tarball> into an empty npm init -y project', () => {
  it('prints no warning of its own dependencies: no EBADENGINE, nothing deprecated', () => {
    const output = `${install.stdout}\n${install.stderr}`;
    expect(output).not.toMatch(/EBADENGINE|deprecated/i);
    const warnings = output.split('\n').filter((line) => /^npm warn/i.test(line));
    // npm's allowScripts advisory lists a package's `prepare` for a tarball or git source (it builds a git install:
    // scripts/build.mjs); installed from the registry, npm leaves `prepare` out, and for a tarball it runs none.
    const others = warnings.filter((line) => !/^npm warn install-scripts/i.test(line));
    expect(others).toEqual([]);
    const listed = warnings.filter((line) => /^npm warn install-scripts\s+\S+@\S+ \(/i.test(line));
    for (const line of listed)
      expect(line).toMatch(/\sbarometer@[\d.]+ \(prepare: node scripts\/build\.mjs --if-stale\)$/);
  });

  it('installs no optional peer and no bundled dependency (gpt-tokenizer, the MCP SDK, prom-client)', () => {
    const installed = Object.keys(
      (requireFromProject('./node_modules/.package-lock.json') as { packages: Record<string, unknown> })
        .packages,
    );
    for (const name of [
      ...Object.keys(manifest.peerDependencies),
      'gpt-tokenizer',
      '@fastify/static',
      'prom-client',
    ])
      expect(installed).not.toContain(`node_modules/${name}`);
  });
});

describe('using the installed package', () => {
  it('npx barometer --version prints the package version', async () => {
    const result = await npx(['barometer', '--version']);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe(manifest.version);
    expect(result.code).toBe(0);
  });

  it('npx barometer replay <the bundled sample> --what-if prints the what-if summary', async () => {
    const result = await npx([
      'barometer',
      'replay',
      'node_modules/barometer/samples/claude-code-small.jsonl',
      '--what-if',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^What-if: barometer's eviction policy on the same calls/m);
    expect(result.stdout).toMatch(/^ {2}prompt tokens {2}\d+ → \d+ \(−\d+(\.\d)?%\)$/m);
    expect(result.stdout).toMatch(/^barometer would have sent \d+(\.\d)?% fewer prompt tokens/m);
  });

  it('npx barometer report --since 2026-01-01 on a home laid out like a real one prints the table, and --json holds the same rows', async () => {
    // The agents' default places under a scratch HOME, holding copies of the recorded sessions of each agent.
    const home = join(scratch, 'home');
    const traces = join(REPO_ROOT, 'test', 'fixtures', 'traces');
    const claude = '4d5611e5-241a-462a-8d15-5122611a9569';
    const codex = 'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9';
    const places: Array<[string, string]> = [
      [`claude-code/${claude}.jsonl`, `.claude/projects/-home-dev-spotter/${claude}.jsonl`],
      [
        `claude-code/${claude}/subagents/agent-acompact-e1f845.jsonl`,
        `.claude/projects/-home-dev-spotter/${claude}/subagents/agent-acompact-e1f845.jsonl`,
      ],
      ['claude-code/small-sonnet-session.jsonl', '.claude/projects/-home-dev-tracker/small-sonnet.jsonl'],
      [`codex/${codex}.jsonl`, `.codex/sessions/2026/02/23/${codex}.jsonl`],
      [
        'pi-coding-agent/large-session-head.jsonl',
        '.pi/agent/sessions/--Users-badlogic-workspaces-pi-mono--/2025-11-20T23-33-50-805Z_d703a1a9.jsonl',
      ],
      ['gemini/small-gemini-session.jsonl', '.gemini/tmp/abc123/chats/session-small.jsonl'],
    ];
    for (const [from, to] of places) {
      await mkdir(dirname(join(home, to)), { recursive: true });
      await writeFile(join(home, to), await readFile(join(traces, from)));
    }
    const env = {
      HOME: home,
      TZ: 'UTC',
      BAROMETER_DATA_DIR: join(home, 'barometer-data'),
      CLAUDE_CONFIG_DIR: '',
      CODEX_HOME: '',
      PI_CODING_AGENT_DIR: '',
      // npm keeps its update check's state under HOME: a fresh one would print npm's own notice on stderr.
      npm_config_update_notifier: 'false',
    };
    const report = (args: string[]) =>
      runCommand('npx', ['--no-install', 'barometer', 'report', '--since', '2026-01-01', ...args], {
        cwd: project,
        env,
        timeoutMs: 120_000,
      });
    const table = await report([]);
    expect(table.stderr).toBe('');
    expect(table.code).toBe(0);
    const json = await report(['--json']);
    expect(json.code).toBe(0);
    const result = JSON.parse(json.stdout) as {
      rows: Array<{ key: string; calls: number; costUsd: number }>;
      total: { key: string; calls: number; costUsd: number; agents: string[] };
      files: { found: number; skipped: unknown[] };
    };
    // Every file found and read; the small Sonnet session (August 2025) and pi's (November 2025) are before --since.
    expect(result.files).toMatchObject({ found: 6, skipped: [] });
    expect(result.total.agents).toEqual(['claude-code', 'codex', 'gemini-cli']);
    expect(result.rows.map((row) => row.key).sort()).toEqual(
      [claude, `${claude}/agent-acompact-e1f845`, codex, 'session-small'].sort(),
    );
    // Each row of the JSON is a line of the table, with the same calls and cost (as the table rounds it).
    const lines = table.stdout.split('\n');
    for (const row of [...result.rows, result.total]) {
      const line = lines.find((text) => text.startsWith(`${row.key} `));
      expect(line, row.key).toBeDefined();
      expect(line).toContain(` ${row.calls} `);
      expect(line).toContain(`$${row.costUsd.toFixed(2)}`);
    }
    expect(table.stdout).toContain('[1] Streamed lines');
  }, 240_000);

  it('import of barometer and of each subpath works from an ES module (.mjs), without the optional peers', async () => {
    await writeFile(
      join(project, 'entries.mjs'),
      `const found = {};\nfor (const [specifier, name] of Object.entries(${JSON.stringify(ENTRY_POINTS)})) found[specifier] = typeof (await import(specifier))[name];\nconsole.log(JSON.stringify(found));\n`,
    );
    const result = await node(['entries.mjs']);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual(Object.fromEntries(SUBPATHS.map((path) => [path, 'function'])));
  });

  it('require of barometer and of each subpath works from CommonJS (.cjs)', async () => {
    await writeFile(
      join(project, 'entries.cjs'),
      `const found = {};\nfor (const [specifier, name] of Object.entries(${JSON.stringify(ENTRY_POINTS)})) found[specifier] = typeof require(specifier)[name];\nconsole.log(JSON.stringify(found));\n`,
    );
    const result = await node(['entries.cjs']);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual(Object.fromEntries(SUBPATHS.map((path) => [path, 'function'])));
  });

  it('counts tokens exactly as gpt-tokenizer does, in both encodings, without gpt-tokenizer installed', async () => {
    await writeFile(
      join(project, 'count.mjs'),
      `import { createTokenCounter } from 'barometer';\nconst texts = ${JSON.stringify(TEXTS)};\nconst counts = {};\nfor (const encoding of ['o200k_base', 'cl100k_base']) { const counter = createTokenCounter({ encoding }); counts[encoding] = texts.map((text) => counter.count(text)); }\nconsole.log(JSON.stringify(counts));\n`,
    );
    const result = await node(['count.mjs']);
    expect(result.stderr).toBe('');
    const none = { disallowedSpecial: new Set<string>() };
    expect(JSON.parse(result.stdout)).toEqual({
      o200k_base: TEXTS.map((text) => countO200k(text, none)),
      cl100k_base: TEXTS.map((text) => countCl100k(text, none)),
    });
  });

  it('a .ts file run by tsx in the CommonJS project imports barometer and barometer/server', async () => {
    await writeFile(
      join(project, 'check.ts'),
      "import { createTokenCounter, type TokenCounter } from 'barometer';\nimport { startServer } from 'barometer/server';\nconst counter: TokenCounter = createTokenCounter();\nconsole.log(JSON.stringify({ tokens: counter.count('hello world'), startServer: typeof startServer }));\n",
    );
    const tsxManifest = requireFromRepo('tsx/package.json') as { bin: string };
    const tsx = join(dirname(requireFromRepo.resolve('tsx/package.json')), tsxManifest.bin);
    const result = await node([tsx, 'check.ts']);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ tokens: 2, startServer: 'function' });
  });

  it("createBarometerMcpServer serves the client of the user's own MCP SDK (the package's is bundled)", async () => {
    const data = join(scratch, 'mcp-data');
    await writeFile(
      join(project, 'mcp.mjs'),
      [
        "import { createRequire } from 'node:module';",
        "import { ArchiveStore, SessionMonitor } from 'barometer';",
        "import { createBarometerMcpServer } from 'barometer/mcp';",
        `const sdk = createRequire(${JSON.stringify(join(REPO_ROOT, 'package.json'))});`,
        "const { Client } = sdk('@modelcontextprotocol/sdk/client/index.js');",
        "const { InMemoryTransport } = sdk('@modelcontextprotocol/sdk/inMemory.js');",
        `const archive = new ArchiveStore({ root: ${JSON.stringify(data)} });`,
        'const server = createBarometerMcpServer({ monitor: new SessionMonitor({ archive }), archive });',
        "const client = new Client({ name: 'package-test', version: '1.0.0' });",
        'const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();',
        'await Promise.all([server.connect(serverSide), client.connect(clientSide)]);',
        'const { tools } = await client.listTools();',
        "const created = await client.callTool({ name: 'create_session', arguments: { model: 'gpt-4o' } });",
        'console.log(JSON.stringify({ tools: tools.map((tool) => tool.name), created: !created.isError }));',
        'await client.close();',
      ].join('\n'),
    );
    const result = await node(['mcp.mjs']);
    expect(result.stderr).toBe('');
    const answer = JSON.parse(result.stdout) as { tools: string[]; created: boolean };
    expect(answer.tools).toEqual(
      expect.arrayContaining(['evaluate_pressure', 'create_session', 'report_usage']),
    );
    expect(answer.created).toBe(true);
  });

  it('barometer serve answers the dashboard, /metrics and /mcp (the bundled static server, prom-client, SDK)', async () => {
    const { child, url } = await serve(['--data-dir', join(scratch, 'serve-data')]);
    try {
      const dashboard = await fetch(`${url}/`);
      expect(dashboard.status).toBe(200);
      expect(dashboard.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await dashboard.text()).toMatch(/<title>barometer/);

      const metrics = await fetch(`${url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toMatch(
        /^barometer_http_requests_total\{method="GET",route="\/",status="200"\} 1$/m,
      );

      const initialize = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'package-test', version: '1' },
          },
        }),
      });
      expect(initialize.status).toBe(200);
      const answer = JSON.parse(await initialize.text()) as { result: { serverInfo: { name: string } } };
      expect(answer.result.serverInfo.name).toBe('barometer');
    } finally {
      // Waited for: the service writes its sessions out as it stops, and the scratch folder is removed after it
      // (a removal during that write failed with ENOTEMPTY).
      const exited = new Promise((done) => child.once('exit', done));
      child.kill();
      if (child.exitCode === null && child.signalCode === null) await exited;
    }
  });
});

function requireFromProject(path: string): unknown {
  return createRequire(join(project, 'package.json'))(path);
}

/** `barometer serve` of the installed package on a free port of 127.0.0.1, once it says where it listens. */
function serve(args: string[]): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  const child = spawn(
    process.execPath,
    ['node_modules/barometer/dist/cli/main.js', 'serve', '--host', '127.0.0.1', '--port', '0', ...args],
    { cwd: project, env: cleanEnvironment(), stdio: 'pipe' },
  );
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match =
        /listening at (http:\/\/\S+?)"/i.exec(output) ?? /listening on (http:\/\/\S+?)\s/i.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1]! });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${output}`));
    });
  });
}
