/**
 * `barometer/claude-agent-sdk`: the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`, `query()`) over barometer.
 * The SDK runs Claude Code, which reads `ANTHROPIC_BASE_URL` as it does when run by hand: its requests go through
 * barometer's proxy (`barometer proxy`, or a server started with `proxy`), where the one policy acts — sub-task
 * boundaries, batched eviction with archives and tombstones, the cache model's breakpoint and receipts, quota
 * waits — exactly as for `barometer wrap claude`. This adapter gives `query()` its options (that environment, a
 * `UserPromptSubmit` hook that hands Claude the session's `context_health` reminder, a `PostCompact` hook that keeps
 * the summary of Claude Code's own compactions), reads the usage of the messages `query()` yields, and records each
 * compaction Claude Code makes (its compact boundary) in barometer's session. The SDK is a type-only dependency:
 * nothing here loads it.
 */

import type {
  HookCallbackMatcher,
  HookEvent,
  HookInput,
  HookJSONOutput,
  Options,
} from '@anthropic-ai/claude-agent-sdk';
import type { CompactionReport } from '../session/compaction-step.js';
import { isObject } from '../usage/json-object.js';
import { normalizeUsage } from '../usage/normalize-usage.js';
import type { UsageRecord } from '../usage/usage-record.js';
import { type AdapterOptions, SessionRecorder } from './session-recorder.js';

/** Where `barometer proxy` listens unless told otherwise. */
export const DEFAULT_PROXY_URL = 'http://127.0.0.1:8797';
/** A reminder the proxy has not answered in this time is left out: the prompt goes on at once. @default 1500 */
export const DEFAULT_REMINDER_TIMEOUT_MS = 1500;
/** A compaction the proxy has not acknowledged in this time is reported to `onError`; the messages go on. */
const COMPACTION_TIMEOUT_MS = 1500;

export interface BarometerClaudeAgentOptions {
  /**
   * barometer's proxy (its Anthropic routes at the root): `barometer proxy`'s address, or a server's `url`.
   * `null` leaves the environment as it is (barometer then only reads the messages).
   * @default 'http://127.0.0.1:8797'
   */
  proxyUrl?: string | null;
  /**
   * Hand Claude the session's `context_health` reminder with each prompt (the proxy's session, read by the hook's
   * `session_id`), as `UserPromptSubmit`'s `additionalContext`. @default true
   */
  reminder?: boolean;
  /** @default 1500 */
  reminderTimeoutMs?: number;
  /**
   * A session to record the usage of every main-loop call in, read from the assistant messages `observe` passes
   * (once per API message id), and Claude Code's compactions (as the proxy's session records them too). Leave it
   * out when the proxy records the calls (it sees each response): the same calls in two sessions are counted twice.
   */
  session?: AdapterOptions['session'];
  /** Told of anything barometer fails at (the query goes on regardless). @default a console warning */
  onError?: (error: unknown) => void;
}

/** What the last result message of a query said. */
export interface ClaudeAgentResult {
  subtype: string;
  isError: boolean;
  numTurns: number | null;
  /** The SDK's own estimate (`total_cost_usd`): all calls of the query, side calls included. */
  totalCostUsd: number | null;
  /** The result's `usage`: the main agent loop's calls, summed (`normalizeUsage('anthropic', …)`). */
  usage: UsageRecord;
}

/** A compaction Claude Code made (an `SDKCompactBoundaryMessage`), and whether barometer's session has it. */
export interface ClaudeAgentCompaction {
  /** `compact_metadata.trigger`: `auto` (Claude Code's threshold) or `manual` (`/compact`). */
  trigger: string;
  /** `compact_metadata.pre_tokens`: the context before, in Claude Code's count. */
  preTokens: number | null;
  /** `compact_metadata.post_tokens` (optional in the SDK's type), or null. */
  postTokens: number | null;
  /** `compact_metadata.duration_ms`, or null. */
  durationMs: number | null;
  /** The summary Claude Code wrote (the `PostCompact` hook's `compact_summary`), or null when no hook saw it. */
  summary: string | null;
  /**
   * Recorded as a compaction of barometer's session: the proxy's (by the session id) unless `proxyUrl` is null,
   * and `session`'s when given. false when none of them has it: no session to record it in, or every recording
   * failed (each failure goes to `onError`).
   */
  recorded: boolean;
}

/** What the adapter saw of the query. */
export interface ClaudeAgentHandle {
  /** Claude Code's session id (also the proxy's session id), once a message or hook named it. */
  readonly sessionId: string | null;
  /** Main-loop API calls seen in the assistant messages (distinct message ids). */
  readonly calls: number;
  readonly lastResult: ClaudeAgentResult | null;
  readonly compactions: readonly ClaudeAgentCompaction[];
  /** The latest reminder handed to Claude, or null. */
  readonly lastReminder: string | null;
  readonly lastError: unknown;
}

