import { readdir, stat } from 'node:fs/promises';
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

async function listFiles(directory: string): Promise<string[]> {
  try {
    const entries = await readdir(directory, { recursive: true });
    return entries
      .filter((entry) => LOG_EXTENSIONS.has(extname(entry)))
      .map((entry) => join(directory, entry));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') return [];
    throw error;
  }
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
  for (const root of roots) {
    for (const path of await listFiles(root.directory)) {
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
      for (const file of await listFiles(path)) candidates.push({ path: file, root });
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
