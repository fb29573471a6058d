import { BarometerValidationError } from '../errors/validation.js';
import { createLineLogReader, type LineLogFormat } from '../usage/create-line-log-reader.js';
import type { LineLogReader } from '../usage/line-log-reader.js';
import { SidechainChains } from '../usage/read-claude-code-log.js';
import type { RecordedCompaction, SessionCall } from '../usage/session-log.js';
import { parseLine } from '../usage/session-log-builder.js';
import { isObject, text } from '../usage/usage-fields.js';
import { liveSessionId } from './agent-hook.js';
import type { LiveAnswer, LiveSessions } from './live-sessions.js';

/** What a live log tells whoever watches it. */
export type LiveLogEvent =
  | {
      type: 'session';
      id: string;
      model: string;
      contextWindow: number | null;
      resumed: boolean;
      /** The parent's session id, for a sub-agent's session. */
      parentId?: string;
    }
  | { type: 'call'; id: string; index: number; timestamp: string; answer: LiveAnswer | undefined }
  | { type: 'compaction'; id: string; trigger: string }
  | { type: 'skipped'; id: string; reason: string };

export interface LiveLogOptions {
  format: LineLogFormat;
  /** The session id to use unless the log names its own (Codex `session_meta`, Gemini CLI's first record). */
  fallbackId: string;
  /**
   * The log is a sub-agent's (a Claude Code `subagents/agent-<id>.jsonl` transcript, or one inline sidechain of a
   * session's transcript): its session is created with this parent, and its calls are its sidechain calls.
   */
  parentId?: string;
  sessions: LiveSessions;
  onEvent?: (event: LiveLogEvent) => void;
  /** Called with an error the log could not be carried past (the service refused a call, say). */
  onError?: (error: unknown) => void;
  /**
   * Runs a check-and-post alone for the session (the hooks of the same agent take the same lock, see
   * `withSessionLock`). @default runs it at once
   */
  exclusive?: <T>(sessionId: string, work: () => Promise<T>) => Promise<T>;
  /** The clock. @default Date.now */
  now?: () => number;
  /**
   * Calls and compactions written after the log was found (less this margin) are checked against the session before
   * they are sent: the agent's hooks may have told it already. Older ones (the history a log held when it was found)
   * are not. @default 600000 (10 min)
   */
  recheckWithinMs?: number;
}

/** How long before a log was found a call may be and still be checked against the session (hooks may have sent it). */
export const RECHECK_WITHIN_MS = 10 * 60 * 1000;

/** The session id a log's own records give: Codex `session_meta.payload.id`, Gemini CLI's `sessionId` header. */
function ownSessionId(format: LineLogFormat, line: string): string | undefined {
  if (format === 'claude-code' || !line.includes('"session')) return undefined;
  const record = parseLine(line);
  if (!isObject(record)) return undefined;
  if (format === 'codex' && record.type === 'session_meta' && isObject(record.payload))
    return text(record.payload.id);
  if (format === 'gemini-cli' && 'projectHash' in record) return text(record.sessionId);
  return undefined;
}

/** How many of a log's first lines may name its session before the file name is used. */
const ID_LINES = 20;

/**
 * One agent log as a live session: its lines, fed as the agent appends them, go through the same line reader as
 * `barometer replay`, and every call and recorded compaction goes to the live session in log order, each once. As
 * replay does, a compaction is told to the session just before the first call after it, with that call's prompt as
 * the size after.
 *
 * A call is sent once it is final: the agents rewrite a call while it streams (Claude Code logs each content block
 * of a message with a growing `output_tokens`; Codex marks a call as completing a task in a later record), so the
 * last call is held until a later call or compaction appears, or until `flush()` (the watcher calls it once the file
 * has been quiet for a moment). Calls the session has already seen (older than its last update: a restarted
 * watcher, or hooks feeding the same session) are not sent again.
 */
export class LiveLog {
  readonly format: LineLogFormat;
  #reader: LineLogReader;
  #id: string;
  #lineNumber = 0;
  #created = false;
  #seenUntil = Number.NEGATIVE_INFINITY;
  /** The time of the latest call or compaction sent. */
  #sentUntil = Number.NEGATIVE_INFINITY;
  #sentCalls = 0;
  #sentCompactions = 0;
  #queue: Promise<void> = Promise.resolve();
  #unusable: string | undefined;
  readonly #options: LiveLogOptions;
  readonly #foundAt: number;
  /** Claude Code's inline sub-agents: each sidechain chain of the transcript is a live session of its own. */
  #chains = new SidechainChains();
  readonly #children = new Map<string, LiveLog>();

