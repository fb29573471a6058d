import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type RunningServer, startServer } from '../../server/serve.js';
import { type CassetteServer, startCassetteServer } from '../../test-helpers/cassette-server.js';
import { createTokenCounter } from '../../tokens/create-token-counter.js';
import { type CacheBillingProvider, cacheBillingProvider } from './cache-billing-provider.js';
import { messageStream } from './fake-anthropic.js';

type Json = Record<string, unknown>;

/** The native Claude Code binary of the devDependency (npm may skip its postinstall: the platform package's). */
export function claudeBinary(): string | undefined {
  const require = createRequire(import.meta.url);
  try {
    const packageJson = require.resolve(
      `@anthropic-ai/claude-code-${process.platform}-${process.arch}/package.json`,
    );
    const binary = join(dirname(packageJson), process.platform === 'win32' ? 'claude.exe' : 'claude');
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

/** 29 source-like files of 4.8–16 KB, each line different, so that a Read result is thousands of tokens. */
export const SESSION_FILES = Array.from({ length: 29 }, (_, index) => {
  const name = `module-${String(index + 1).padStart(2, '0')}.txt`;
  const lines = 60 + ((index * 37) % 141);
  return {
    name,
    text: Array.from(
      { length: lines },
      (_, line) =>
        `${name} line ${line}: the ${index + 1}th module computes value ${(line * 7919 + index * 104729) % 100000} for row ${line}.`,
    ).join('\n'),
  };
});

type Step = { tool: { id: string; name: string; input: Json } } | { text: string };

/** The sub-tasks of the script: three ended by `TaskUpdate` to completed, three by a `git commit`. */
const PARTS: ReadonlyArray<
  { end: 'task'; taskId: string; reads: number } | { end: 'commit'; reads: number }
> = [
  { end: 'task', taskId: '1', reads: 5 },
  { end: 'commit', reads: 5 },
  { end: 'task', taskId: '2', reads: 5 },
  { end: 'commit', reads: 5 },
  { end: 'task', taskId: '3', reads: 5 },
  { end: 'commit', reads: 4 },
];

export const FINAL_ANSWER = 'All done: 29 modules reviewed in six parts.';

/**
 * The fake model's script, by the number of tool results the request holds: load the task tools through
 * `ToolSearch` (Claude Code 2.1.328 defers them), create three tasks, then six sub-tasks of reads, each ended by
 * its `TaskUpdate { status: "completed" }` or by a `git commit` of a note, then the final answer: 43 main calls.
 */
export function sessionScript(directory: string): Step[] {
  const steps: Step[] = [];
  const call = (name: string, input: Json) =>
    steps.push({ tool: { id: `toolu_${String(steps.length).padStart(2, '0')}_${name}`, name, input } });
  call('ToolSearch', { query: 'select:TaskCreate,TaskUpdate', max_results: 5 });
  for (const number of ['1', '2', '3'])
    call('TaskCreate', {
      subject: `Review part ${number}`,
      description: `Read the modules of part ${number} and note what they compute`,
      activeForm: `Reviewing part ${number}`,
    });
  let file = 0;
  PARTS.forEach((part, index) => {
    if (part.end === 'task') call('TaskUpdate', { taskId: part.taskId, status: 'in_progress' });
    for (let read = 0; read < part.reads; read++)
      call('Read', { file_path: join(directory, (SESSION_FILES[file++] as { name: string }).name) });
    if (part.end === 'task') call('TaskUpdate', { taskId: part.taskId, status: 'completed' });
    else
      call('Bash', {
        command: `printf 'part ${index + 1} reviewed\\n' > notes-${index + 1}.txt && git add -A && git commit -qm "part ${index + 1} reviewed"`,
        description: `Commit part ${index + 1}`,
      });
  });
  steps.push({ text: FINAL_ANSWER });
  return steps;
}

/** The tool results of a request's messages. */
export function toolResultCount(body: Json): number {
  return ((body.messages as Json[]) ?? []).reduce(
    (count, message) =>
      count +
      (Array.isArray(message.content)
        ? (message.content as Json[]).filter((block) => block.type === 'tool_result').length
        : 0),
    0,
  );
}

export interface ScriptedRun {
  mode: 'act' | 'observe';
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** The main conversation's requests as the provider received them, in order. */
  bodies: Json[];
  provider: CacheBillingProvider;
  server: RunningServer;
  fake: CassetteServer;
  root: string;
  home: string;
  /** The data folder's archives (where the proxy's tombstones point). */
  archiveDir: string;
}

const OUTPUT_TOKENS = 60;

/**
 * Runs the real Claude Code on the script through barometer's server: acting (its proxy routes) or observed (its
 * `/observe` routes, as `wrap --observe` on a shared proxy does), against a fake Anthropic provider that bills every
 * main call by the documented cache rules, at the time the request arrives.
 */
export async function runScriptedSession(binary: string, mode: 'act' | 'observe'): Promise<ScriptedRun> {
  const root = mkdtempSync(join(tmpdir(), `barometer-cc-savings-${mode}-`));
  const workdir = join(root, 'work');
  const home = join(root, 'home');
  mkdirSync(workdir);
  mkdirSync(home);
  for (const file of SESSION_FILES) writeFileSync(join(workdir, file.name), file.text);
  const gitEnv = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };
  execFileSync('git', ['init', '-q'], { cwd: workdir, env: gitEnv });
  const steps = sessionScript(workdir);
  const provider = cacheBillingProvider(createTokenCounter());
  const bodies: Json[] = [];
  const fake = await startCassetteServer((request) => {
    const body = request.body ?? {};
    if (request.path.startsWith('/v1/messages/count_tokens'))
      return { headers: { 'content-type': 'application/json' }, body: '{"input_tokens":1000}' };
    const tools = Array.isArray(body.tools) ? body.tools : [];
    const usage = { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    // A side call (a title, a summary of a command): not the conversation, not billed with it.
    if (tools.length === 0)
      return messageStream('msg_side', String(body.model), { ...usage, output_tokens: 5 }, { text: 'ok' });
    bodies.push(body);
    const billed = provider.bill(body, Date.now(), OUTPUT_TOKENS);
    const step = steps[Math.min(toolResultCount(body), steps.length - 1)] as Step;
    return messageStream(`msg_${bodies.length}`, String(body.model), billed, step);
  });
  const server = await startServer({
    port: 0,
    logLevel: 'silent',
    dashboard: false,
    dataDir: join(root, 'data'),
    proxy: { anthropicUpstream: fake.url },
  });
  const child = spawn(
    binary,
    [
      '-p',
      'Review the modules in six parts; track the parts as tasks and commit a note after the others.',
      '--model',
      'claude-sonnet-4-5',
      '--allowedTools',
      'Read Bash ToolSearch TaskCreate TaskUpdate',
    ],
    {
      cwd: workdir,
      env: {
        ...gitEnv,
        HOME: home,
        ANTHROPIC_BASE_URL: mode === 'observe' ? `${server.url}/observe` : server.url,
        ANTHROPIC_API_KEY: 'sk-ant-test-key-never-stored',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return {
    mode,
    exitCode,
    stdout,
    stderr,
    bodies,
    provider,
    server,
    fake,
    root,
    home,
    archiveDir: join(root, 'data', 'archives'),
  };
}

/** The session id Claude Code sent (its transcript's name). */
export function sessionIdOf(body: Json): string {
  return String(JSON.parse(String((body.metadata as Json).user_id)).session_id);
}

/** Claude Code's transcript of the run's session: `$HOME/.claude/projects/<cwd slug>/<session>.jsonl`. */
export function transcriptPath(run: ScriptedRun): string {
  const projects = join(run.home, '.claude', 'projects');
  const name = `${sessionIdOf(run.bodies[0] as Json)}.jsonl`;
  for (const project of readdirSync(projects)) {
    const path = join(projects, project, name);
    if (existsSync(path)) return path;
  }
  throw new Error(`no transcript ${name} under ${projects}`);
}
