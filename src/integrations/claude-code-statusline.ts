import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import type { HealthLevel } from '../health/health-level.js';
import type { BarometerConfig } from '../models/barometer-config.js';
import {
  StatuslineRateLimitsSchema,
  windowsFromStatusline,
} from '../quota/windows/statusline-rate-limits.js';
import { forecastWindow } from '../quota/windows/window-forecast.js';
import { trackWindows, type WindowTrack, WindowTrackSchema } from '../quota/windows/window-track.js';
import type { VerdictAction, WindowForecastView } from '../session/session-schemas.js';
import { createSessionState } from '../session/session-state.js';
import { windowView } from '../session/session-windows.js';
import { stepSession } from '../session/step-session.js';
import { anthropicUsageRecord } from '../usage/normalize-anthropic.js';
import type { UsageRecord } from '../usage/usage-record.js';
import { type LogTail, readLogTail } from './log-tail.js';
import { transcriptFileCost } from './transcript-cost.js';

const count = z.number().int().min(0);

/**
 * The JSON Claude Code pipes to a status line command (https://code.claude.com/docs/en/statusline, "Available
 * data"). Only the fields barometer reads are checked; every other field is let through, as newer versions add
 * some. `context_window` and its `current_usage` are absent in older versions and `null` before the first API
 * call; `current_usage` holds the last call's figures.
 */
export const StatuslineInputSchema = z.looseObject({
  session_id: z.string().optional(),
  transcript_path: z.string().nullable().optional(),
  model: z.looseObject({ id: z.string().min(1), display_name: z.string().optional() }),
  cost: z
    .looseObject({ total_cost_usd: z.number().min(0).nullable().optional() })
    .nullable()
    .optional(),
  context_window: z
    .looseObject({
      context_window_size: count.nullable().optional(),
      used_percentage: z.number().nullable().optional(),
      current_usage: z
        .looseObject({
          input_tokens: count,
          output_tokens: count.optional(),
          cache_creation_input_tokens: count.optional(),
          cache_read_input_tokens: count.optional(),
        })
        .nullable()
        .optional(),
    })
    .nullable()
    .optional(),
  /**
   * The Claude.ai plan's windows (since 2.1.80; Pro/Max, after the session's first answer): `five_hour` and
   * `seven_day`, each `{ used_percentage, resets_at }` (epoch seconds). Absent otherwise.
   */
  rate_limits: StatuslineRateLimitsSchema.nullable().optional(),
});
export type StatuslineInput = z.infer<typeof StatuslineInputSchema>;

/** What the status line shows, decided by a session of the model with the last call's usage. */
export interface StatuslineReport {
  model: string;
  health: HealthLevel;
  /** The last call's prompt tokens, or null before the first call. */
  promptTokens: number | null;
  /** The agent's effective window (167,000 for Claude Code on a 200K model). */
  window: number | null;
  percentOfWindow: number | null;
  /** The verdict's action, or null when there is no usage yet. */
  action: VerdictAction | null;
  newRoundDue: boolean;
  /**
   * barometer's own price of the session: every call of the transcript, its sub-agents' included, each at its own
   * model with every cache tier, as `barometer replay` prices it (not Claude Code's `cost.total_cost_usd`, which
   * counts differently); null when there is no transcript to read.
   */
  costUsd: number | null;
  /** Where the usage came from. */
  source: 'context_window' | 'transcript' | 'none';
  /**
   * The plan's windows of `rate_limits`, each with its burn and forecast (src/quota/windows), measured over the
   * figures the earlier refreshes of this session saw (kept beside the cost checkpoints); empty without `rate_limits`.
   */
  windows: WindowForecastView[];
  /** The window that asks to wait (it runs out before its reset at the measured pace), or null. */
  windowWait: { window: string; seconds: number; until: string } | null;
}

