import { type Dirent, type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { LINE_LOG_FORMATS, type LineLogFormat } from '../usage/create-line-log-reader.js';
import { sniffLog } from '../usage/detect-log-format.js';
import { liveSessionId } from './agent-hook.js';
import { LiveLog, type LiveLogEvent } from './live-log.js';
import type { LiveSessions } from './live-sessions.js';
import { LogFollower } from './log-follower.js';

/** Defaults of `LogWatcher` (and `barometer watch`). */
export const WATCH_DEFAULTS = Object.freeze({
  /** Logs written to within this long are followed from the start; older ones once they change. 2 h. */
  sinceMs: 2 * 60 * 60 * 1000,
  /** How often followed files are checked when no change notice arrives. */
  pollMs: 1000,
  /** How often the folders are walked again for files a change notice missed. */
  rescanMs: 5000,
  /** How long a log must be quiet before its last call is taken as final. */
  settleMs: 1500,
});

/** Lines of a file read before giving up on recognizing it as an agent's log. */
const SNIFF_LINES = 50;
/** How deep the folders are walked (`~/.codex/sessions/YYYY/MM/DD/…` is 4). */
const MAX_DEPTH = 6;

export type WatchEvent =
  | (LiveLogEvent & { path: string })
  | { type: 'following'; path: string; format: LineLogFormat }
  | { type: 'error'; path: string | undefined; error: unknown };

export interface LogWatcherOptions {
  /** Folders (walked) or log files to follow. */
  roots: readonly string[];
  sessions: LiveSessions;
  /** @default 7200000 (2 h) */
  sinceMs?: number;
  /** @default 1000 */
  pollMs?: number;
  /** @default 5000 */
  rescanMs?: number;
  /** @default 1500 */
  settleMs?: number;
  /** Use change notices (`fs.watch`); polling alone when false (tests drive `poll()` themselves). @default true */
  notify?: boolean;
  /** Start the timers; when false, nothing runs until `scan()`/`poll()`/`flush()` are called. @default true */
  timers?: boolean;
  now?: () => number;
  /** Serializes the check-and-post of a live session with the agent's hooks (see `LiveLogOptions.exclusive`). */
  exclusive?: <T>(sessionId: string, work: () => Promise<T>) => Promise<T>;
  onEvent?: (event: WatchEvent) => void;
}

interface Followed {
  follower: LogFollower;
  /** Not yet read: its last change is older than `since`; it is read from the start once it changes. */
  dormant: boolean;
  mtimeMs: number;
  size: number;
  /** Lines read before the format was recognized. */
  pending: string[];
  log: LiveLog | undefined;
  /** Not an agent log (recognized as something else, or nothing after SNIFF_LINES lines). */
  ignored: boolean;
  settle: NodeJS.Timeout | undefined;
}

function isFormat(format: string | undefined): format is LineLogFormat {
  return (LINE_LOG_FORMATS as readonly string[]).includes(format ?? '');
}

/**
 * A file is a candidate log when it is JSON lines and not a Gemini CLI sub-session (`chats/<parent session>/`).
 * Claude Code's sub-agents' own transcripts (`<session>/subagents/agent-<id>.jsonl`) are followed as sessions of
 * their own, children of their session (`subagentParent`).
 */
export function isCandidateLog(path: string): boolean {
  if (!path.endsWith('.jsonl')) return false;
  if (basename(dirname(dirname(path))) === 'chats') return false;
  return true;
}

/**
 * The session a Claude Code sub-agent's transcript belongs to (`<session>/subagents/agent-<id>.jsonl`: the folder's
 * name) and the sub-agent's own id (`<id>`, the `agentId` its records carry, as replay names it); undefined for
 * any other file.
 */
export function subagentParent(path: string): { parentId: string; id: string } | undefined {
  if (basename(dirname(path)) !== 'subagents') return undefined;
  return {
    parentId: basename(dirname(dirname(path))),
    id: basename(path, '.jsonl').replace(/^agent-/, ''),
  };
}

/**
 * Follows agent logs (Claude Code, Codex, Gemini CLI) under some folders as they are written, each log a live
 * session: new files are found by change notices (`fs.watch` on each folder) and, as a fallback, by walking the
 * folders again every `rescanMs`; followed files are read incrementally (only the bytes added) when a notice
 * arrives or, failing that, when a poll every `pollMs` sees them change. Files last written before `since` are left
 * alone until they change. The format of each file is recognized from its first records.
 */
export class LogWatcher {
  readonly #options: LogWatcherOptions;
  readonly #files = new Map<string, Followed>();
  readonly #directories = new Map<string, FSWatcher | undefined>();
  readonly #timers: NodeJS.Timeout[] = [];
  #closed = false;
  #polling: Promise<void> | undefined;

  constructor(options: LogWatcherOptions) {
    this.#options = options;
  }

  get #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  /** The live logs found so far, by file path. */
  get logs(): ReadonlyMap<string, LiveLog> {
    const logs = new Map<string, LiveLog>();
    for (const [path, followed] of this.#files) if (followed.log) logs.set(path, followed.log);
    return logs;
  }

  /** Walks the folders, reads what is active, and starts the notices and timers. */
  async start(): Promise<void> {
    this.scan();
    await this.poll();
    if (this.#options.timers === false) return;
    const pollMs = this.#options.pollMs ?? WATCH_DEFAULTS.pollMs;
    const rescanMs = this.#options.rescanMs ?? WATCH_DEFAULTS.rescanMs;
    this.#timers.push(setInterval(() => void this.poll(), pollMs));
    this.#timers.push(
      setInterval(() => {
        this.scan();
        void this.poll();
      }, rescanMs),
    );
  }

  /** Finds new folders and files under the roots (and wakes dormant files that changed). */
  scan(): void {
    for (const root of this.#options.roots) {
      let info: ReturnType<typeof statSync>;
      try {
        info = statSync(root);
      } catch {
        continue;
      }
      if (info.isDirectory()) this.#walk(root, 0);
      else if (info.isFile()) this.#register(root, true);
    }
  }

  /** Reads every followed file that changed; resolves once what was read has been sent. */
  poll(): Promise<void> {
    // One poll at a time: a notice arriving during a poll is covered by the next.
    this.#polling ??= this.#pollOnce().finally(() => {
      this.#polling = undefined;
    });
    return this.#polling;
  }

  /** Takes every log's held last call as final (as a quiet period would). */
  async flush(final = false): Promise<void> {
    await Promise.all([...this.#files.values()].map((followed) => followed.log?.flush(final)));
  }

  /** Stops notices and timers, reads what is left, and sends every held call and compaction. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const timer of this.#timers) clearInterval(timer);
    for (const watcher of this.#directories.values()) watcher?.close();
    // Files that appeared since the last walk (a notice not yet handled) are read too.
    this.scan();
    await this.#pollOnce();
    for (const followed of this.#files.values()) {
      clearTimeout(followed.settle);
      const last = followed.follower.flushPartial();
      if (last !== undefined) this.#feed(followed, [last]);
    }
    await this.flush(true);
  }

  async #pollOnce(): Promise<void> {
    for (const [path, followed] of this.#files) {
      if (followed.ignored) continue;
      if (followed.dormant) {
        if (!this.#wakes(path, followed)) continue;
        followed.dormant = false;
      }
      if (!followed.follower.changed()) continue;
      let result: ReturnType<LogFollower['read']>;
      try {
        result = followed.follower.read();
      } catch (error) {
        this.#emit({ type: 'error', path, error });
        continue;
      }
      if (result.gone) continue;
      if (result.restarted) {
        followed.log?.restart();
        followed.pending = [];
      }
      if (result.lines.length > 0) this.#feed(followed, result.lines);
    }
    await Promise.all([...this.#files.values()].map((followed) => followed.log?.idle()));
  }

  /** Whether a dormant file changed since it was found. */
  #wakes(path: string, followed: Followed): boolean {
    try {
      const info = statSync(path);
      return info.mtimeMs !== followed.mtimeMs || info.size !== followed.size;
    } catch {
      return false;
    }
  }

  #feed(followed: Followed, lines: string[]): void {
    const path = followed.follower.path;
    if (!followed.log) {
      // One push per line: a spread of a million lines (a log of empty lines) overflowed the call stack.
      for (const line of lines) followed.pending.push(line);
      const sniff = sniffLog(followed.pending.filter((line) => line.trim() !== '').join('\n'));
      if (!isFormat(sniff.format)) {
        const jsonLines = followed.pending.filter((line) => line.trim().startsWith('{')).length;
        if (sniff.format !== undefined || jsonLines >= SNIFF_LINES) {
          followed.ignored = true;
          followed.pending = [];
        }
        return;
      }
      const stem = basename(path, '.jsonl');
      const subagent = sniff.format === 'claude-code' ? subagentParent(path) : undefined;
      followed.log = new LiveLog({
        format: sniff.format,
        // Claude Code names a transcript by its session id; Codex ends a rollout's name with it.
        fallbackId:
          subagent?.id ??
          /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.exec(stem)?.[0] ??
          stem,
        ...(subagent ? { parentId: liveSessionId(subagent.parentId) } : {}),
        sessions: this.#options.sessions,
        ...(this.#options.now ? { now: this.#options.now } : {}),
        ...(this.#options.exclusive ? { exclusive: this.#options.exclusive } : {}),
        onEvent: (event) => this.#emit({ ...event, path }),
        onError: (error) => this.#emit({ type: 'error', path, error }),
      });
      this.#emit({ type: 'following', path, format: sniff.format });
      lines = followed.pending;
      followed.pending = [];
    }
    followed.log.lines(lines);
    if (this.#options.timers === false || this.#closed) return;
    clearTimeout(followed.settle);
    followed.settle = setTimeout(
      () => void followed.log?.flush(),
      this.#options.settleMs ?? WATCH_DEFAULTS.settleMs,
    );
  }

  #walk(directory: string, depth: number): void {
    this.#watchDirectory(directory);
    let entries: Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        // A session's `subagents/` folder is walked whatever the depth: its transcripts are the session's children.
        if (entry.name === 'subagents' || depth < MAX_DEPTH) this.#walk(path, depth + 1);
      } else if (entry.isFile() && isCandidateLog(path)) {
        this.#register(path, false);
      }
    }
  }

  /** Starts following a file; `fresh` (a file that appeared while watching, or named directly) is never dormant. */
  #register(path: string, fresh: boolean): void {
    if (this.#files.has(path)) return;
    let info: ReturnType<typeof statSync>;
    try {
      info = statSync(path);
    } catch {
      return;
    }
    const since = this.#options.sinceMs ?? WATCH_DEFAULTS.sinceMs;
    this.#files.set(path, {
      follower: new LogFollower(path),
      dormant: !fresh && since > 0 && info.mtimeMs < this.#now - since,
      mtimeMs: info.mtimeMs,
      size: info.size,
      pending: [],
      log: undefined,
      ignored: false,
      settle: undefined,
    });
  }

  #watchDirectory(directory: string): void {
    if (this.#directories.has(directory)) return;
    let watcher: FSWatcher | undefined;
    if (this.#options.notify !== false && !this.#closed) {
      try {
        watcher = watch(directory, { persistent: false }, (_event, name) => this.#notice(directory, name));
        watcher.on('error', () => {
          // A folder removed or out of watch handles: the rescans and polls still find what changes.
          watcher?.close();
          this.#directories.set(directory, undefined);
        });
      } catch {
        // Out of inotify watches (ENOSPC) or no permission: polling alone covers this folder.
        watcher = undefined;
      }
    }
    this.#directories.set(directory, watcher);
  }

  #notice(directory: string, name: string | Buffer | null): void {
    if (this.#closed) return;
    if (name) {
      const path = join(directory, String(name));
      if (!this.#files.has(path)) {
        try {
          const info = statSync(path);
          if (info.isDirectory() && String(name) !== 'subagents') this.#walk(path, 0);
          else if (info.isFile() && isCandidateLog(path)) this.#register(path, true);
        } catch {
          // Gone already.
        }
      }
    }
    void this.poll();
  }

  #emit(event: WatchEvent): void {
    this.#options.onEvent?.(event);
  }
}