  constructor(options: LiveLogOptions) {
    this.#options = options;
    this.#foundAt = (options.now ?? Date.now)();
    this.format = options.format;
    this.#reader = createLineLogReader(options.format);
    this.#id = liveSessionId(options.fallbackId);
  }

  /** The live session's id (the log's own, once read, else the file's). */
  get id(): string {
    return this.#id;
  }

  /** Calls read so far (sent or held): a sub-agent's log's are its sidechain calls. */
  get calls(): readonly SessionCall[] {
    return this.#options.parentId === undefined ? this.#reader.builder.calls : this.#reader.calls;
  }

  /** The live logs of the inline sub-agents found so far (Claude Code sidechains), by chain. */
  get children(): ReadonlyMap<string, LiveLog> {
    return this.#children;
  }

  /** Puts a sidechain line of the main transcript aside for its chain's own live log (created on its first line). */
  #sidechain(line: string, aside: Map<LiveLog, string[]>): void {
    if (!line.includes('"isSidechain":true')) return;
    const record = parseLine(line);
    if (!isObject(record)) return;
    const chain = this.#chains.keyOf(record);
    if (chain === undefined) return;
    let child = this.#children.get(chain);
    if (!child) {
      child = new LiveLog({ ...this.#options, fallbackId: chain, parentId: this.#id });
      this.#children.set(chain, child);
    }
    const lines = aside.get(child);
    if (lines) lines.push(line);
    else aside.set(child, [line]);
  }

  /** Feeds complete lines; sends what became final. */
  lines(lines: readonly string[]): void {
    const aside = new Map<LiveLog, string[]>();
    for (const line of lines) {
      this.#lineNumber++;
      if (!this.#created && this.#lineNumber <= ID_LINES) {
        const own = ownSessionId(this.format, line);
        if (own) this.#id = liveSessionId(own);
      }
      this.#reader.line(line, this.#lineNumber);
      if (this.format === 'claude-code' && this.#options.parentId === undefined) this.#sidechain(line, aside);
    }
    this.#send(this.calls.length - 1, false);
    // The sub-agents' calls go after what the parent has queued: its session exists (and is told) first.
    const parentQueued = this.#queue;
    for (const [child, childLines] of aside) {
      child.#queue = child.#queue.then(() => parentQueued);
      child.lines(childLines);
    }
  }

  /** Sends the held last call (the file has been quiet); `final` also sends compactions after the last call. */
  flush(final = false): Promise<void> {
    this.#send(this.calls.length, final);
    for (const child of this.#children.values()) void child.flush(final);
    return this.idle();
  }

  /** Resolves once everything read so far (its sub-agents' calls included) has been sent. */
  async idle(): Promise<void> {
    await this.#queue;
    await Promise.all([...this.#children.values()].map((child) => child.idle()));
  }

  /** Starts over on a replaced or truncated file: a new reader; calls already sent are not sent again. */
  restart(): void {
    // Queued sends finish before the next `lines()` queues more, so `#sentUntil` is read after them.
    this.#queue = this.#queue.then(() => {
      this.#seenUntil = Math.max(this.#seenUntil, this.#sentUntil);
    });
    this.#reader = createLineLogReader(this.format);
    this.#lineNumber = 0;
    this.#sentCalls = 0;
    this.#sentCompactions = 0;
    this.#chains = new SidechainChains();
    for (const child of this.#children.values()) child.restart();
  }

  /** Queues the calls before index `upTo` (and the compactions before them) that were not sent. */
  #send(upTo: number, final: boolean): void {
    const calls = this.calls;
    const compactions = this.#reader.builder.compactions;
    const jobs: Array<() => Promise<void>> = [];
    while (this.#sentCalls < upTo || (final && this.#sentCompactions < compactions.length)) {
      const next = this.#sentCalls < upTo ? calls[this.#sentCalls] : undefined;
      const compaction = compactions[this.#sentCompactions];
      if (compaction && (next === undefined || compaction.beforeCallIndex <= next.index)) {
        this.#sentCompactions++;
        const before = calls[compaction.beforeCallIndex - 1];
        jobs.push(() => this.#compaction(compaction, before, next));
        continue;
      }
      if (!next) break;
      this.#sentCalls++;
      jobs.push(() => this.#call(next));
    }
    if (jobs.length === 0) return;
    this.#queue = this.#queue.then(async () => {
      for (const job of jobs) {
        try {
          await job();
        } catch (error) {
          this.#options.onError?.(error);
        }
      }
    });
  }

  /** Creates the session on the first call (the log's model, the agent's window), or finds it. */
  async #ensure(call: SessionCall | undefined): Promise<boolean> {
    if (this.#created) return true;
    if (this.#unusable) return false;
    const model = call?.model ?? this.calls.find((known) => known.model)?.model;
    const parentId = this.#options.parentId;
    if (!model) return false;
    const { sessions } = this.#options;
    const existing = await sessions.state(this.#id);
    const { contextWindow, workingDirectory } = this.#reader.builder;
    const title = this.#reader.firstRequest ?? this.#reader.builder.firstRequest;
    let state = existing;
    if (existing) {
      this.#seenUntil = existing.updatedAt ? Date.parse(existing.updatedAt) : Number.NEGATIVE_INFINITY;
    } else {
      try {
        state = await sessions.ensure({
          id: this.#id,
          model,
          agent: this.format,
          // The window the agent's log states (Codex's model_context_window): what the agent reports.
          ...(contextWindow === undefined ? {} : { agentReported: { effectiveWindow: contextWindow } }),
          // The agent's folder, as for a hook's `cwd`: an MCP server the agent starts there finds this session.
          ...(workingDirectory === undefined ? {} : { workingDirectory }),
          ...(title === undefined ? {} : { title }),
          ...(parentId === undefined ? {} : { parentId }),
        });
      } catch (error) {
        if (error instanceof BarometerValidationError) {
          this.#unusable = error.message;
          this.#options.onEvent?.({ type: 'skipped', id: this.#id, reason: error.message });
          return false;
        }
        throw error;
      }
    }
    this.#created = true;
    this.#options.onEvent?.({
      type: 'session',
      id: this.#id,
      model,
      contextWindow: state?.contextWindow ?? null,
      resumed: existing !== undefined,
      ...(parentId === undefined ? {} : { parentId }),
    });
    return true;
  }

  /** Whether the agent's hooks may also have told the session of something this recent (not old history). */
  #recent(timestamp: string): boolean {
    return Date.parse(timestamp) > this.#foundAt - (this.#options.recheckWithinMs ?? RECHECK_WITHIN_MS);
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.#options.exclusive ? this.#options.exclusive(this.#id, work) : work();
  }

  async #call(call: SessionCall): Promise<void> {
    if (!(await this.#ensure(call))) return;
    const at = Date.parse(call.timestamp);
    if (at <= this.#seenUntil) return;
    this.#sentUntil = Math.max(this.#sentUntil, at);
    const answer = await this.#exclusive(async () => {
      if (this.#recent(call.timestamp)) {
        const state = await this.#options.sessions.state(this.#id);
        // A hook reported it (or a later call) already.
        if (state?.updatedAt && Date.parse(state.updatedAt) >= at) return null;
      }
      return this.#options.sessions.postCall(this.#id, {
        usage: call.usage,
        timestamp: call.timestamp,
        ...(call.taskCompleted ? { taskCompleted: true } : {}),
        ...(call.windows?.length ? { windows: call.windows } : {}),
      });
    });
    if (answer === null) return;
    this.#options.onEvent?.({
      type: 'call',
      id: this.#id,
      index: call.index,
      timestamp: call.timestamp,
      answer,
    });
  }

  async #compaction(
    compaction: RecordedCompaction,
    before: SessionCall | undefined,
    after: SessionCall | undefined,
  ): Promise<void> {
    if (!(await this.#ensure(after ?? before))) return;
    if (Date.parse(compaction.timestamp) <= this.#seenUntil) return;
    // As replay records it: the log's figures, else the prompts of the calls around it; never a growth.
    const beforeTokens =
      compaction.preTokens ?? (before?.usage.available ? before.usage.promptTokens : undefined);
    const afterTokens =
      compaction.postTokens ?? (after?.usage.available ? after.usage.promptTokens : undefined);
    this.#sentUntil = Math.max(this.#sentUntil, Date.parse(compaction.timestamp));
    const recorded = await this.#exclusive(async () => {
      if (this.#recent(compaction.timestamp)) {
        // The agent's pre-compaction hook marked this compaction already (after the call before it).
        const state = await this.#options.sessions.state(this.#id);
        const since = before ? Date.parse(before.timestamp) : Number.NEGATIVE_INFINITY;
        if (state?.lastCompactionAt && Date.parse(state.lastCompactionAt) >= since) return false;
      }
      await this.#options.sessions.recordCompaction(this.#id, {
        trigger: compaction.trigger,
        timestamp: compaction.timestamp,
        ...(beforeTokens === undefined ? {} : { before: beforeTokens }),
        ...(afterTokens === undefined
          ? {}
          : { after: beforeTokens === undefined ? afterTokens : Math.min(afterTokens, beforeTokens) }),
      });
      return true;
    });
    if (recorded) this.#options.onEvent?.({ type: 'compaction', id: this.#id, trigger: compaction.trigger });
  }
}
