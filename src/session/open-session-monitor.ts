import { join, resolve } from 'node:path';
import type { Redis } from 'ioredis';
import type { AppendOnlyList } from '../store/append-only-list.js';
import type { ArchiveStore } from '../store/archive.js';
import { lockDataDir } from '../store/data-dir-lock.js';
import { RedisEventBus } from '../store/event-bus.js';
import { MemoryStateStore } from '../store/memory-state-store.js';
import { RedisStateStore } from '../store/redis-state-store.js';
import { StateSnapshot, type StateSnapshotOptions } from '../store/state-snapshot.js';
import { DEFAULT_CLOCK_SKEW_MS } from './clock-repair.js';
import { restoreSessionRecord } from './restore-record.js';
import {
  parseSessionRecord,
  SessionMonitor,
  type SessionMonitorOptions,
  type SessionRecord,
} from './session-monitor.js';
import { TimelineMarkerSchema, TimelinePointSchema } from './session-schemas.js';
import { DEFAULT_TIMELINE_MARKERS, DEFAULT_TIMELINE_POINTS } from './session-timeline.js';

/** A session record's lists that only grow at their end, kept beside it by the stores (Redis lists, files). */
const TIMELINE_LISTS: readonly AppendOnlyList[] = [
  // A point's index grows with the session's generations: the memory store's timeline makes its points anew.
  { path: ['timeline', 'points'], limit: DEFAULT_TIMELINE_POINTS, key: 'index' },
  { path: ['timeline', 'markers'], limit: DEFAULT_TIMELINE_MARKERS },
];

/** The same lists, each line checked when a file is read back: a bad line is skipped, its session kept (F9). */
const CHECKED_TIMELINE_LISTS: readonly AppendOnlyList[] = [
  { ...TIMELINE_LISTS[0]!, isItem: (item) => TimelinePointSchema.safeParse(item).success },
  { ...TIMELINE_LISTS[1]!, isItem: (item) => TimelineMarkerSchema.safeParse(item).success },
];

/**
 * Where barometer keeps its state under a data dir (`barometer serve --data-dir`, `barometer mcp --data-dir`):
 * one folder per kind, so that every surface started on the same dir finds the same archives and artifacts.
 */
export function dataDirPaths(dataDir: string): {
  root: string;
  sessions: string;
  archives: string;
  artifacts: string;
} {
  const root = resolve(dataDir);
  return {
    root,
    sessions: join(root, 'sessions'),
    archives: join(root, 'archives'),
    artifacts: join(root, 'artifacts'),
  };
}

export interface OpenSessionMonitorOptions extends Omit<SessionMonitorOptions, 'store' | 'archive'> {
  /** The data dir; sessions are kept in `<dataDir>/sessions`. */
  dataDir: string;
  /** Keep sessions across restarts in `<dataDir>/sessions`. @default true */
  persistSessions?: boolean;
  /** Sessions kept at most; one more is refused (BR_ERR_SESSION_LIMIT). @default 10000 */
  maxSessions?: number;
  /** Where compactions archive what they replace (normally `<dataDir>/archives`). */
  archive?: ArchiveStore;
  /** Told of session files that could not be read or written, lines skipped, and sessions mended on load. */
  onProblem?: StateSnapshotOptions<SessionRecord>['onProblem'];
  /**
   * Listen first, load later: `open` answers once the session files are listed, and they are read in the
   * background (a session asked for before its turn is read first). @default false
   */
  background?: boolean;
}

/** The session monitor of a data dir: a memory store, kept in `<dataDir>/sessions` unless told otherwise. */
export async function openSessionMonitor(options: OpenSessionMonitorOptions): Promise<SessionMonitor> {
  const {
    dataDir,
    persistSessions = true,
    maxSessions,
    archive,
    onProblem,
    background = false,
    ...monitorOptions
  } = options;
  const now = monitorOptions.now ?? Date.now;
  const skewMs = monitorOptions.clockSkewMs ?? DEFAULT_CLOCK_SKEW_MS;
  // One writer per data dir (F5): a second process refuses to start, naming the holder.
  const lock = persistSessions ? lockDataDir(dataDirPaths(dataDir).root) : undefined;
  if (lock?.tookOverFrom)
    onProblem?.({
      id: '*',
      action: 'repair',
      reason: `took over the lock of ${lock.path} from process ${lock.tookOverFrom.pid}, which is no longer running`,
    });
  const store = await MemoryStateStore.open<SessionRecord>({
    ...(maxSessions === undefined ? {} : { maxEntries: maxSessions }),
    ...(persistSessions
      ? {
          background,
          ...(lock ? { lock } : {}),
          snapshot: new StateSnapshot<SessionRecord>({
            directory: dataDirPaths(dataDir).sessions,
            parse: (value) => {
              const time = now();
              return restoreSessionRecord(value, time, time + skewMs);
            },
            // The timeline grows at its end: its points and markers are appended to files of their own.
            lists: CHECKED_TIMELINE_LISTS,
            ...(onProblem ? { onProblem } : {}),
          }),
        }
      : {}),
  });
  return new SessionMonitor({ ...monitorOptions, store, ...(archive ? { archive } : {}) });
}

/**
 * Expires idle sessions on a timer (every tenth of the TTL, between 1 s and 1 min), telling `onExpired` of each;
 * answers the function that stops it. Nothing runs when the TTL is 0 (sessions kept forever).
 */
export function sweepIdleSessions(
  monitor: SessionMonitor,
  ttlMs: number,
  handlers: { onExpired: (ids: string[]) => void; onError: (error: unknown) => void },
): () => void {
  if (ttlMs <= 0) return () => {};
  const timer = setInterval(
    () => {
      monitor.sweep().then((expired) => {
        if (expired.length > 0) handlers.onExpired(expired);
      }, handlers.onError);
    },
    Math.min(60_000, Math.max(1000, ttlMs / 10)),
  );
  timer.unref();
  return () => clearInterval(timer);
}

export interface OpenSharedSessionMonitorOptions extends Omit<SessionMonitorOptions, 'store' | 'bus'> {
  /** A connected client (see `connectRedis`); the caller closes it after the monitor. */
  redis: Redis;
  /** Key prefix of the service: instances with the same Redis and prefix share their sessions. @default 'barometer:' */
  prefix?: string;
  /** Sessions kept at most over the whole service. @default 10000 */
  maxSessions?: number;
  /** Told of events on the shared channel that could not be read or published. */
  onProblem?: (message: string, error?: unknown) => void;
}

/**
 * A monitor whose sessions live in Redis and whose events reach every instance sharing it: several `barometer
 * serve` on one Redis are one service. A session's timeline points and markers are Redis lists beside its state,
 * so a usage update sends its one new point instead of the whole timeline.
 */
export async function openSharedSessionMonitor(
  options: OpenSharedSessionMonitorOptions,
): Promise<{ monitor: SessionMonitor; bus: RedisEventBus }> {
  const { redis, prefix, maxSessions, onProblem, ...monitorOptions } = options;
  const store = new RedisStateStore<SessionRecord>(redis, {
    namespace: 'sessions',
    ...(prefix === undefined ? {} : { prefix }),
    ...(maxSessions === undefined ? {} : { maxEntries: maxSessions }),
    parse: parseSessionRecord,
    lists: TIMELINE_LISTS,
  });
  const bus = await RedisEventBus.open(redis, {
    ...(prefix === undefined ? {} : { prefix }),
    ...(onProblem ? { onProblem } : {}),
  });
  return { monitor: new SessionMonitor({ ...monitorOptions, store, bus }), bus };
}
