import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../server/app.js';
import { replayLogText } from '../session/replay.js';
import { SessionMonitor } from '../session/session-monitor.js';
import type { SessionView } from '../session/session-schemas.js';
import { readSessionLog } from '../usage/read-session-log.js';
import { handleHookEvent, parseHookInput } from './agent-hook.js';
import { BarometerClient } from './barometer-client.js';
import { withSessionLock } from './file-lock.js';
import { type LiveSessions, MonitorSessions, ServiceSessions } from './live-sessions.js';
import { isCandidateLog, LogWatcher, type WatchEvent } from './log-watcher.js';

const TRACES = new URL('../../test/fixtures/traces/', import.meta.url);
const trace = (name: string) => readFileSync(new URL(name, TRACES), 'utf8');

const CLAUDE = 'claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl';
const CLAUDE_SMALL = 'claude-code/small-sonnet-session.jsonl';
const CODEX = 'codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';
const GEMINI = 'gemini/small-gemini-session.jsonl';
const VIEWER = 'claude-code/viewer-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'barometer-watch-'));
  cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/** mulberry32, so that the cut points are the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), state | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Appends a log to a file as an agent writes it, line by line, each line cut in two at a random point with a poll
 * between the halves (so the watcher sees partial lines), and a poll after each line.
 */
async function appendLineByLine(path: string, text: string, watcher: LogWatcher, seed = 7): Promise<void> {
  const random = seeded(seed);
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    const bytes = Buffer.from(`${line}\n`, 'utf8');
    const cut = Math.floor(random() * bytes.length);
    appendFileSync(path, bytes.subarray(0, cut));
    await watcher.poll();
    appendFileSync(path, bytes.subarray(cut));
    await watcher.poll();
  }
}

/** What replay says about a log, reduced to what a live session shows. */
function expectedOf(text: string) {
  const replay = replayLogText(text);
  const last = replay.calls.at(-1)!;
  return {
    replay,
    generations: replay.summary.calls,
    lastPromptTokens: replay.calls.findLast((call) => call.promptTokens !== null)?.promptTokens ?? null,
    action: last.action,
    health: last.health,
    points: replay.calls.map((call) => [call.promptTokens, call.health, call.action]),
    compactions: replay.compactions.map((compaction) => [
      Date.parse(compaction.timestamp),
      compaction.trigger,
    ]),
  };
}

function observedOf(view: SessionView) {
  return {
    generations: view.generations,
    lastPromptTokens: view.signals.lastPromptTokens,
    action: view.verdict?.action,
    health: view.health.level,
    points: view.timeline.map((point) => [point.promptTokens, point.health, point.action]),
    compactions: view.markers
      .filter((marker) => marker.type === 'compaction')
      .map((marker) => [Date.parse(marker.timestamp), /^(\S+) compaction/.exec(marker.detail)?.[1]]),
  };
}

async function followInto(sessions: LiveSessions, folder: string, events: WatchEvent[] = []) {
  const watcher = new LogWatcher({
    roots: [folder],
    sessions,
    notify: false,
    timers: false,
    onEvent: (event) => events.push(event),
  });
  cleanups.push(() => watcher.close());
  await watcher.start();
  return watcher;
}

