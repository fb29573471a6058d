import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { ArchiveSink } from '../compaction/archive-sink.js';
import { type ApiRoute, registerRoutes } from '../http/route-table.js';
import type { ProxyPauseStage } from '../session/proxy-status.js';
import type { SessionMonitor } from '../session/session-monitor.js';
import { upstreamAgent } from './forward.js';
import type { ResolvedProxyOptions } from './proxy-options.js';
import { type ProxyCounters, proxyRoutes } from './proxy-routes.js';
import type { KeptProxySessions } from './proxy-session-rows.js';
import { ProxySessions } from './proxy-sessions.js';
import { RequestDescriber } from './request-describer.js';

/** What the proxy counts, as the service's metrics take it. */
export interface ProxyServiceMetrics extends ProxyCounters {
  /** The proxy stopped acting on a session: recording it failed at `stage`. */
  pause(stage: ProxyPauseStage): void;
  /** The proxy's sessions, for the gauges that read their standing. */
  watch(sessions: ProxySessions): void;
}

/** What the service gives the proxy: its options, the session monitor, the archive and the kept rows. */
export interface ProxyServiceParts {
  options: ResolvedProxyOptions;
  monitor: SessionMonitor;
  archive: ArchiveSink;
  now: () => number;
  /** The proxy's rows in the data folder's database (none: in memory only). */
  kept?: KeptProxySessions;
  metrics: ProxyServiceMetrics;
  log: FastifyBaseLogger;
}

/** The proxy as the service runs it: its routes (for the OpenAPI document), its plugin, and what the close awaits. */
export interface ProxyService {
  routes: ApiRoute[];
  /**
   * Registers the routes in a scope of their own: bodies of any content type, left unread as the request's stream
   * (the proxy passes it on as it arrives, or reads it whole to write edits in, up to its own limit).
   */
  plugin: (scope: FastifyInstance) => Promise<void>;
  /** Every answer recorded and every analysis done, then the upstream connections closed. */
  settle: () => Promise<void>;
}

/** The proxy's sessions, its upstream connections and its routes, wired to the service's monitor and metrics. */
export function proxyService(parts: ProxyServiceParts): ProxyService {
  const { options, metrics } = parts;
  // The proxy never logs a request's content or headers (keys): only the stage and the error's message.
  const log = (stage: string, error: unknown) =>
    parts.log.warn(
      { stage, error: error instanceof Error ? error.message : String(error) },
      'proxy: failed open',
    );
  const sessions = new ProxySessions({
    monitor: parts.monitor,
    archive: parts.archive,
    now: parts.now,
    ...(parts.kept ? { kept: parts.kept } : {}),
    onFailure: (stage, error) => {
      metrics.failure(stage);
      log(stage, error);
    },
    onPause: (stage) => metrics.pause(stage),
    windowPolicy: options.windowPolicy,
  });
  metrics.watch(sessions);
  const upstream = upstreamAgent({
    headersTimeoutSeconds: options.upstreamHeadersTimeoutSeconds,
    idleTimeoutSeconds: options.upstreamIdleTimeoutSeconds,
  });
  const routes = proxyRoutes({
    options,
    upstream,
    sessions,
    counters: metrics,
    log,
    describer: new RequestDescriber({
      describe: (id, context) => parts.monitor.describe(id, context),
      onFailure: (error) => {
        metrics.failure('record');
        log('record', error);
      },
    }),
  });
  return {
    routes,
    plugin: async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
      registerRoutes(scope, routes, 'raw');
    },
    settle: async () => {
      await sessions.settled();
      await upstream.destroy();
    },
  };
}