export interface BarometerClaudeAgent {
  /**
   * The caller's `query()` options with barometer's: `env` with `ANTHROPIC_BASE_URL` set to the proxy (the SDK's
   * `env` replaces the child's environment, so the caller's `env`, else `process.env`, is carried over), and the
   * hooks barometer adds after the caller's own.
   */
  options<O extends Options>(options?: O): O;
  /** The messages of a `query()`, passed through unchanged, read as they pass. */
  observe<M>(messages: AsyncIterable<M>): AsyncGenerator<M, void, undefined>;
  readonly barometer: ClaudeAgentHandle;
}

type Json = Record<string, unknown>;
const numberOr = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/** The session view's reminder text, from the proxy's HTTP API (`GET /api/v1/sessions/:id`), or null. */
async function reminderOf(proxyUrl: string, sessionId: string, timeoutMs: number): Promise<string | null> {
  const url = new URL(`/api/v1/sessions/${encodeURIComponent(sessionId)}`, proxyUrl);
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`barometer: ${url.href} answered ${response.status}`);
  const view = (await response.json()) as { health?: { reminder?: { text?: unknown } | null } };
  const text = view.health?.reminder?.text;
  return typeof text === 'string' && text !== '' ? text : null;
}

/** Records a compaction in the proxy's session (`POST /api/v1/sessions/:id/compactions`). */
async function postCompaction(proxyUrl: string, sessionId: string, report: CompactionReport): Promise<void> {
  const url = new URL(`/api/v1/sessions/${encodeURIComponent(sessionId)}/compactions`, proxyUrl);
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(report),
    signal: AbortSignal.timeout(COMPACTION_TIMEOUT_MS),
  });
  if (response.status === 404)
    throw new Error(
      `barometer: the proxy at ${proxyUrl} has no session ${sessionId}: Claude Code's ${report.trigger} compaction is not recorded`,
    );
  if (!response.ok)
    throw new Error(
      `barometer: ${url.href} answered ${response.status} to Claude Code's ${report.trigger} compaction: ${(await response.text()).slice(0, 200)}`,
    );
}

/** The session's record of a compact boundary: Claude Code's figures, never a growth. */
function reportOf(compaction: ClaudeAgentCompaction): CompactionReport {
  const { preTokens: before, postTokens: after } = compaction;
  return {
    trigger: compaction.trigger,
    ...(before === null ? {} : { before: Math.round(before) }),
    ...(after === null ? {} : { after: Math.round(before === null ? after : Math.min(after, before)) }),
  };
}

/** The adapter's record of a compact boundary's `compact_metadata`, not yet recorded. */
function compactionOf(trigger: string, metadata: Json, summary: string | null): ClaudeAgentCompaction {
  return {
    trigger,
    preTokens: numberOr(metadata.pre_tokens),
    postTokens: numberOr(metadata.post_tokens),
    durationMs: numberOr(metadata.duration_ms),
    summary,
    recorded: false,
  };
}

/**
 * Records a compaction in every session barometer keeps of the query (`session`'s, the proxy's); true when at
 * least one has it. Each failure goes to `fail`.
 */
async function recordCompaction(
  targets: { recorder: SessionRecorder | null; proxyUrl: string | null; fail: (error: unknown) => void },
  sessionId: string | null,
  report: CompactionReport,
): Promise<boolean> {
  let recorded = false;
  if (targets.recorder) {
    try {
      await targets.recorder.recordCompaction(report);
      recorded = true;
    } catch (error) {
      targets.fail(error);
    }
  }
  if (targets.proxyUrl !== null && sessionId !== null) {
    try {
      await postCompaction(targets.proxyUrl, sessionId, report);
      recorded = true;
    } catch (error) {
      targets.fail(error);
    }
  }
  return recorded;
}

/**
 * barometer for a Claude Agent SDK `query()`: its options, and an observer of its messages.
 *
 * @example
 * const barometer = barometerClaudeAgent({ proxyUrl: 'http://127.0.0.1:8797' });
 * for await (const message of barometer.observe(query({ prompt, options: barometer.options({ model: 'claude-sonnet-4-5' }) }))) {
 *   if (message.type === 'result') console.log(barometer.barometer.lastResult);
 * }
 */