describe('barometer watch: a log appended line by line becomes the live session replay describes', () => {
  // The folders are the `cwd` the recorded logs carry (grep '"cwd"' on each file); Gemini CLI's log states none.
  for (const [name, id, folderOfAgent] of [
    [CLAUDE, '4d5611e5-241a-462a-8d15-5122611a9569', '/home/USER/projects/spotter-worktrees/spotter-dov'],
    [CLAUDE_SMALL, 'small-sonnet-session', '/home/wei/repo/claude-code'],
    [CODEX, '019c8a59-e9dd-71f0-9ae3-4079fe9726a9', '/redacted/path/59b923df4d'],
    [GEMINI, '0ab84937-9fe7-4284-986a-33c832af0b6a', null],
  ] as const) {
    it(`${name}: calls, last prompt, every point's health and verdict, compaction markers, the agent's folder`, async () => {
      const text = trace(name);
      const expected = expectedOf(text);
      const folder = tempFolder();
      const monitor = new SessionMonitor();
      const events: WatchEvent[] = [];
      const watcher = await followInto(new MonitorSessions(monitor), folder, events);
      const path = join(folder, name.split('/')[1]!);
      writeFileSync(path, '');
      watcher.scan();
      await appendLineByLine(path, text, watcher);
      // The last call is held until the log has been quiet (it may still be streaming): one call short so far.
      expect((await monitor.view(id)).generations).toBe(expected.generations - 1);
      await watcher.close();
      const view = await monitor.view(id);
      const { replay, ...wanted } = expected;
      expect(observedOf(view)).toEqual(wanted);
      expect(view.workingDirectory).toBe(folderOfAgent);
      // Codex's rate_limits reach the session as replay reads them: the windows' last figures, 25% and 20%.
      if (name === CODEX)
        expect(monitor.accountWindows().map((track) => [track.id, track.usedPercent])).toEqual([
          ['primary', 25],
          ['secondary', 20],
        ]);
      // Titled by its first request as the whole log reads it, though the session was created at its first call.
      expect(view.title).toBe(readSessionLog(text).firstRequest ?? null);
      expect(events.filter((event) => event.type === 'error')).toEqual([]);
      expect(events.find((event) => event.type === 'session')).toMatchObject({
        type: 'session',
        id,
        model: replay.calls[0]!.model,
        resumed: false,
      });
    });
  }

  it('feeds a running service over HTTP the same way (a real app on 127.0.0.1)', async () => {
    const app = await buildApp({
      logLevel: 'silent',
      dataDir: tempFolder(),
      rateLimitPerMinute: 0,
      ingestRateLimitPerMinute: 0,
    });
    cleanups.push(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const text = trace(CODEX);
    const expected = expectedOf(text);
    const folder = tempFolder();
    const watcher = await followInto(new ServiceSessions(new BarometerClient({ url })), folder);
    const path = join(folder, CODEX.split('/')[1]!);
    writeFileSync(path, '');
    watcher.scan();
    await appendLineByLine(path, text, watcher, 11);
    await watcher.close();
    const view = (await (
      await fetch(`${url}/api/v1/sessions/019c8a59-e9dd-71f0-9ae3-4079fe9726a9`)
    ).json()) as SessionView;
    const { replay: _replay, ...wanted } = expected;
    expect(observedOf(view)).toEqual(wanted);
    // The windows went over HTTP too: replay's 4 calls that wait for the 5-hour window wait here as well.
    expect(wanted.points.filter((point) => point[2] === 'wait')).toHaveLength(4);
    expect(view.profile.contextWindow).toBe(258_400);
    expect(view.workingDirectory).toBe('/redacted/path/59b923df4d');
  });
});

describe("barometer watch with the agent's hooks on the same session", () => {
  it('counts every call and the compaction once when hooks report them too', async () => {
    const app = await buildApp({
      logLevel: 'silent',
      dataDir: tempFolder(),
      rateLimitPerMinute: 0,
      ingestRateLimitPerMinute: 0,
    });
    cleanups.push(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const locks = tempFolder();
    const exclusive = <T>(id: string, work: () => Promise<T>) =>
      withSessionLock(url, id, work, { directory: locks });
    const text = trace(CLAUDE);
    const lines = text.split('\n').filter(Boolean);
    const id = '4d5611e5-241a-462a-8d15-5122611a9569';
    const folder = tempFolder();
    const path = join(folder, `${id}.jsonl`);
    // The agent's clock: the time of the line just written (the hooks fire as it writes).
    let clock = 0;
    const now = () => clock;
    const watcher = new LogWatcher({
      roots: [folder],
      sessions: new MonitorSessions(app.barometerMonitor),
      notify: false,
      timers: false,
      now,
      exclusive,
    });
    cleanups.push(() => watcher.close());
    await watcher.start();
    writeFileSync(path, '');
    watcher.scan();
    const hook = (event: string, extra: Record<string, unknown> = {}) =>
      handleHookEvent(
        parseHookInput(
          JSON.stringify({ session_id: id, transcript_path: path, hook_event_name: event, ...extra }),
        ),
        { sessions: new ServiceSessions(new BarometerClient({ url })), exclusive, now },
      );
    for (const [index, line] of lines.entries()) {
      const at = /"timestamp":"([^"]+)"/.exec(line)?.[1];
      if (at) clock = Date.parse(at);
      if (line.includes('compact_boundary')) await hook('PreCompact', { trigger: 'auto' });
      appendFileSync(path, `${line}\n`);
      if (index % 7 === 0) await hook('PostToolUse', { tool_name: 'Bash' });
      await watcher.poll();
      // The watcher's quiet period passes now and then, as it would between turns.
      if (index % 50 === 0) await watcher.flush();
    }
    await watcher.close();
    const view = await app.barometerMonitor.view(id);
    const replay = replayLogText(text);
    expect(view.generations).toBeLessThanOrEqual(replay.summary.calls);
    expect(view.generations).toBeGreaterThan(replay.summary.calls - 10);
    expect(view.signals.lastPromptTokens).toBe(replay.calls.at(-1)!.promptTokens);
    expect(view.markers.filter((marker) => marker.type === 'compaction')).toHaveLength(1);
    // The timeline never goes back in time: no call was posted after a later one.
    const times = view.timeline.map((point) => Date.parse(point.timestamp));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(times).size).toBe(times.length);
  });
});