export interface StatuslineDependencies {
  /** Reads the end of the transcript; `readLogTail` by default. */
  readTail?: (path: string) => LogTail | undefined;
  /** Prices the transcript; `transcriptCostUsd` by default. */
  readCost?: (path: string, config: BarometerConfig | undefined) => number | null;
  /** Where each transcript's cost so far is kept between refreshes (none: the whole transcript is read). */
  costCheckpointDir?: string;
  config?: BarometerConfig;
  /** Home directory, for a `~/` transcript path. */
  home?: string;
  /** The clock (epoch ms); `Date.now` by default. */
  now?: () => number;
}

const KeptTracksSchema = z.array(WindowTrackSchema).max(16);

/** Where a session's window figures are kept between refreshes: `<dir>/windows-<session>.json`; none without both. */
function windowsFileOf(input: StatuslineInput, dir: string | undefined): string | undefined {
  const id = input.session_id;
  if (dir === undefined || id === undefined || !/^[A-Za-z0-9_-]{1,128}$/.test(id)) return undefined;
  return join(dir, `windows-${id}.json`);
}

/** The window tracks earlier refreshes kept; none when there is no file or it is not one barometer wrote. */
function keptTracks(file: string | undefined): WindowTrack[] {
  if (file === undefined) return [];
  try {
    const parsed = KeptTracksSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/** Keeps the tracks for the next refresh (written whole, then renamed); a failure only loses the history. */
function keepTracks(file: string | undefined, tracks: readonly WindowTrack[]): void {
  if (file === undefined) return;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(tracks), { mode: 0o600 });
    renameSync(temporary, file);
  } catch {
    // The status line never fails for its history: the next refresh measures from what it sees.
  }
}

/** Parses the status line JSON; a `BarometerValidationError` names the field that is wrong. */
export function parseStatuslineInput(text: string): StatuslineInput {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BarometerValidationError(
      [{ field: '', value: text.slice(0, 80), message: 'the status line input is not JSON' }],
      'statusline input',
    );
  }
  const parsed = parseWith(StatuslineInputSchema, value);
  if (parsed.ok) return parsed.value;
  throw new BarometerValidationError(parsed.issues, 'statusline input');
}

function expandHome(path: string, home: string | undefined): string {
  return home !== undefined && path.startsWith('~/') ? `${home}${path.slice(1)}` : path;
}

/** The sub-agents' transcripts newer Claude Code writes beside a session: `<session>/subagents/*.jsonl`. */
function subagentPathsOf(path: string): string[] {
  if (!path.endsWith('.jsonl')) return [];
  const folder = join(dirname(path), basename(path, '.jsonl'), 'subagents');
  try {
    return readdirSync(folder)
      .filter((name) => name.endsWith('.jsonl'))
      .sort()
      .map((name) => join(folder, name));
  } catch {
    return [];
  }
}

/**
 * The session's cost as `barometer replay` counts it (`summary.total.costUsd`: its calls and its sub-agents', each
 * at its own model), so that the status line, replay, the what-if's real cost and a live session agree to the cent.
 * With `checkpointDir`, each file is read only from where the last refresh stopped (`transcriptFileCost`); null when
 * the transcript cannot be read or holds no priced call yet.
 */
export function transcriptCostUsd(
  path: string,
  config?: BarometerConfig,
  checkpointDir?: string,
): number | null {
  let costUsd = 0;
  let pricedCalls = 0;
  for (const file of [path, ...subagentPathsOf(path)]) {
    try {
      const cost = transcriptFileCost(file, {
        ...(config ? { config } : {}),
        ...(checkpointDir === undefined ? {} : { checkpointDir }),
      });
      costUsd += cost.costUsd;
      pricedCalls += cost.pricedCalls;
    } catch (error) {
      // The session's own transcript missing: no cost to show; a sub-agent file that went away counts nothing.
      if (file === path) return null;
      if (!(error instanceof Error) || !('code' in error)) throw error;
    }
  }
  return pricedCalls === 0 ? null : costUsd;
}

