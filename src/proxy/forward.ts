import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/**
 * Headers that describe one hop, not the message (RFC 9110 §7.6.1), and the ones Node sets itself: never copied
 * from one side of the proxy to the other.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'host',
  'content-length',
]);

/**
 * The agent's headers as they go upstream: every one as sent (keys and authorization included, never read), less
 * the hop-by-hop ones (the content-length stays: `forward` sets its own when it sends other bytes);
 * `accept-encoding: identity`, so that the answer's bytes are the provider's own and barometer
 * can read its usage as they pass (the hop between agent and proxy is the loopback: nothing to compress).
 */
export function upstreamHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const hop = HOP_BY_HOP.has(name) && name !== 'content-length';
    if (value === undefined || hop || name.startsWith('x-barometer-')) continue;
    out[name] = value;
  }
  out['accept-encoding'] = 'identity';
  return out;
}

/** The upstream answer's headers as they go back to the agent, less the hop-by-hop ones. */
export function downstreamHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || (HOP_BY_HOP.has(name) && name !== 'content-length')) continue;
    out[name] = value;
  }
  return out;
}

/**
 * Sends one request upstream and resolves with the answer as it starts (status and headers); its body streams.
 * The body is the agent's stream, passed on as it arrives (with the agent's content-length, or chunked), or parts
 * sent one after the other with their total length. Rejects when the upstream cannot be reached. `signal` aborts
 * it (the agent went away).
 */
export function forward(
  url: URL,
  method: string,
  headers: Record<string, string | string[]>,
  body: readonly Buffer[] | Readable,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    if (body instanceof Readable) {
      const outgoing = send(url, { method, headers, signal }, resolve);
      outgoing.on('error', reject);
      body.pipe(outgoing);
      return;
    }
    let length = 0;
    for (const part of body) length += part.length;
    const outgoing = send(
      url,
      { method, headers: { ...headers, 'content-length': String(length) }, signal },
      resolve,
    );
    outgoing.on('error', reject);
    outgoing.cork();
    for (const part of body) outgoing.write(part);
    outgoing.end();
  });
}
