/**
 * How an upstream answer failed, as `/metrics` counts it (`barometer_proxy_upstream_failures_total{reason}`):
 * - `reset`: the provider's connection was reset (a TCP RST, `ECONNRESET`);
 * - `closed`: it was closed before the answer was whole (mid-event, mid-chunk, or before the headers);
 * - `short_body`: the answer promised a content-length and the connection closed before that many bytes;
 * - `timeout`: no headers, or no body bytes, within the proxy's upstream timeouts;
 * - `malformed`: bytes that are not HTTP (a bad chunk size, headers too large);
 * - `unreachable`: no connection at all (refused, unknown host, no route, TLS failure, connect timeout).
 */
export type UpstreamFailure = 'reset' | 'closed' | 'short_body' | 'timeout' | 'malformed' | 'unreachable';

/** Every reason, in the order the documentation lists them. */
export const UPSTREAM_FAILURES: readonly UpstreamFailure[] = [
  'reset',
  'closed',
  'short_body',
  'timeout',
  'malformed',
  'unreachable',
];

/** The error's code, or its cause's (undici and Node put the socket's own error in `cause` at times). */
function codeOf(error: unknown): string | undefined {
  for (
    let current = error, depth = 0;
    depth < 3 && typeof current === 'object' && current !== null;
    depth++
  ) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** undici's codes for an answer cut before its end (its socket ended or closed). */
const CLOSED = new Set(['UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'EPIPE']);

/**
 * undici's parser errors carry no code (its `HTTPParserError` is given the llhttp error's number, which it does
 * not name): a connection that closed inside a message reads "Invalid EOF state" (llhttp's own reason).
 */
function parserFailure(error: unknown): 'closed' | 'malformed' | undefined {
  if (!(error instanceof Error) || error.name !== 'HTTPParserError') return undefined;
  return error.message.includes('Invalid EOF state') ? 'closed' : 'malformed';
}

/**
 * Why an upstream request or answer failed, from the error undici (or the socket) gave. `answer` is present once
 * the answer's headers arrived: `promisedBytes` its content-length, when it had one. A close of an answer that
 * promised a length is a short body (had every byte come, the answer would have ended cleanly).
 */
export function upstreamFailure(
  error: unknown,
  answer?: { promisedBytes: number | undefined },
): UpstreamFailure {
  const code = codeOf(error);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'timeout';
  if (code === 'ECONNRESET') return 'reset';
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return 'short_body';
  if (code !== undefined && CLOSED.has(code))
    return answer?.promisedBytes !== undefined ? 'short_body' : 'closed';
  const parser = parserFailure(error);
  if (parser === 'closed') return answer?.promisedBytes !== undefined ? 'short_body' : 'closed';
  if (parser === 'malformed' || code === 'UND_ERR_HEADERS_OVERFLOW') return 'malformed';
  return answer ? 'closed' : 'unreachable';
}
