import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedResponse } from '../usage/test-helpers/traces.js';

/**
 * A local HTTP server (127.0.0.1, a free port) that answers the real SDKs with recorded provider responses, for
 * the adapter tests: no network beyond the loopback.
 */

export interface ReceivedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The JSON body, parsed (undefined when there is none or it is not JSON). */
  body: Record<string, unknown> | undefined;
  /** The body's bytes as received. */
  raw: Buffer;
}

export interface ServedResponse {
  status?: number;
  headers: Record<string, string>;
  body: string;
  /** Keep a server-sent-events response open after its body, as a provider still generating does. */
  hold?: boolean;
}

export interface CassetteServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * Starts the server; `answer` chooses each response. A server-sent-events body is written in 64-byte pieces, one
 * per turn of the event loop, so that clients read events split across chunks as they do from a real provider.
 */
export async function startCassetteServer(
  answer: (request: ReceivedRequest, index: number) => ServedResponse,
): Promise<CassetteServer> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', async () => {
      const raw = Buffer.concat(chunks);
      const text = raw.toString('utf8');
      let body: Record<string, unknown> | undefined;
      try {
        body = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
      } catch {
        body = undefined;
      }
      const request: ReceivedRequest = {
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        headers: incoming.headers,
        body,
        raw,
      };
      requests.push(request);
      const response = answer(request, requests.length - 1);
      outgoing.writeHead(response.status ?? 200, response.headers);
      if (!(response.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        outgoing.end(response.body);
        return;
      }
      const bytes = Buffer.from(response.body, 'utf8');
      for (let offset = 0; offset < bytes.length; offset += 64) {
        outgoing.write(bytes.subarray(offset, offset + 64));
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (!response.hold) outgoing.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * A recorded response as the server sends it: its body (JSON re-encoded, SSE as recorded), its content type, and
 * the extra headers given (the cassettes carry no rate-limit headers: the tests add them, see below).
 */
export function replay(
  recorded: RecordedResponse,
  extraHeaders: Record<string, string> = {},
): ServedResponse {
  const body = typeof recorded.body === 'string' ? recorded.body : JSON.stringify(recorded.body);
  return {
    status: recorded.status,
    headers: {
      'content-type': recorded.headers['content-type'] ?? 'application/json',
      ...extraHeaders,
    },
    body,
  };
}

/**
 * Rate-limit headers in OpenAI's documented form (https://platform.openai.com/docs/guides/rate-limits), added by
 * the test server: the recorded responses do not carry them.
 */
export const OPENAI_RATE_LIMIT_HEADERS: Readonly<Record<string, string>> = {
  'x-ratelimit-limit-requests': '500',
  'x-ratelimit-remaining-requests': '499',
  'x-ratelimit-reset-requests': '120ms',
  'x-ratelimit-limit-tokens': '200000',
  'x-ratelimit-remaining-tokens': '150000',
  'x-ratelimit-reset-tokens': '15s',
};

/**
 * Rate-limit headers in Anthropic's documented form (https://docs.claude.com/en/api/rate-limits), added by the
 * test server: the recorded responses do not carry them. `resetAt` is the RFC 3339 time the buckets are full.
 */
export function anthropicRateLimitHeaders(resetAt: Date): Record<string, string> {
  const reset = resetAt.toISOString();
  return {
    'anthropic-ratelimit-requests-limit': '50',
    'anthropic-ratelimit-requests-remaining': '49',
    'anthropic-ratelimit-requests-reset': reset,
    'anthropic-ratelimit-input-tokens-limit': '30000',
    'anthropic-ratelimit-input-tokens-remaining': '20000',
    'anthropic-ratelimit-input-tokens-reset': reset,
    'anthropic-ratelimit-output-tokens-limit': '8000',
    'anthropic-ratelimit-output-tokens-remaining': '7900',
    'anthropic-ratelimit-output-tokens-reset': reset,
  };
}

/**
 * A recorded chat-completions stream as OpenAI sends it to a request that did not ask for usage: the SDK's
 * `ChatCompletionChunk.usage` is "only present when you set `stream_options: {"include_usage": true}`", and the
 * last chunk, whose `choices` is empty, comes only then. The recording asked for it; this takes both out.
 */
export function withoutStreamUsage(sse: string): string {
  return sse
    .split('\n\n')
    .flatMap((event) => {
      if (!event.startsWith('data: {')) return [event];
      const chunk = JSON.parse(event.slice(6)) as { choices?: unknown[]; usage?: unknown };
      if (Array.isArray(chunk.choices) && chunk.choices.length === 0 && chunk.usage) return [];
      if (!('usage' in chunk)) return [event];
      const { usage: _usage, ...rest } = chunk;
      return [`data: ${JSON.stringify(rest)}`];
    })
    .join('\n\n');
}
