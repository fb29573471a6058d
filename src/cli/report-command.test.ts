import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../test-helpers/memory-io.js';
import { exitOf, spawnCli } from '../test-helpers/spawn-cli.js';
import { TRACES } from '../usage/test-helpers/traces.js';
import { run } from './program.js';

const trace = (path: string) => fileURLToPath(new URL(path, TRACES));
const CLAUDE_SESSION = '4d5611e5-241a-462a-8d15-5122611a9569';
const CODEX_ROLLOUT = 'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9';
const PI_SESSION = '2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617';

let home: string;

/** Runs the command in this process (the same program the binary runs), for the cases that need no real process. */
async function reportHere(args: string[]) {
  const terminal = memoryIo({
    env: { HOME: home, BAROMETER_DATA_DIR: join(home, 'barometer-data') },
  });
  const code = await run(['report', '--time-zone', 'UTC', ...args], { io: terminal.io });
  return { code, stdout: terminal.stdout, stderr: terminal.stderr };
}

/** Runs the real CLI in a child process with HOME on the scratch home; days in UTC. */
async function report(args: string[], env: Record<string, string> = {}) {
  const child = spawnCli(['report', ...args], {
    HOME: home,
    TZ: 'UTC',
    BAROMETER_DATA_DIR: join(home, 'barometer-data'),
    CLAUDE_CONFIG_DIR: '',
    CODEX_HOME: '',
    PI_CODING_AGENT_DIR: '',
    ...env,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await exitOf(child);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  // A home directory laid out as the agents lay it out, holding copies of the recorded sessions.
  home = await mkdtemp(join(tmpdir(), 'barometer-report-home-'));
  const projects = join(home, '.claude', 'projects');
  await mkdir(join(projects, '-home-dev-spotter'), { recursive: true });
  await mkdir(join(projects, '-home-dev-tracker'), { recursive: true });
  await cp(
    trace(`claude-code/${CLAUDE_SESSION}.jsonl`),
    join(projects, '-home-dev-spotter', `${CLAUDE_SESSION}.jsonl`),
  );
  await cp(trace(`claude-code/${CLAUDE_SESSION}`), join(projects, '-home-dev-spotter', CLAUDE_SESSION), {
    recursive: true,
  });
  await cp(
    trace('claude-code/small-sonnet-session.jsonl'),
    join(projects, '-home-dev-tracker', 'small-sonnet.jsonl'),
  );
  const codexDay = join(home, '.codex', 'sessions', '2026', '02', '23');
  await mkdir(codexDay, { recursive: true });
  await cp(trace(`codex/${CODEX_ROLLOUT}.jsonl`), join(codexDay, `${CODEX_ROLLOUT}.jsonl`));
  // pi keeps a folder per working directory, its path with dashes (`--<cwd>--`), and names files `<time>_<id>`.
  const piSessions = join(home, '.pi', 'agent', 'sessions', '--Users-badlogic-workspaces-pi-mono--');
  await mkdir(piSessions, { recursive: true });
  await cp(trace('pi-coding-agent/large-session-head.jsonl'), join(piSessions, `${PI_SESSION}.jsonl`));
  const geminiChats = join(home, '.gemini', 'tmp', 'abc123', 'chats');
  await mkdir(geminiChats, { recursive: true });
  await cp(trace('gemini/small-gemini-session.jsonl'), join(geminiChats, 'session-small.jsonl'));
  // Not a session log: listed as skipped, never a failure.
  await writeFile(join(projects, '-home-dev-tracker', 'notes.jsonl'), 'hello\n');
}, 30_000);

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('barometer report', () => {
  it('prints the table of the sessions since a day from the default places, and --json holds the same rows', async () => {
    const table = await report(['--since', '2026-01-01']);
    expect(table.stderr).toBe('');
    expect(table.code).toBe(0);
    const json = await report(['--since', '2026-01-01', '--json']);
    expect(json.code).toBe(0);
    const result = JSON.parse(json.stdout);
    expect(result.view).toBe('session');
    // small-sonnet (August 2025) is before --since; the gemini session (April 2026) and the others are in.
    expect(result.rows.map((row: { key: string }) => row.key).sort()).toEqual(
      [CODEX_ROLLOUT, CLAUDE_SESSION, `${CLAUDE_SESSION}/agent-acompact-e1f845`, 'session-small'].sort(),
    );
    const claude = result.rows.find((row: { key: string }) => row.key === CLAUDE_SESSION);
    // ccusage 18 reports this session at $9.0056 with 7,933 output tokens (its first streamed line of each message);
    // the last lines hold 28,755: 20,822 more at claude-opus-4-6's $25 per million = $0.5206 → $9.5261.
    expect(claude.costUsd).toBeCloseTo(9.0056 + (20_822 * 25) / 1e6, 3);
    expect(claude).toMatchObject({
      agents: ['claude-code'],
      projects: ['-home-dev-spotter'],
      calls: 139,
      inputTokens: 177,
      outputTokens: 28_755,
      cacheReadTokens: 11_618_567,
      cacheWriteTokens: 479_537,
      autoCompactions: 1,
      manualCompactions: 0,
    });
    // What the footnote counts is ccusage's difference: its 7,933 output tokens and $9.0056 are ours less the streamed.
    expect(claude.streamedOutputTokens).toBe(28_755 - 7_933);
    expect(claude.costUsd - claude.streamedCostUsd).toBeCloseTo(9.0056, 4);
    expect(result.total.streamedOutputTokens).toBe(20_822);
    expect(result.footnotes[0]).toContain(
      "In this report: 20,822 output tokens after a message's first line, $0.5206 of the cost",
    );
    expect(claude.whatIf.sessions).toBe(1);
    // Priced by the cache model, the what-if of this session (one auto compaction, evictions far back in a long
    // history) sends more than the agent did (decision 097): the report shows it as a negative saving, not hidden.
    expect(Number.isInteger(claude.whatIf.savedPromptTokens)).toBe(true);
    expect(claude.whatIf.savedPromptTokens).not.toBe(0);
    // Every row of the JSON is a line of the table, with its calls and its cost as the table rounds it.
    for (const row of [...result.rows, result.total]) {
      const line = table.stdout.split('\n').find((text) => text.startsWith(`${row.key} `));
      expect(line, row.key).toBeDefined();
      expect(line).toContain(` ${row.calls} `);
      expect(line).toContain(`$${row.costUsd.toFixed(2)}`);
    }
    const sum = result.rows.reduce((total: number, row: { costUsd: number }) => total + row.costUsd, 0);
    expect(result.total.costUsd).toBeCloseTo(sum, 9);
    expect(result.files.skipped).toEqual([
      {
        path: join(home, '.claude', 'projects', '-home-dev-tracker', 'notes.jsonl'),
        problem: expect.any(String),
      },
    ]);
    expect(table.stdout).toContain('[1] Streamed lines');
    // Every agent's default place was searched: two Claude Code projects (a sub-agent's own file among them, and the
    // note), Codex's sessions by day, pi's and Gemini CLI's folders.
    expect(result.files.found).toBe(7);
  }, 120_000);

  it('answers a second run from its cache, with the same figures', async () => {
    const first = JSON.parse((await report(['--view', 'daily', '--json', '--no-what-if'])).stdout);
    const second = JSON.parse((await report(['--view', 'daily', '--json', '--no-what-if'])).stdout);
    expect(second.files.read).toBe(0);
    expect(second.files.cached).toBe(first.files.found);
    expect(second.rows).toEqual(first.rows);
    expect(second.rows.map((row: { key: string }) => row.key)).toEqual([
      '2025-08-28',
      '2025-11-20',
      '2026-02-12',
      '2026-02-23',
      '2026-02-24',
      '2026-04-23',
    ]);
    // The daily view explains its Claude Code figures against ccusage's with the same footnotes as the session view.
    const session = JSON.parse((await report(['--json', '--no-what-if'])).stdout);
    expect(second.footnotes).toEqual(session.footnotes);
    expect(second.footnotes[0]).toMatch(/^Streamed lines: /);
    const dailyTable = (await report(['--view', 'daily', '--no-what-if'])).stdout;
    expect(dailyTable).toContain(`[1] ${second.footnotes[0]}`);
  }, 120_000);

  it('narrows to one agent and one project, and writes CSV and Markdown', async () => {
    const codex = JSON.parse(
      (await reportHere(['--agent', 'codex', '--view', 'project', '--json', '--no-what-if'])).stdout,
    );
    expect(codex.rows).toHaveLength(1);
    expect(codex.total.agents).toEqual(['codex']);
    const spotter = JSON.parse(
      (await reportHere(['--project', '-home-dev-spotter', '--view', 'model', '--json', '--no-what-if']))
        .stdout,
    );
    expect(spotter.rows.map((row: { key: string }) => row.key)).toEqual(['claude-opus-4-6']);
    expect(spotter.total.calls).toBe(140);
    // pi logs its own price of each message (usage.cost.total): 14 billed claude-sonnet-4-5 messages, $0.61852365
    // in all, and one aborted gpt-5.1-codex response with no tokens.
    const pi = JSON.parse(
      (await reportHere(['--agent', 'pi', '--view', 'project', '--json', '--no-what-if'])).stdout,
    );
    expect(pi.rows.map((row: { key: string }) => row.key)).toEqual(['Users-badlogic-workspaces-pi-mono']);
    expect(pi.total.costUsd).toBeCloseTo(0.61852365, 6);
    const csv = await reportHere(['--view', 'model', '--csv', '--no-what-if']);
    expect(csv.stdout.split('\r\n')[0]).toMatch(/^model,calls,input,output,cache read,cache write,cost,/);
    const markdown = await reportHere(['--view', 'model', '--markdown', '--no-what-if']);
    expect(markdown.stdout).toMatch(/^\| model \| calls \|/);
    expect(markdown.stdout).toContain('| **total** |');
  }, 120_000);

  it('reads the files and folders given instead of the default places', async () => {
    const given = await reportHere([trace('codex'), '--json', '--no-what-if', '--no-cache']);
    expect(given.code).toBe(0);
    expect(JSON.parse(given.stdout).total.agents).toEqual(['codex']);
  }, 60_000);

  it('draws a progress bar on a terminal once reading takes more than a second, and none elsewhere', async () => {
    const reportWithClock = async (tty: boolean) => {
      const terminal = memoryIo({ env: { HOME: home } });
      let stderr = '';
      terminal.io.stderr = { write: (text: string) => (stderr += text), isTTY: tty };
      // A clock that moves 2 s each time it is read: every file read after the first looks slow.
      let clock = 0;
      const code = await run(['report', '--no-what-if', '--no-cache', '--json'], {
        io: terminal.io,
        now: () => (clock += 2000),
      });
      return { code, stderr };
    };
    const onTerminal = await reportWithClock(true);
    expect(onTerminal.code).toBe(0);
    expect(onTerminal.stderr).toMatch(/\rreport: \[#*-*\] \d+% \d+\/\d+ files/);
    // The bar is wiped at the end, so the table starts on a clean line.
    expect(onTerminal.stderr.endsWith('\r\u001b[2K')).toBe(true);
    expect((await reportWithClock(false)).stderr).toBe('');
  }, 60_000);

  it('refuses a bad day, a bad view and a missing path, naming each (exit 2)', async () => {
    const day = await reportHere(['--since', '2026-13-01']);
    expect(day.code).toBe(2);
    expect(day.stderr).toContain('--since');
    const view = await reportHere(['--view', 'weekly']);
    expect(view.code).toBe(2);
    expect(view.stderr).toContain('--view must be one of daily, session, project, model');
    const missing = await reportHere([join(home, 'nowhere')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nowhere');
  }, 60_000);
});
