import type { Dirent, Stats } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';

/** One agent's default place for its session logs, as its source sets it (docs/rules.md, "Where the logs are"). */
export interface LogRoot {
  /** The agent whose logs the folder holds. */
  agent: 'claude-code' | 'codex' | 'pi' | 'gemini-cli';
  directory: string;
}

/** A session log found on disk, with what the report's cache keys on. */
export interface FoundLog {
  path: string;
  size: number;
  mtimeMs: number;
  /** The project the views group it under: the agent's per-project folder, else the log's parent folder. */
  project: string;
  /** The session: the file's name without extension (a sub-agent's: `<session>/<agent file>`). */
  session: string;
}

const LOG_EXTENSIONS = new Set(['.jsonl', '.json']);

/**
 * The folders the agents write their session logs to, from the environment and the home directory:
 * - Claude Code: `$CLAUDE_CONFIG_DIR/projects` (a comma-separated list is read as several), else both
 *   `~/.config/claude/projects` and `~/.claude/projects`;
 * - Codex: `$CODEX_HOME/sessions`, else `~/.codex/sessions`;
 * - the pi coding agent: `$PI_CODING_AGENT_DIR/sessions`, else `~/.pi/agent/sessions`;
 * - Gemini CLI: `~/.gemini/tmp` (its `<project>/chats/` folders).
 */
export function defaultLogRoots(env: Record<string, string | undefined>, home: string): LogRoot[] {
  const claude = (env.CLAUDE_CONFIG_DIR ?? '').trim();
  const claudeDirs =
    claude === ''
      ? [join(home, '.config', 'claude'), join(home, '.claude')]
      : claude
          .split(',')
          .map((part) => part.trim())
          .filter((part) => part !== '');
  const codexHome = env.CODEX_HOME?.trim() || join(home, '.codex');
  const piDir = env.PI_CODING_AGENT_DIR?.trim() || join(home, '.pi', 'agent');
  return [
    ...claudeDirs.map((dir) => ({
      agent: 'claude-code' as const,
      directory: join(resolve(dir), 'projects'),
    })),
    { agent: 'codex', directory: join(resolve(codexHome), 'sessions') },
    { agent: 'pi', directory: join(resolve(piDir), 'sessions') },
    { agent: 'gemini-cli', directory: join(home, '.gemini', 'tmp') },
  ];
}

/** Project and session of a log under a root folder, by the root's layout. */
function placeIn(root: LogRoot | undefined, path: string): { project: string; session: string } {
  const name = basename(path, extname(path));
  const parts = root ? relative(root.directory, path).split(sep) : [];
  // Claude Code: projects/<project>/<session>.jsonl and projects/<project>/<session>/subagents/<agent>.jsonl.
  if (root?.agent === 'claude-code' && parts.length >= 2) {
    const session =
      parts.length >= 4 && parts[parts.length - 2] === 'subagents' ? `${parts[1]}/${name}` : name;
    return { project: parts[0]!, session };
  }
  // pi: sessions/--<cwd with dashes>--/<time>_<id>.jsonl; Gemini CLI: tmp/<project id>/chats/<session>.json.
  if ((root?.agent === 'pi' || root?.agent === 'gemini-cli') && parts.length >= 2) {
    return { project: parts[0]!.replace(/^--|--$/g, ''), session: name };
  }
  // Codex keeps its rollouts by date: the project is the working directory its first line names (read later).
  return { project: basename(dirname(path)), session: name };
}

/** Whether `inner` is `outer` or inside it. */
function within(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : `${outer}${sep}`);
}

function unreadable(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'ELOOP' || code === 'EPERM';
}

/**
 * The log files under a folder, each once. Symbolic links are followed as a user's shell would, but a folder is
 * entered once (by its device and inode), a link to the folder or one of its ancestors is a loop and skipped, and a
 * link out of the folder is followed once: links found beyond it are not followed again. (`readdir`'s `recursive`
 * followed `sub/up → ..` until the path was too long: issue 40 counted one log 41 times.) `files` is shared by the
 * calls of one discovery, so that a log reached twice (two roots, a link) is listed once, by its first path.
 */
