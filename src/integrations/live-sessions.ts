import type { UsageWindow } from '../quota/windows/usage-window.js';
import type { CompactionReport } from '../session/compaction-step.js';
import type { SessionMonitor } from '../session/session-monitor.js';
import type { SessionOptions } from '../session/session-options.js';
import type { SessionView, WindowForecastView } from '../session/session-schemas.js';
import type { UsageRecord } from '../usage/usage-record.js';
import { type BarometerClient, ServiceError } from './barometer-client.js';

/** One call of an agent's log, as the adapters hand it to a live session. */
export interface LiveCall {
  usage: UsageRecord;
  /** ISO 8601 time of the call. */
  timestamp: string;
  taskCompleted?: boolean;
  /** The subscription windows the log records with the call (Codex's `rate_limits`). */
  windows?: readonly UsageWindow[];
}

/** What a live session answers after a call: the verdict's action and the owned reminder, if any. */
export interface LiveAnswer {
  action: string;
  health: string;
  reminder: string | null;
  /** The subscription windows the session sees after the call, each with its forecast. */
  windows: WindowForecastView[];
}

/** What a live session looks like to an adapter. */
export interface LiveSessionState {
  /** The window the session measures against (the agent's effective window), or null when unknown. */
  contextWindow: number | null;
  /** ISO time of the last call the session took, or null before the first. */
  updatedAt: string | null;
  generations: number;
  reminder: string | null;
  /** ISO time of the session's latest compaction marker, or null. */
  lastCompactionAt: string | null;
  /** The subscription windows the session sees, each with its forecast. */
  windows: WindowForecastView[];
}

/**
 * Where the agent adapters (hooks, log watching) send what they read: the monitor itself when the service runs in
 * the same process, or a running service over HTTP. Each method is one `SessionMonitor` operation; no adapter
 * decides anything.
 */
export interface LiveSessions {
  /** Creates the session unless one with this id exists; answers its state. */
  ensure(options: SessionOptions & { id: string }): Promise<LiveSessionState>;
  /** The session's state, or undefined when there is no such session. */
  state(id: string): Promise<LiveSessionState | undefined>;
  /** Posts one call; answers undefined when the call cannot be carried (see `ServiceSessions`). */
  postCall(id: string, call: LiveCall): Promise<LiveAnswer | undefined>;
  recordCompaction(id: string, report: CompactionReport): Promise<void>;
}

function stateOf(view: SessionView): LiveSessionState {
  return {
    contextWindow: view.profile.contextWindow,
    updatedAt: view.updatedAt,
    generations: view.generations,
    reminder: view.health.reminder?.text ?? null,
    lastCompactionAt:
      view.markers
        .filter((marker) => marker.type === 'compaction')
        .map((marker) => marker.timestamp)
        .sort()
        .at(-1) ?? null,
    windows: view.signals.windows ?? [],
  };
}

/** The live sessions of a monitor in this process (`barometer watch` with its embedded service). */
export class MonitorSessions implements LiveSessions {
  constructor(readonly monitor: SessionMonitor) {}

  async ensure(options: SessionOptions & { id: string }): Promise<LiveSessionState> {
    if (!(await this.monitor.has(options.id))) return stateOf(await this.monitor.create(options));
    return stateOf(await this.monitor.view(options.id));
  }

  async state(id: string): Promise<LiveSessionState | undefined> {
    if (!(await this.monitor.has(id))) return undefined;
    return stateOf(await this.monitor.view(id));
  }

  async postCall(id: string, call: LiveCall): Promise<LiveAnswer> {
    const answer = await this.monitor.postUsage(id, {
      usage: call.usage,
      timestamp: call.timestamp,
      ...(call.taskCompleted ? { taskCompleted: true } : {}),
      ...(call.windows?.length ? { windows: call.windows } : {}),
    });
    return {
      action: answer.verdict.action,
      health: answer.health.level,
      reminder: answer.health.reminder?.text ?? null,
      windows: answer.signals.windows ?? [],
    };
  }

  async recordCompaction(id: string, report: CompactionReport): Promise<void> {
    await this.monitor.recordCompaction(id, report);
  }
}

/**
 * The body of `POST /api/v1/sessions/:id/usage` for a normalized record. A record without usage has no such body
 * (the route takes measured figures or a provider response): undefined.
 */
export function usageBody(call: LiveCall): Record<string, unknown> | undefined {
  const usage = call.usage;
  if (!usage.available) return undefined;
  return {
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cachedReadTokens: usage.cachedReadTokens,
    cachedWriteTokens: usage.cachedWriteTokens,
    ...(usage.cachedWrite1hTokens ? { cachedWrite1hTokens: usage.cachedWrite1hTokens } : {}),
    reasoningTokens: usage.reasoningTokens,
    ...(usage.model === undefined ? {} : { model: usage.model }),
    timestamp: call.timestamp,
    ...(call.taskCompleted ? { taskCompleted: true } : {}),
    ...(call.windows?.length ? { windows: call.windows } : {}),
  };
}

/**
 * The live sessions of a running service, over its HTTP API. A call whose log records no usage is not sent (the
 * usage route takes figures): the service's session then counts one generation fewer than a replay of the log.
 */
export class ServiceSessions implements LiveSessions {
  constructor(readonly client: BarometerClient) {}

  async ensure(options: SessionOptions & { id: string }): Promise<LiveSessionState> {
    try {
      return stateOf(await this.client.createSession(options as Record<string, unknown>));
    } catch (error) {
      if (!(error instanceof ServiceError && error.status === 409)) throw error;
      const view = await this.client.getSession(options.id);
      if (!view) throw error;
      return stateOf(view);
    }
  }

  async state(id: string): Promise<LiveSessionState | undefined> {
    const view = await this.client.getSession(id);
    return view ? stateOf(view) : undefined;
  }

  async postCall(id: string, call: LiveCall): Promise<LiveAnswer | undefined> {
    const body = usageBody(call);
    if (!body) return undefined;
    const answer = await this.client.postUsage(id, body);
    return {
      action: answer.verdict.action,
      health: answer.health.level,
      reminder: answer.health.reminder?.text ?? null,
      windows: answer.signals.windows ?? [],
    };
  }

  async recordCompaction(id: string, report: CompactionReport): Promise<void> {
    await this.client.recordCompaction(id, { ...report });
  }
}
