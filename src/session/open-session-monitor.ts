import { join, resolve } from 'node:path';
import type { Redis } from 'ioredis';
import type { AppendOnlyList } from '../store/append-only-list.js';
import type { ArchiveStore } from '../store/archive.js';
import { lockDataDir } from '../store/data-dir-lock.js';
import { RedisEventBus } from '../store/event-bus.js';
import { importSessionFolder } from '../store/import-session-folder.js';
import { RedisStateStore } from '../store/redis-state-store.js';
import { SqliteStateStore, type StoreProblem } from '../store/sqlite-state-store.js';
import { DATABASE_FILE, StateDatabase } from '../store/state-database.js';
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

/** A session record's lists that only grow at their end, kept beside it by the stores (Redis lists, table rows). */
export const TIMELINE_LISTS: readonly AppendOnlyList[] = [
  { path: ['timeline', 'points'], limit: DEFAULT_TIMELINE_POINTS },
  { path: ['timeline', 'markers'], limit: DEFAULT_TIMELINE_MARKERS },
];

/** The same lists, each line checked when an older release's file is read: a bad line is skipped (F9). */
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
  /** The embedded database: sessions, timelines, the proxy's edits, pools, webhooks, the report cache. */
  database: string;
  /** Where releases before the database kept sessions as files (imported once into the database). */
  sessions: string;
  archives: string;
  artifacts: string;
} {
  const root = resolve(dataDir);
  return {
    root,
    database: join(root, DATABASE_FILE),
    sessions: join(root, 'sessions'),
    archives: join(root, 'archives'),
    artifacts: join(root, 'artifacts'),
  };
}

export interface OpenSessionMonitorOptions extends Omit<SessionMonitorOptions, 'store' | 'archive'> {
  /** The data dir; sessions are kept in its database, `<dataDir>/barometer.db`. */
  dataDir: string;
  /** Keep sessions across restarts (in the data dir's database; else in this process's memory). @default true */
  persistSessions?: boolean;
  /** The data dir's database, opened by the caller (who closes it after the monitor); else the monitor's own. */
  database?: StateDatabase;
  /** Sessions kept at most; one more is refused (BR_ERR_SESSION_LIMIT). @default 10000 */
  maxSessions?: number;
  /** Where compactions archive what they replace (normally `<dataDir>/archives`). */
  archive?: ArchiveStore;
  /**
   * Told of sessions mended when read back (`repair`), and, once, of the import of an older release's session
   * folder (`import`: the one line saying so; `load`/`skip`: what of it did not read back).
   */
  onProblem?: (problem: StoreProblem) => void;
}

/**
 * The session monitor of a data dir: sessions in its database (`<dataDir>/barometer.db`), opened at once (nothing
 * is read but the count: a session is read when asked for). A `<dataDir>/sessions` folder left by a release
 * before the database is imported into it first, once.
 */
export async function openSessionMonitor(options: OpenSessionMonitorOptions): Promise<SessionMonitor> {
  const {
    dataDir,
    persistSessions = true,
    database,
    maxSessions,
    archive,
    onProblem,
    ...monitorOptions
  } = options;
  const now = monitorOptions.now ?? Date.now;
  const skewMs = monitorOptions.clockSkewMs ?? DEFAULT_CLOCK_SKEW_MS;
  const paths = dataDirPaths(dataDir);
  // One writer per data dir (F5): a second process refuses to start, naming the holder.
  const lock = persistSessions ? lockDataDir(paths.root) : undefined;
  if (lock?.tookOverFrom)
    onProblem?.({
      id: '*',
      action: 'repair',
      reason: `took over the lock of ${lock.path} from process ${lock.tookOverFrom.pid}, which is no longer running`,
    });
  const parse = (value: unknown) => {
    const time = now();
    return restoreSessionRecord(value, time, time + skewMs);
  };
  let store: SqliteStateStore<SessionRecord>;
  try {
    const own = database ?? StateDatabase.open(persistSessions ? paths.database : ':memory:');
    store = new SqliteStateStore<SessionRecord>({
      database: own,
      ownsDatabase: database === undefined,
      table: 'sessions',
      parse,
      lists: TIMELINE_LISTS,
      touchedAt: (record) => record.touchedAt,
      ...(maxSessions === undefined ? {} : { maxEntries: maxSessions }),
      ...(onProblem ? { onProblem } : {}),
      ...(lock ? { lock } : {}),
    });
    if (persistSessions) importOlderSessions(paths, store, parse, onProblem);
  } catch (error) {
    lock?.release();
    throw error;
  }
  return new SessionMonitor({ ...monitorOptions, store, ...(archive ? { archive } : {}) });
}

/** The session folder of a release before the database, read into it once, with one line saying so. */
function importOlderSessions(
  paths: ReturnType<typeof dataDirPaths>,
  store: SqliteStateStore<SessionRecord>,
  parse: (value: unknown) => ReturnType<typeof restoreSessionRecord>,
  onProblem: ((problem: StoreProblem) => void) | undefined,
): void {
  const imported = importSessionFolder(paths.sessions, store, {
    lists: CHECKED_TIMELINE_LISTS,
    parse,
    ...(onProblem ? { onProblem } : {}),
  });
  if (!imported) return;
  onProblem?.({
    id: '*',
    action: 'import',
    reason: `imported ${imported.imported} session${imported.imported === 1 ? '' : 's'} from ${paths.sessions} into ${paths.database}${imported.existing > 0 ? ` (${imported.existing} already there)` : ''}${imported.setAside > 0 ? `, ${imported.setAside} not readable` : ''}; the folder is kept as ${imported.keptAs}`,
  });
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
