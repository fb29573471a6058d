import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from '../http/problem.js';

/** The hostnames every local client uses; the listen host is added to them. */
const LOCALHOST_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);
/** Methods a browser page may send without asking (no preflight) that change nothing here. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The hostnames a request may name in its Host header: the listen host (unless it is a wildcard address), the
 * localhost variants, and the ones configured (`allowedHosts`). Port-agnostic; the port is checked against the
 * socket the request came in on.
 */
export function allowedHostnames(listenHost: string, extra: readonly string[] = []): Set<string> {
  const names = new Set(LOCALHOST_NAMES);
  const host = listenHost.toLowerCase();
  if (!WILDCARD_HOSTS.has(host)) names.add(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
  for (const name of extra) names.add(name.toLowerCase());
  return names;
}

/** The hostname and port of a Host header or an Origin, as the URL parser reads them; undefined if malformed. */
function hostOf(text: string, withScheme: boolean): { hostname: string; port: string } | undefined {
  try {
    const url = new URL(withScheme ? text : `http://${text}`);
    if (!withScheme && (url.pathname !== '/' || url.search || url.username)) return undefined;
    if (withScheme && url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return {
      hostname: url.hostname,
      port: url.port || (withScheme ? (url.protocol === 'https:' ? '443' : '80') : ''),
    };
  } catch {
    return undefined;
  }
}

export interface HostPolicy {
  /** Hostnames allowed in Host (see {@link allowedHostnames}). */
  hostnames: ReadonlySet<string>;
  /** Origins allowed to call the API from a browser (CORS, `corsOrigins`); `*` allows any. */
  corsOrigins: ReadonlySet<string>;
}

export interface RequestHeaders {
  host?: string | undefined;
  origin?: string | undefined;
  secFetchSite?: string | undefined;
}

/**
 * Whether a request may reach the service. Two attacks from a web page are refused:
 * - DNS rebinding: a page whose name was rebound to this machine sends its own name in Host, so Host must name
 *   this service (an allowed hostname, and the port the request came in on), on every route;
 * - cross-site requests: a page on another origin may send a POST without asking (a "simple" request: text/plain,
 *   a form, no body), so a request that is not a read (`GET`, `HEAD`, `OPTIONS`) and whose `Origin` is neither this
 *   service's own nor one of `corsOrigins`, or that the browser marks `Sec-Fetch-Site: cross-site` without an
 *   allowed Origin, is refused whatever its content type.
 * Agents, curl and the SDKs send neither Origin nor Sec-Fetch-Site: only their Host is checked.
 */
export function checkRequestHost(
  method: string,
  headers: RequestHeaders,
  policy: HostPolicy,
  localPort?: number,
): { ok: true } | { ok: false; reason: string; header: 'host' | 'origin' | 'sec-fetch-site' } {
  if (!headers.host) return { ok: false, reason: 'Missing Host header', header: 'host' };
  const host = hostOf(headers.host, false);
  if (!host)
    return { ok: false, reason: `Invalid Host header: ${JSON.stringify(headers.host)}`, header: 'host' };
  if (!policy.hostnames.has(host.hostname))
    return {
      ok: false,
      reason: `Host not allowed: ${host.hostname} (DNS-rebinding protection; add it with --allowed-hosts)`,
      header: 'host',
    };
  // A port other than the one the request came in on names some other service (URL drops a scheme's default).
  if (host.port !== '' && localPort !== undefined && Number(host.port) !== localPort)
    return {
      ok: false,
      reason: `Host port ${host.port} is not this service's (${localPort})`,
      header: 'host',
    };
  if (READ_METHODS.has(method)) return { ok: true };
  const origin = headers.origin;
  if (origin !== undefined && origin !== '') {
    if (policy.corsOrigins.has('*') || policy.corsOrigins.has(origin)) return { ok: true };
    const parsed = hostOf(origin, true);
    const own =
      parsed !== undefined &&
      policy.hostnames.has(parsed.hostname) &&
      (localPort === undefined || Number(parsed.port) === localPort);
    if (!own)
      return {
        ok: false,
        reason: `Origin not allowed: ${JSON.stringify(origin)} (a page on another site cannot change this service's state; allow it with --cors-origin)`,
        header: 'origin',
      };
    return { ok: true };
  }
  if (headers.secFetchSite === 'cross-site')
    return {
      ok: false,
      reason: 'Cross-site request refused (Sec-Fetch-Site: cross-site without an allowed Origin)',
      header: 'sec-fetch-site',
    };
  return { ok: true };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The check as one `onRequest` hook on the whole app: every route, registered before or after (API, dashboard,
 * event streams, /mcp, and the proxy's /v1 routes), and the not-found handler. It runs before the body is read, so
 * a refused request costs nothing whatever its body. `/mcp` answers in JSON-RPC, the shape its clients read.
 */
export function registerHostGuard(app: FastifyInstance, policy: HostPolicy): void {
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    // An absolute-form target (`POST http://evil.com/v1/messages`) is for forward proxies (RFC 9112 §3.2.2):
    // barometer is an origin server, and its proxy would have joined that URL to a provider's (issue 40: a 500).
    const target = request.raw.url ?? '';
    if (!target.startsWith('/') && !(request.method === 'OPTIONS' && target === '*')) {
      sendProblem(
        reply,
        'BR_ERR_BAD_REQUEST',
        `the request target must be a path (origin-form, RFC 9112 §3.2.1); got ${JSON.stringify(target.slice(0, 200))}`,
      );
      return;
    }
    const check = checkRequestHost(
      request.method,
      {
        host: request.headers.host,
        origin: first(request.headers.origin),
        secFetchSite: first(request.headers['sec-fetch-site']),
      },
      policy,
      request.socket?.localPort,
    );
    if (check.ok) return done();
    if (request.url === '/mcp' || request.url.startsWith('/mcp?')) {
      reply.code(403).send({
        jsonrpc: '2.0',
        error: { code: -32000, message: check.reason, data: { code: 'BR_ERR_FORBIDDEN_HOST' } },
        id: null,
      });
      return;
    }
    sendProblem(reply, 'BR_ERR_FORBIDDEN_HOST', check.reason, { header: check.header });
  });
}