async function listFiles(directory: string, files: Set<string>): Promise<string[]> {
  let top: string;
  try {
    top = await realpath(directory);
  } catch (error) {
    if (unreadable(error)) return [];
    throw error;
  }
  const found: string[] = [];
  const entered = new Set<string>();
  const queue: { path: string; outside: boolean }[] = [{ path: directory, outside: false }];
  for (let next = queue.shift(); next; next = queue.shift()) {
    let entries: Dirent[];
    try {
      const info = await stat(next.path);
      const key = `${info.dev}:${info.ino}`;
      if (entered.has(key)) continue;
      entered.add(key);
      entries = await readdir(next.path, { withFileTypes: true });
    } catch (error) {
      if (unreadable(error)) continue;
      throw error;
    }
    // A folder's own files before its links: a log and a link to it are listed by the log's own name.
    entries.sort((a, b) => Number(a.isSymbolicLink()) - Number(b.isSymbolicLink()));
    for (const entry of entries) {
      const path = join(next.path, entry.name);
      let kind: Dirent | Stats = entry;
      let outside = next.outside;
      if (entry.isSymbolicLink()) {
        if (next.outside) continue;
        const target = await realpath(path).catch(() => undefined);
        // A link to this folder or above it loops; one that cannot be resolved leads nowhere.
        if (target === undefined || within(top, target)) continue;
        outside = !within(target, top);
        const info = await stat(target).catch(() => undefined);
        if (!info) continue;
        kind = info;
        if (info.isFile()) {
          const key = `${info.dev}:${info.ino}`;
          if (LOG_EXTENSIONS.has(extname(entry.name)) && !files.has(key) && files.add(key)) found.push(path);
          continue;
        }
      }
      if (kind.isDirectory()) queue.push({ path, outside });
      else if (kind.isFile() && LOG_EXTENSIONS.has(extname(entry.name))) {
        const info = await stat(path).catch(() => undefined);
        const key = info ? `${info.dev}:${info.ino}` : path;
        if (!files.has(key) && files.add(key)) found.push(path);
      }
    }
  }
  return found;
}

/**
 * Every session log in the given folders and files (or, with none given, in the agents' default places), with its
 * size and modification time. A folder is searched recursively for `.jsonl` and `.json` files; in the Gemini CLI
 * folder only the `chats` folders count. Missing default folders are skipped; a missing given path is an error
 * the caller reports (`missing` lists them).
 */
export async function discoverLogs(
  roots: readonly LogRoot[],
  paths: readonly string[] = [],
): Promise<{ logs: FoundLog[]; missing: string[] }> {
  const candidates: { path: string; root: LogRoot | undefined }[] = [];
  const missing: string[] = [];
  const files = new Set<string>();
  for (const root of roots) {
    for (const path of await listFiles(root.directory, files)) {
      if (root.agent === 'gemini-cli' && basename(dirname(path)) !== 'chats') continue;
      candidates.push({ path, root });
    }
  }
  for (const given of paths) {
    const path = resolve(given);
    const info = await stat(path).catch(() => undefined);
    if (!info) missing.push(given);
    else if (info.isDirectory()) {
      // A copy of a Claude Code projects folder keeps its projects; elsewhere a log's folder is its project.
      const root: LogRoot | undefined =
        basename(path) === 'projects' ? { agent: 'claude-code', directory: path } : undefined;
      for (const file of await listFiles(path, files)) candidates.push({ path: file, root });
    } else candidates.push({ path, root: undefined });
  }
  const seen = new Set<string>();
  const unique = candidates.filter(({ path }) => !seen.has(path) && seen.add(path));
  const logs = await Promise.all(
    unique.map(async ({ path, root }) => {
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile()) return undefined;
      return { path, size: info.size, mtimeMs: info.mtimeMs, ...placeIn(root, path) };
    }),
  );
  return { logs: logs.filter((log): log is FoundLog => log !== undefined), missing };
}
