import type { FastifyInstance } from 'fastify';
import { type AppDependencies, buildApp } from './app.js';
import type { ServerOptions } from './options.js';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/**
 * Builds the app, listens, and closes gracefully on SIGTERM/SIGINT (in-flight requests finish, new ones
 * get 503) when `handleSignals` is set, as `headroom serve` does.
 */
export async function startServer(
  options: ServerOptions = {},
  dependencies: AppDependencies & { handleSignals?: boolean } = {},
): Promise<RunningServer> {
  const app = await buildApp(options, dependencies);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 8787 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= app.close();
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
