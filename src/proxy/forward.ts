import type { IncomingHttpHeaders } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';

/**
 * Headers that describe one hop, not the message: RFC 9110 §7.6.1 names Connection and the fields it lists, and
 * Proxy-Connection, Keep-Alive, TE, Transfer-Encoding and Upgrade (as fastify-reply-from's
 * `stripHttp1ConnectionHeaders` drops them, with HTTP2-Settings); `host` and `content-length` are the new hop's
 * (undici sets them); `expect` was the agent's hop's (Node's server answered its 100-continue; undici refuses it).
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
  'te',
  'trailer',
  'host',
  'expect',
]);

/** The header names a `Connection` header lists (RFC 9110 §7.6.1): hop-by-hop as well, whatever they are. */
function connectionListed(headers: IncomingHttpHeaders): Set<string> {
  const listed = new Set<string>();
  // Node joins an agent's repeated Connection headers with ", "; undici gives an upstream's repeated ones as an array.
  const value: unknown = headers.connection;
  const values = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  for (const one of values) {
    if (typeof one !== 'string') continue;
    for (const token of one.split(',')) {
      const name = token.trim().toLowerCase();
      if (name !== '') listed.add(name);
    }
  }
  return listed;
}

/** `headers` less the hop-by-hop ones, the ones their `Connection` names, and those `skip` says to leave. */
function endToEnd(
  headers: IncomingHttpHeaders,
  skip: (name: string) => boolean,
): Record<string, string | string[]> {
  const listed = connectionListed(headers);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed.has(name) || skip(name)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * The agent's headers as they go upstream: every one as sent (keys and authorization included, never read), less
 * the hop-by-hop ones and `x-barometer-*` (the content-length stays: `forward` sets its own when it sends other
 * bytes); `accept-encoding: identity`, so that the answer's bytes are the provider's own and barometer can read
 * its usage as they pass (the hop between agent and proxy is the loopback: nothing to compress).
 */
export function upstreamHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out = endToEnd(headers, (name) => name.startsWith('x-barometer-'));
  out['accept-encoding'] = 'identity';
  return out;
}

/**
 * The upstream answer's headers as they go back to the agent, less the hop-by-hop ones. Its content-length stays:
 * the body passes byte for byte, and with it an agent sees a body cut short as the error it is.
 */
export function downstreamHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  return endToEnd(headers, () => false);
}

/** The upstream's answer as it starts: status and headers; its body streams (and errors as the upstream fails). */
export interface UpstreamAnswer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

/** The two limits of the upstream hop, in seconds (see `ProxyOptionsSchema` for their defaults and why). */
export interface UpstreamTimeouts {
  /** Longest wait for the answer's headers once the request is sent. */
  headersTimeoutSeconds: number;
  /** Longest silence between two parts of the answer's body. */
  idleTimeoutSeconds: number;
}

/**
 * The connections to the providers: one undici agent per proxy (kept-alive connections per origin), its timeouts
 * the proxy's. `destroy()` it when the proxy closes.
 */
export function upstreamAgent(timeouts: UpstreamTimeouts): Agent {
  return new Agent({
    headersTimeout: Math.round(timeouts.headersTimeoutSeconds * 1000),
    bodyTimeout: Math.round(timeouts.idleTimeoutSeconds * 1000),
  });
}

/**
 * The agent's stream as undici reads it: piped now, in the turn the caller's own listeners were added (undici
 * starts reading once connected, when a flowing stream's first chunks would have gone by), its errors passed on
 * so that undici aborts the upstream request. Destroying the copy (undici's abort) leaves the agent's stream, and
 * so its connection, open: the agent may still be answered (a 413).
 */
function relayed(body: Readable): Readable {
  const copy = new PassThrough();
  body.pipe(copy);
  body.once('error', (error) => copy.destroy(error));
  body.once('close', () => {
    if (!body.readableEnded) copy.destroy(new Error("the agent's request body ended before it was whole"));
  });
  return copy;
}

/**
 * Sends one request upstream and resolves with the answer as it starts (status and headers); its body streams.
 * The body is the agent's stream, passed on as it arrives (with the agent's content-length, or chunked), or parts
 * sent one after the other with their total length (no copy). Rejects when the upstream cannot be reached, or
 * fails before its headers. `signal` aborts it (the agent went away).
 */
export async function forward(
  agent: Dispatcher,
  url: URL,
  method: string,
  headers: Record<string, string | string[]>,
  body: readonly Buffer[] | Readable,
  signal: AbortSignal,
): Promise<UpstreamAnswer> {
  const path = `${url.pathname}${url.search}`;
  const options = { origin: url.origin, path, method: method as Dispatcher.HttpMethod, signal };
  if (!Array.isArray(body)) {
    const answer = await agent.request({ ...options, headers, body: relayed(body as Readable) });
    return { statusCode: answer.statusCode, headers: answer.headers, body: answer.body };
  }
  const parts = body as readonly Buffer[];
  let length = 0;
  for (const part of parts) length += part.length;
  const answer = await agent.request({
    ...options,
    headers: { ...headers, 'content-length': String(length) },
    // One part as it is; several as an iterable, which undici writes part by part (its types list no iterable).
    body: parts.length === 1 ? (parts[0] as Buffer) : (parts as unknown as Readable),
  });
  return { statusCode: answer.statusCode, headers: answer.headers, body: answer.body };
}