export function barometerClaudeAgent(settings: BarometerClaudeAgentOptions = {}): BarometerClaudeAgent {
  const proxyUrl = settings.proxyUrl === undefined ? DEFAULT_PROXY_URL : settings.proxyUrl;
  if (proxyUrl !== null && !URL.canParse(proxyUrl))
    throw new TypeError(
      `barometer: proxyUrl must be the proxy's http(s) address, got ${JSON.stringify(proxyUrl)}`,
    );
  const onError =
    settings.onError ??
    ((error: unknown) =>
      console.warn(`barometer: ${error instanceof Error ? error.message : String(error)}`));
  const recorder = settings.session ? new SessionRecorder({ session: settings.session, onError }) : null;
  const state = {
    sessionId: null as string | null,
    calls: 0,
    lastResult: null as ClaudeAgentResult | null,
    compactions: [] as ClaudeAgentCompaction[],
    lastReminder: null as string | null,
    lastError: undefined as unknown,
  };
  const seen = new Set<string>();
  /** The summaries the PostCompact hook saw, by trigger, until their compact boundary arrives. */
  const summaries = new Map<string, string>();
  const fail = (error: unknown) => {
    state.lastError = error;
    try {
      onError(error);
    } catch {
      // A failing error handler must not fail the query either.
    }
  };

  const remind = async (input: HookInput): Promise<HookJSONOutput> => {
    state.sessionId ??= input.session_id;
    if (proxyUrl === null || settings.reminder === false) return {};
    try {
      const text = await reminderOf(
        proxyUrl,
        input.session_id,
        settings.reminderTimeoutMs ?? DEFAULT_REMINDER_TIMEOUT_MS,
      );
      state.lastReminder = text;
      return text === null
        ? {}
        : { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: text } };
    } catch (error) {
      fail(error);
      return {};
    }
  };

  const read = async (message: unknown) => {
    if (!isObject(message)) return;
    if (typeof message.session_id === 'string') state.sessionId ??= message.session_id;
    if (message.type === 'assistant' && message.parent_tool_use_id === null && isObject(message.message)) {
      // A streamed API message arrives as one SDK message per content block, each with the message's usage.
      const id = String(message.message.id ?? message.uuid);
      if (seen.has(id)) return;
      seen.add(id);
      state.calls++;
      if (recorder) await recorder.record({ usage: normalizeUsage('anthropic', message.message) });
    } else if (message.type === 'result') {
      state.lastResult = {
        subtype: String(message.subtype),
        isError: message.is_error === true,
        numTurns: numberOr(message.num_turns),
        totalCostUsd: numberOr(message.total_cost_usd),
        usage: normalizeUsage('anthropic', { usage: message.usage }),
      };
    } else if (message.type === 'system' && message.subtype === 'compact_boundary') {
      const metadata = isObject(message.compact_metadata) ? message.compact_metadata : {};
      const trigger = String(metadata.trigger ?? 'auto');
      // The PostCompact hook runs before Claude Code emits the boundary (measured with 2.1.335).
      const compaction = compactionOf(trigger, metadata, summaries.get(trigger) ?? null);
      summaries.delete(trigger);
      state.compactions.push(compaction);
      const sessionId = typeof message.session_id === 'string' ? message.session_id : state.sessionId;
      compaction.recorded = await recordCompaction(
        { recorder, proxyUrl, fail },
        sessionId,
        reportOf(compaction),
      );
    }
  };

  const keepSummary = async (input: HookInput): Promise<HookJSONOutput> => {
    state.sessionId ??= input.session_id;
    if (input.hook_event_name === 'PostCompact' && input.agent_id === undefined)
      summaries.set(input.trigger, input.compact_summary);
    return {};
  };

  const handle: ClaudeAgentHandle = {
    get sessionId() {
      return state.sessionId;
    },
    get calls() {
      return state.calls;
    },
    get lastResult() {
      return state.lastResult;
    },
    get compactions() {
      return state.compactions;
    },
    get lastReminder() {
      return state.lastReminder;
    },
    get lastError() {
      return state.lastError;
    },
  };

  return {
    barometer: handle,
    options<O extends Options>(options?: O): O {
      const given = (options ?? {}) as O;
      const hooks: Partial<Record<HookEvent, HookCallbackMatcher[]>> = { ...(given.hooks ?? {}) };
      hooks.UserPromptSubmit = [...(hooks.UserPromptSubmit ?? []), { hooks: [remind] }];
      hooks.PostCompact = [...(hooks.PostCompact ?? []), { hooks: [keepSummary] }];
      if (proxyUrl === null) return { ...given, hooks };
      return { ...given, hooks, env: { ...(given.env ?? process.env), ANTHROPIC_BASE_URL: proxyUrl } };
    },
    async *observe<M>(messages: AsyncIterable<M>) {
      for await (const message of messages) {
        try {
          await read(message);
        } catch (error) {
          fail(error);
        }
        yield message;
      }
    },
  };
}
