import { BarometerError } from '../errors/barometer-error.js';
import { DEFAULT_SERVER_URL } from '../integrations/barometer-client.js';
import { UsageError } from './io.js';

/** The environment variable naming the service of `pool`, `hook` and `watch --server`. */
export const SERVICE_URL_VARIABLE = 'BAROMETER_URL';

/** The service a command talks to, and what chose it, so that a failure can say both. */
export interface ServiceTarget {
  /** The base URL, without a trailing slash. */
  url: string;
  /** `--server`, the environment variable, the data folder's service file, or the default (none of them). */
  source: '--server' | typeof SERVICE_URL_VARIABLE | 'service file' | 'default';
  /** The service file that named it (source `service file`). */
  file?: string;
}

/**
 * The service a command talks to: `--server`, else `$BAROMETER_URL`, else the running service the data folder's
 * service file names (`found`, when the command looks there), else http://127.0.0.1:8797. A URL that is not
 * http(s) is bad input (exit 2), named with where it came from.
 */
export function serviceTarget(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  found?: { url: string; file: string },
): ServiceTarget {
  const variable = env[SERVICE_URL_VARIABLE];
  const [text, source]: [string, ServiceTarget['source']] =
    flag !== undefined
      ? [flag, '--server']
      : variable !== undefined && variable !== ''
        ? [variable, SERVICE_URL_VARIABLE]
        : found !== undefined
          ? [found.url, 'service file']
          : [DEFAULT_SERVER_URL, 'default'];
  let protocol: string | undefined;
  try {
    protocol = new URL(text).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new UsageError(
      `${source} must be the http:// or https:// URL of a barometer service, such as ${DEFAULT_SERVER_URL}; got ${JSON.stringify(text)}`,
    );
  }
  return {
    url: text.replace(/\/+$/, ''),
    source,
    ...(source === 'service file' && found ? { file: found.file } : {}),
  };
}

function chosenBy(target: ServiceTarget): string {
  if (target.source === '--server') return 'given by --server';
  if (target.source === SERVICE_URL_VARIABLE) return `from ${SERVICE_URL_VARIABLE}`;
  if (target.source === 'service file') return `named by ${target.file}`;
  return `the default: no --server, ${SERVICE_URL_VARIABLE} unset`;
}

/** Why the connection failed, without the client's own "not reachable at <url>" preamble. */
function reasonOf(cause: unknown): string {
  const inner = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause;
  if (!(inner instanceof Error)) return String(inner);
  // A name with two addresses (localhost: ::1 and 127.0.0.1) fails with an AggregateError whose message is empty.
  if (inner.message === '' && inner instanceof AggregateError)
    return inner.errors
      .map((error: unknown) => (error instanceof Error ? error.message : String(error)))
      .join(', ');
  return inner.message || ((inner as NodeJS.ErrnoException).code ?? inner.name);
}

/**
 * What a command says when no service answers: which URL, what chose it, why the connection failed and how to get
 * one that answers, e.g. `no barometer service answers at http://127.0.0.1:8797 (the default: no --server,
 * BAROMETER_URL unset; connect ECONNREFUSED 127.0.0.1:8797): start one with \`barometer serve\`, or point --server
 * or BAROMETER_URL at yours`. `otherwise` adds the command's own way out.
 */
export function unreachableText(target: ServiceTarget, cause: unknown, otherwise = ''): string {
  return `no barometer service answers at ${target.url} (${chosenBy(target)}; ${reasonOf(cause)}): start one with \`barometer serve\`, or point --server or ${SERVICE_URL_VARIABLE} at yours${otherwise}`;
}

/** {@link unreachableText} as the error a command fails with: BR_ERR_UNAVAILABLE, exit 6 (retry once it runs). */
export function serviceUnreachable(target: ServiceTarget, cause: unknown, otherwise = ''): BarometerError {
  return new BarometerError('BR_ERR_UNAVAILABLE', unreachableText(target, cause, otherwise), {
    cause,
    details: { url: target.url },
  });
}
