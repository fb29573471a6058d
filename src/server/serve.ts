import type { FastifyInstance } from 'fastify';
import { BarometerError } from '../errors/index.js';
import { removeServiceFile, writeServiceFile } from '../store/service-file.js';
import { BAROMETER_VERSION } from '../version.js';
import { isLoopbackHost } from './access.js';
import { type AppDependencies, buildApp } from './app.js';
import { addressText, listenFailure } from './listen-failure.js';
import { DEFAULT_PORT, type ServerOptions, ServerOptionsSchema } from './options.js';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/** What {@link startServer} takes besides the app's own dependencies. */
export interface StartDependencies extends AppDependencies {
  /** Close gracefully on SIGTERM/SIGINT, then exit (`barometer serve`, `barometer proxy`). */
  handleSignals?: boolean;
  /**
   * Write `<dataDir>/service.json` (url, pid, version, start, proxy routes) once listening, and remove it on close,
   * so that `barometer wrap`, `hook`, `watch` and `stop` find this service from its data folder.
   */
  serviceFile?: boolean;
}

/**
 * Builds the app, listens, and closes gracefully on SIGTERM/SIGINT (in-flight requests finish, new ones
 * get 503) when `handleSignals` is set, as `barometer serve` does.
 *
 * @throws BarometerError BR_ERR_PORT_IN_USE when another process listens on the address (`details.host`,
 * `details.port`); the app is closed again.
 */
export async function startServer(
  options: ServerOptions = {},
  dependencies: StartDependencies = {},
): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  // Archived tool outputs may hold secrets: a service other machines can reach must ask for a key.
  if (!isLoopbackHost(host) && (options.apiKeys ?? []).length === 0 && options.insecure !== true) {
    throw new BarometerError(
      'BR_ERR_INVALID_PARAM',
      `Refusing to listen on ${host} without an API key: other machines could read every session and archive. Give --api-key (or BAROMETER_API_KEYS), or --insecure to accept the risk`,
      {
        issues: [
          { field: 'host', value: host, message: 'a non-loopback address needs an API key (or insecure)' },
        ],
      },
    );
  }
  const app = await buildApp(options, dependencies);
  const requestedPort = options.port ?? DEFAULT_PORT;
  try {
    await app.listen({ host, port: requestedPort });
  } catch (error) {
    // Nothing is left open (stores, timers) by a service that never listened.
    await app.close();
    throw listenFailure(error, host, requestedPort);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : requestedPort;
  const url = `http://${addressText(host, port)}`;
  const forget = dependencies.serviceFile ? announce(options, url) : () => undefined;
  let closing: Promise<void> | undefined;
  const close = () => {
    // Unannounced first: a client reading the file meanwhile does not pick a service that is closing.
    closing ??= Promise.resolve()
      .then(forget)
      .then(() => app.close());
    return closing;
  };
  if (dependencies.handleSignals) {
    const onSignal = (signal: NodeJS.Signals) => {
      app.log.info({ signal }, 'shutting down');
      close().then(
        () => process.exit(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
  return { app, url, close };
}

/** Writes the service file of the options' data folder; answers the function that removes it. */
function announce(options: ServerOptions, url: string): () => void {
  const { dataDir, proxy } = ServerOptionsSchema.parse(options);
  writeServiceFile(dataDir, {
    url,
    pid: process.pid,
    version: BAROMETER_VERSION,
    started: new Date().toISOString(),
    proxy: proxy
      ? {
          mode: proxy.mode,
          anthropicUpstream: proxy.anthropicUpstream,
          openaiUpstream: proxy.openaiUpstream,
          chatgptUpstream: proxy.chatgptUpstream,
          windowPolicy: proxy.windowPolicy,
        }
      : null,
  });
  return () => removeServiceFile(dataDir, process.pid);
}
