import { setTimeout as sleep } from 'node:timers/promises';
import type { ArchiveSink } from '../compaction/archive-sink.js';
import type { CompactionReport } from '../session/compaction-step.js';
import type { Session } from '../session/session.js';
import type { SessionMonitor } from '../session/session-monitor.js';
import type { UsageUpdate } from '../session/session-options.js';
import type { SessionEvent, SessionHealth, Verdict } from '../session/session-schemas.js';
import type { HeaderBag } from '../usage/rate-limit-headers.js';
import type { UsageRecord } from '../usage/usage-record.js';

/** A session of the monitor, named by its id (the monitor's archive, if any, is the adapters' default). */
export interface MonitorSession {
  monitor: SessionMonitor;
  sessionId: string;
}

/**
 * The session an adapter reports to: a {@link Session} (in-process, synchronous), or a {@link SessionMonitor}'s
 * session by id (the store it uses may be shared with other processes).
 */
export type SessionTarget = Session | MonitorSession;

/** One call an adapter recorded: its usage and what the session answered. */
export interface RecordedCall {
  usage: UsageRecord;
  verdict: Verdict;
  health: SessionHealth;
  /** This call's cost in USD at the model's price, or null when unknown. */
  costUsd: number | null;
  events: SessionEvent[];
  /** Set when the call's stream stopped early: what the recorded usage holds, and what it misses. */
  note?: string;
}

/** What every adapter exposes as `barometer`: the session's latest verdict as the adapter saw it. */
export interface BarometerHandle {
  readonly sessionId: string;
  /**
   * The verdict of the latest call: with a `Session`, the session's own latest verdict; with a monitor, the verdict
   * the monitor answered for the latest call this adapter recorded. null before the first call.
   */
  readonly verdict: Verdict | null;
  /** The latest call this adapter recorded, or null. */
  readonly lastCall: RecordedCall | null;
  /** The latest error barometer met (recording, compacting); the model call itself is never failed by barometer. */
  readonly lastError: unknown;
  /** The latest wait for a per-minute quota before a call (verdict `wait`), or null when none was needed. */
  readonly lastWait: QuotaWait | null;
}

/** A wait before a call, as the verdict `wait` advised it. */
export interface QuotaWait {
  /** Seconds waited (the verdict's `waitSeconds` less the time since the verdict). */
  seconds: number;
  /** The quota model's reason: which quota, and why waiting beats compressing. */
  reason: string;
}

/** Options every adapter takes. */
export interface AdapterOptions {
  session: SessionTarget;
  /**
   * Called with anything barometer fails at (a usage the session refuses, an unknown session, an archive that cannot
   * be written). The model call goes on regardless: barometer observes it, it never fails it.
   * @default writes a one-line warning with `console.warn`
   */
  onError?: (error: unknown) => void;
}

/** Where a session stands before a call: what the middleware applies. */
export interface SessionStanding {
  verdict: Verdict | null;
  health: SessionHealth | null;
  /** Usage updates the session has had; a verdict is acted on once per generation. */
  generations: number;
  lastPromptTokens: number | null;
  /** The window the session measures against (its health limit), or null: the policy's recap fallback reads it. */
  contextWindow: number | null;
  /** When the verdict was given (epoch ms): a wait it advises counts from then. null before the first. */
  verdictAt: number | null;
}