describe('barometer watch: files', () => {
  it('follows a file that appears after the start, and reads a restarted (truncated) file from its top', async () => {
    const folder = tempFolder();
    const monitor = new SessionMonitor();
    const watcher = await followInto(new MonitorSessions(monitor), folder);
    const lines = trace(CLAUDE_SMALL).split('\n').filter(Boolean);
    const path = join(folder, 'late.jsonl');
    writeFileSync(path, `${lines.slice(0, 20).join('\n')}\n`);
    watcher.scan();
    await watcher.poll();
    await watcher.flush();
    const before = (await monitor.view('late')).generations;
    expect(before).toBeGreaterThan(0);
    // The agent starts the file over: the same records again are not counted twice; new ones are.
    writeFileSync(path, '');
    await watcher.poll();
    writeFileSync(path, `${lines.join('\n')}\n`);
    await watcher.poll();
    await watcher.flush();
    expect((await monitor.view('late')).generations).toBe(replayLogText(trace(CLAUDE_SMALL)).summary.calls);
  });

  it('reads a log of a million empty lines, then the session written after them (issue 40: a stack overflow)', async () => {
    const folder = tempFolder();
    const monitor = new SessionMonitor();
    const watcher = await followInto(new MonitorSessions(monitor), folder);
    const path = join(folder, 'blank.jsonl');
    writeFileSync(path, '\n'.repeat(1_000_000));
    watcher.scan();
    await watcher.poll();
    appendFileSync(path, trace(CLAUDE_SMALL));
    await watcher.poll();
    await watcher.flush();
    expect((await monitor.view('blank')).generations).toBe(replayLogText(trace(CLAUDE_SMALL)).summary.calls);
  });

  it('reads a rotated file (a new file renamed over the old one) as a fresh start', async () => {
    const folder = tempFolder();
    const monitor = new SessionMonitor();
    const events: WatchEvent[] = [];
    const watcher = await followInto(new MonitorSessions(monitor), folder, events);
    const claude = trace(CLAUDE_SMALL).split('\n').filter(Boolean);
    const path = join(folder, 'rotating.jsonl');
    writeFileSync(path, `${claude.slice(0, 10).join('\n')}\n`);
    watcher.scan();
    await watcher.poll();
    const next = join(folder, 'rotating.tmp');
    writeFileSync(next, `${claude.join('\n')}\n`);
    renameSync(next, path);
    await watcher.close();
    expect((await monitor.view('rotating')).generations).toBe(
      replayLogText(trace(CLAUDE_SMALL)).summary.calls,
    );
    expect(events.filter((event) => event.type === 'error')).toEqual([]);
  });

  it('leaves logs last written before --since alone until they change, then reads them whole', async () => {
    const folder = tempFolder();
    const path = join(folder, 'old.jsonl');
    writeFileSync(path, trace(CLAUDE_SMALL));
    const dayAgo = new Date(Date.now() - 24 * 3600_000);
    utimesSync(path, dayAgo, dayAgo);
    const monitor = new SessionMonitor();
    const watcher = await followInto(new MonitorSessions(monitor), folder);
    await watcher.flush();
    expect(await monitor.has('old')).toBe(false);
    appendFileSync(path, '\n');
    await watcher.poll();
    await watcher.flush();
    expect((await monitor.view('old')).generations).toBe(replayLogText(trace(CLAUDE_SMALL)).summary.calls);
  });

  it("follows a sub-agent's own transcript and each inline sidechain as a child of its session, as replay reads them", async () => {
    const folder = tempFolder();
    const main = '4d5611e5-241a-462a-8d15-5122611a9569';
    mkdirSync(join(folder, main, 'subagents'), { recursive: true });
    writeFileSync(join(folder, `${main}.jsonl`), trace(CLAUDE));
    const subagentText = trace(`claude-code/${main}/subagents/agent-acompact-e1f845.jsonl`);
    writeFileSync(join(folder, main, 'subagents', 'agent-acompact-e1f845.jsonl'), subagentText);
    const viewer = trace(VIEWER);
    writeFileSync(join(folder, 'viewer.jsonl'), viewer);
    writeFileSync(join(folder, 'notes.jsonl'), '{"hello":"world"}\n'.repeat(60));
    const monitor = new SessionMonitor();
    const events: WatchEvent[] = [];
    const watcher = await followInto(new MonitorSessions(monitor), folder, events);
    await watcher.flush();
    for (const log of watcher.logs.values()) await log.idle();
    const listed = new Map((await monitor.list()).map((session) => [session.id, session]));

    // The subagents/ file: its session is named by its agentId, its parent is the transcript's session.
    const ownFile = replayLogText(trace(CLAUDE), {
      subagents: [{ name: 'agent-acompact-e1f845.jsonl', text: subagentText }],
    }).children![0]!;
    const child = listed.get(ownFile.id!);
    expect(child?.parentId).toBe(main);
    expect(child?.generations).toBe(ownFile.summary.calls);
    expect(child?.signals.costUsd).toBeCloseTo(ownFile.summary.costUsd ?? Number.NaN, 9);

    // The inline sidechains: one child session per chain, each with the calls and cost replay gives it.
    const replayed = replayLogText(viewer);
    expect(replayed.children?.length).toBe(2);
    const parent = listed.get('viewer');
    expect(parent?.parentId).toBeNull();
    expect(parent?.generations).toBe(replayed.summary.calls);
    for (const chain of replayed.children ?? []) {
      const session = listed.get(chain.id!);
      expect(session?.parentId).toBe('viewer');
      expect(session?.generations).toBe(chain.summary.calls);
      expect(session?.signals.costUsd).toBeCloseTo(chain.summary.costUsd ?? Number.NaN, 9);
    }
    const told = events.filter((event) => event.type === 'session' && event.parentId === 'viewer');
    expect(told).toHaveLength(2);
    // The parent lists its sub-agents, and its totals with them are the report's (replay's `total`).
    expect([...(parent?.subAgents ?? [])].sort()).toEqual(
      (replayed.children ?? []).map((chain) => chain.id).sort(),
    );
    const family = await monitor.subAgents('viewer');
    expect(family.subAgents.map((summary) => summary.parentId)).toEqual(['viewer', 'viewer']);
    expect(family.own.calls).toBe(replayed.summary.calls);
    expect(family.withSubAgents.calls).toBe(replayed.summary.total.calls);
    expect(family.withSubAgents.tokens).toBe(
      replayed.summary.total.promptTokens + replayed.summary.total.completionTokens,
    );
    expect(family.withSubAgents.costUsd).toBeCloseTo(replayed.summary.total.costUsd ?? Number.NaN, 6);
    expect(listed.get(main)?.subAgents).toContain(ownFile.id);
    // Nothing else: the notes file is not an agent log.
    expect(listed.size).toBe(2 + 2 + 1);
    expect(isCandidateLog('/x/.claude/projects/p/s/subagents/agent-1.jsonl')).toBe(true);
    expect(isCandidateLog('/x/.gemini/tmp/h/chats/parent-id/child.jsonl')).toBe(false);
    expect(isCandidateLog('/x/.gemini/tmp/h/chats/session-2026-04-23T12-52-0ab84937.jsonl')).toBe(true);
  });

  it('follows a log in real time through change notices and settles its last call without being told', async () => {
    const folder = tempFolder();
    const monitor = new SessionMonitor();
    const watcher = new LogWatcher({
      roots: [folder],
      sessions: new MonitorSessions(monitor),
      pollMs: 200,
      rescanMs: 400,
      settleMs: 150,
    });
    cleanups.push(() => watcher.close());
    await watcher.start();
    const text = trace(CLAUDE_SMALL);
    const path = join(folder, 'live.jsonl');
    for (const line of text.split('\n').filter(Boolean)) {
      appendFileSync(path, `${line}\n`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const wanted = replayLogText(text).summary.calls;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if ((await monitor.has('live')) && (await monitor.view('live')).generations === wanted) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await monitor.view('live')).generations).toBe(wanted);
  });
});
