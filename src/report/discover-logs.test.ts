import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultLogRoots, discoverLogs } from './discover-logs.js';

let home: string;

async function touch(path: string, text = '{}\n') {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, text);
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'barometer-discover-'));
  await touch(join(home, '.claude/projects/-home-me-app/s1.jsonl'));
  await touch(join(home, '.claude/projects/-home-me-app/s1/subagents/agent-x.jsonl'));
  await touch(join(home, '.config/claude/projects/-home-me-lib/s2.jsonl'));
  await touch(join(home, '.codex/sessions/2026/02/23/rollout-1.jsonl'));
  await touch(join(home, '.pi/agent/sessions/--home-me-app--/2026_s3.jsonl'));
  await touch(join(home, '.gemini/tmp/abc/chats/session-4.json'));
  await touch(join(home, '.gemini/tmp/abc/logs.json'));
  await touch(join(home, '.claude/projects/-home-me-app/notes.txt'));
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('defaultLogRoots', () => {
  it("lists each agent's folder under the home directory", () => {
    expect(defaultLogRoots({}, '/h')).toEqual([
      { agent: 'claude-code', directory: '/h/.config/claude/projects' },
      { agent: 'claude-code', directory: '/h/.claude/projects' },
      { agent: 'codex', directory: '/h/.codex/sessions' },
      { agent: 'pi', directory: '/h/.pi/agent/sessions' },
      { agent: 'gemini-cli', directory: '/h/.gemini/tmp' },
    ]);
  });

  it('follows CLAUDE_CONFIG_DIR (a comma-separated list), CODEX_HOME and PI_CODING_AGENT_DIR', () => {
    const roots = defaultLogRoots(
      { CLAUDE_CONFIG_DIR: '/a, /b', CODEX_HOME: '/c', PI_CODING_AGENT_DIR: '/p' },
      '/h',
    );
    expect(roots.map((root) => root.directory)).toEqual([
      '/a/projects',
      '/b/projects',
      '/c/sessions',
      '/p/sessions',
      '/h/.gemini/tmp',
    ]);
  });
});

describe('discoverLogs', () => {
  it('finds every log in the default places with its project and session', async () => {
    const { logs } = await discoverLogs(defaultLogRoots({}, home));
    const places = logs.map((log) => [log.path.slice(home.length + 1), log.project, log.session]).sort();
    expect(places).toEqual(
      [
        ['.claude/projects/-home-me-app/s1.jsonl', '-home-me-app', 's1'],
        ['.claude/projects/-home-me-app/s1/subagents/agent-x.jsonl', '-home-me-app', 's1/agent-x'],
        ['.codex/sessions/2026/02/23/rollout-1.jsonl', '23', 'rollout-1'],
        ['.config/claude/projects/-home-me-lib/s2.jsonl', '-home-me-lib', 's2'],
        ['.gemini/tmp/abc/chats/session-4.json', 'abc', 'session-4'],
        ['.pi/agent/sessions/--home-me-app--/2026_s3.jsonl', 'home-me-app', '2026_s3'],
      ].sort(),
    );
    expect(logs.every((log) => log.size === 3 && log.mtimeMs > 0)).toBe(true);
  });

  it('reads given files and folders instead, and names the ones that do not exist', async () => {
    const { logs, missing } = await discoverLogs(
      [],
      [
        join(home, '.claude/projects'),
        join(home, '.codex/sessions/2026/02/23/rollout-1.jsonl'),
        join(home, 'nope'),
      ],
    );
    expect(missing).toEqual([join(home, 'nope')]);
    expect(logs.map((log) => log.project).sort()).toEqual(['-home-me-app', '-home-me-app', '23']);
  });

  it('counts a log once through symbolic-link loops, links to parents and links out of the folder (issue 40)', async () => {
    const project = join(home, 'links/project');
    const outside = join(home, 'links/elsewhere');
    await touch(join(project, 'session.jsonl'));
    await touch(join(outside, 'other.jsonl'));
    // A loop to the folder's parent (`report` once counted the log 41 times), one to the folder's own parent's
    // parent, a second name for the log, and a link out of the folder whose own link leads back in and beyond.
    await mkdir(join(project, 'sub'), { recursive: true });
    await symlink('..', join(project, 'sub/up'));
    await symlink('../../..', join(project, 'sub/way-up'));
    await symlink(join(project, 'session.jsonl'), join(project, 'again.jsonl'));
    await symlink(outside, join(project, 'out'));
    await symlink(join(home, 'links'), join(outside, 'back'));
    const { logs } = await discoverLogs([], [project]);
    expect(logs.map((log) => log.path.slice(project.length + 1)).sort()).toEqual([
      'out/other.jsonl',
      'session.jsonl',
    ]);
  });
});