/** The last call's usage: the `context_window` figures when sent, else the transcript's last call. */
function lastUsage(
  input: StatuslineInput,
  dependencies: StatuslineDependencies,
): { usage: UsageRecord; source: StatuslineReport['source'] } | undefined {
  const current = input.context_window?.current_usage;
  if (current) {
    return {
      usage: anthropicUsageRecord({ output_tokens: 0, ...current }, 'claude-code', { model: input.model.id }),
      source: 'context_window',
    };
  }
  const path = input.transcript_path;
  if (!path) return undefined;
  const tail = (dependencies.readTail ?? readLogTail)(expandHome(path, dependencies.home));
  const call = tail?.lastCall;
  return call ? { usage: call.usage, source: 'transcript' } : undefined;
}

/**
 * A session of the status line's model (Claude Code's effective window), fed the last call's usage: the health,
 * the share of the window and the verdict are the library's, as any session would have them for that context.
 * The window is the one Claude Code states (`context_window.context_window_size`, less its compaction reserve),
 * else the registry's under the agent's rule. It is one call, so it carries no history (no caution cadence, no countdown): a live session fed by
 * `barometer hook` or `barometer watch` has those.
 */
export function statuslineReport(
  input: StatuslineInput,
  dependencies: StatuslineDependencies = {},
): StatuslineReport {
  const model = input.model.id;
  const transcript = input.transcript_path ? expandHome(input.transcript_path, dependencies.home) : undefined;
  const costUsd =
    transcript === undefined
      ? null
      : dependencies.readCost
        ? dependencies.readCost(transcript, dependencies.config)
        : transcriptCostUsd(transcript, dependencies.config, dependencies.costCheckpointDir);
  const found = lastUsage(input, dependencies);
  const stated = input.context_window?.context_window_size ?? undefined;
  // The window Claude Code states is the one it runs with (1,000,000 for a 1M-context model): measured against it,
  // less what Claude Code keeps for its own compaction; else the registry's window under the agent's rule.
  const base = {
    agent: 'claude-code' as const,
    model,
    ...(stated ? { agentReported: { contextWindow: stated } } : {}),
  };
  // A fixed id: the session lives for one line, and a random one would load Web Crypto (~10 ms of a status line).
  // The state and its pure step rather than the Session class, whose `fromState` brings the stored state's schema
  // (and the verdict's) to a process that never reads a stored state.
  const now = (dependencies.now ?? Date.now)();
  const created = createSessionState(base, {
    now: () => now,
    generateId: () => 'statusline',
    ...(dependencies.config ? { config: dependencies.config } : {}),
  });
  // The plan's windows, over the figures earlier refreshes of this session saw: the burn needs more than one.
  const windowsFile = windowsFileOf(input, dependencies.costCheckpointDir);
  const kept = input.rate_limits ? keptTracks(windowsFile) : [];
  const observed = input.rate_limits ? windowsFromStatusline(input.rate_limits, now) : [];
  const state = kept.length ? { ...created, windows: kept } : created;
  if (observed.length) keepTracks(windowsFile, trackWindows(kept, observed));
  if (!found) {
    const tracks = trackWindows(kept, observed).filter(
      (track) => track.resetsAt === null || track.resetsAt > now,
    );
    return {
      model,
      health: 'unknown',
      promptTokens: null,
      window: state.thresholds.limit,
      percentOfWindow: null,
      action: null,
      newRoundDue: false,
      costUsd,
      source: 'none',
      windows: tracks.map((track) => windowView(forecastWindow(track, now))),
      windowWait: null,
    };
  }
  const { update } = stepSession(
    state,
    { usage: found.usage, ...(observed.length ? { windows: observed } : {}) },
    { now },
  );
  return {
    model,
    health: update.health.level,
    promptTokens: update.signals.lastPromptTokens,
    window: update.signals.window,
    percentOfWindow: update.signals.percentOfWindow,
    action: update.verdict.action,
    newRoundDue: update.verdict.newRoundDue,
    costUsd,
    source: found.source,
    windows: update.signals.windows ?? [],
    windowWait: update.verdict.windowWait ?? null,
  };
}