function isMonitorSession(target: SessionTarget): target is MonitorSession {
  return typeof target === 'object' && target !== null && 'monitor' in target && 'sessionId' in target;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One interface over the two kinds of session, shared by the adapters: it records calls, reads where the session
 * stands, records compactions, and keeps what the adapter exposes as `barometer`. It decides nothing.
 */
export class SessionRecorder implements BarometerHandle {
  readonly #target: SessionTarget;
  readonly #onError: (error: unknown) => void;
  #lastCall: RecordedCall | null = null;
  #lastError: unknown;
  #lastWait: QuotaWait | null = null;
  /** The verdict a quota observation answered (a monitor session's, read without a call). */
  #observed: Verdict | null = null;
  /** When (local clock, epoch ms) this adapter last recorded a call or an observation. */
  #heardAt = Number.NEGATIVE_INFINITY;

  constructor(options: AdapterOptions) {
    const target = options?.session;
    const usable = isMonitorSession(target)
      ? typeof target.monitor?.postUsage === 'function' && typeof target.sessionId === 'string'
      : typeof (target as Session | undefined)?.update === 'function';
    if (!usable) {
      throw new TypeError(
        'barometer: `session` must be a Session, or { monitor, sessionId } naming a session of a SessionMonitor',
      );
    }
    this.#target = target;
    this.#onError =
      options.onError ??
      ((error: unknown) => console.warn(`barometer: ${describe(error)} (the call went on)`));
  }

  get sessionId(): string {
    return isMonitorSession(this.#target) ? this.#target.sessionId : this.#target.id;
  }

  get verdict(): Verdict | null {
    if (isMonitorSession(this.#target)) return this.#lastCall?.verdict ?? this.#observed;
    return this.#target.lastVerdict;
  }

  get lastCall(): RecordedCall | null {
    return this.#lastCall;
  }

  get lastError(): unknown {
    return this.#lastError;
  }

  get lastWait(): QuotaWait | null {
    return this.#lastWait;
  }

  /**
   * Waits as the standing's verdict advises before a call: on `wait`, the rest of its `waitSeconds` (counted from
   * the verdict's time), so the quota's bucket refills instead of the prompt being compressed. Rejects with the
   * signal's reason when `signal` aborts; answers the wait done, or null when none was due.
   */
  async waitIfAdvised(
    standing: SessionStanding,
    signal: AbortSignal | undefined,
    now: () => number = Date.now,
  ): Promise<QuotaWait | null> {
    const verdict = standing.verdict;
    this.#lastWait = null;
    if (verdict?.action !== 'wait' || verdict.waitSeconds === null) return null;
    // From the later of the verdict's own time and when this adapter heard it: a provider's `created` is in whole
    // seconds (and may be a recorded time), which must not eat the wait.
    const since = Math.max(standing.verdictAt ?? Number.NEGATIVE_INFINITY, this.#heardAt);
    const elapsed = Number.isFinite(since) ? Math.max(0, now() - since) : 0;
    const ms = Math.round(verdict.waitSeconds * 1000 - elapsed);
    if (ms <= 0) return null;
    signal?.throwIfAborted();
    const reason = verdict.reasons.find((item) => item.action === 'wait')?.reason ?? 'a per-minute quota';
    this.#lastWait = { seconds: ms / 1000, reason };
    await sleep(ms, undefined, signal ? { signal } : undefined);
    return this.#lastWait;
  }

  /** The archive compactions write to: the monitor's, for a monitor session. */
  get defaultArchive(): ArchiveSink | undefined {
    return isMonitorSession(this.#target) ? this.#target.monitor.archive : undefined;
  }

  /** Records one call; a failure goes to `onError` and answers undefined. `note` is kept on the recorded call. */
  async record(update: UsageUpdate, note?: string): Promise<RecordedCall | undefined> {
    try {
      const target = this.#target;
      const answer = isMonitorSession(target)
        ? await target.monitor.postUsage(target.sessionId, update)
        : target.update(update);
      this.#observed = null;
      this.#heardAt = Date.now();
      this.#lastCall = {
        usage: update.usage,
        verdict: answer.verdict,
        health: answer.health,
        costUsd: answer.costUsd,
        events: answer.events,
        ...(note === undefined ? {} : { note }),
      };
      return this.#lastCall;
    } catch (error) {
      this.fail(error);
      return undefined;
    }
  }

  /** Where the session stands now (a monitor session is read from its store). */
  async standing(): Promise<SessionStanding> {
    const target = this.#target;
    if (isMonitorSession(target)) {
      const view = await target.monitor.view(target.sessionId);
      return {
        verdict: view.verdict,
        health: view.health,
        generations: view.generations,
        lastPromptTokens: view.signals.lastPromptTokens,
        contextWindow: view.health.limit,
        verdictAt: view.verdictAt === null ? null : Date.parse(view.verdictAt),
      };
    }
    return {
      verdict: target.lastVerdict,
      health: target.health(),
      generations: target.generations,
      lastPromptTokens: target.state.lastPrompt,
      contextWindow: target.state.thresholds.limit,
      verdictAt: target.state.verdictAt ?? target.state.lastAt,
    };
  }

  /**
   * Waits as the session's verdict advises before a call (the wrappers' `waitOnQuota`); a failure to read the
   * session goes to `onError` and the call goes on. An abort of `signal` rejects, as the fetch would have.
   */
  async waitBeforeCall(signal: AbortSignal | undefined): Promise<void> {
    let standing: SessionStanding;
    try {
      standing = await this.standing();
    } catch (error) {
      this.fail(error);
      return;
    }
    await this.waitIfAdvised(standing, signal);
  }

  /**
   * Records a response without a generation (a refused request, 429) as a quota observation: its rate-limit
   * headers and `retry-after`. A failure goes to `onError`.
   */
  async observeQuota(headers: HeaderBag): Promise<void> {
    try {
      const target = this.#target;
      const verdict = isMonitorSession(target)
        ? (await target.monitor.observeQuota(target.sessionId, { headers })).verdict
        : target.observeQuota(headers);
      if (this.#lastCall && verdict) this.#lastCall = { ...this.#lastCall, verdict };
      this.#observed = verdict;
      this.#heardAt = Date.now();
    } catch (error) {
      this.fail(error);
    }
  }

  async recordCompaction(report: CompactionReport): Promise<void> {
    const target = this.#target;
    if (isMonitorSession(target)) await target.monitor.recordCompaction(target.sessionId, report);
    else target.recordCompaction(report);
  }

  fail(error: unknown): void {
    this.#lastError = error;
    try {
      this.#onError(error);
    } catch {
      // A failing error handler must not fail the model call either.
    }
  }
}
