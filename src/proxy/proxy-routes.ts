import type { IncomingMessage } from 'node:http';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from '../server/problem.js';
import type { ApiRoute } from '../server/route-table.js';
import { downstreamHeaders, forward, upstreamHeaders } from './forward.js';
import type { ResolvedProxyOptions } from './proxy-options.js';
import type { ProxySession, ProxySessions, ProxyStage } from './proxy-sessions.js';
import {
  type SessionSource,
  sessionIdFromBody,
  sessionIdFromHeaders,
  type WireFormat,
} from './session-key.js';
import { applyEdits } from './wire-history.js';
import { spliceEdits } from './wire-splice.js';

type Json = Record<string, unknown>;

/** What the proxy counts in /metrics. */
export interface ProxyCounters {
  /** One forwarded request: its API and what the proxy did (passed, edited, held, unreachable). */
  request(api: string, outcome: 'passed' | 'edited' | 'held' | 'unreachable'): void;
  /** An internal failure; the request went on unchanged. */
  failure(stage: ProxyStage): void;
}

export interface ProxyRouteContext {
  options: ResolvedProxyOptions;
  sessions: ProxySessions;
  counters: ProxyCounters;
  /** Logs a failure without the request's content or keys. */
  log: (stage: ProxyStage, error: unknown) => void;
}

/** A usage figure sits in the last events of an answer; beyond this many bytes only the tail is kept. */
const KEPT_ANSWER_BYTES = 4 * 1024 * 1024;

/** Passes the upstream's bytes on untouched, keeping a copy (the tail, past the cap) to read the usage from. */
class Tap extends Transform {
  readonly chunks: Buffer[] = [];
  #bytes = 0;
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.chunks.push(chunk);
    this.#bytes += chunk.length;
    while (this.#bytes > KEPT_ANSWER_BYTES && this.chunks.length > 1)
      this.#bytes -= (this.chunks.shift() as Buffer).length;
    done(null, chunk);
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parse(bytes: Buffer): Json | undefined {
  const value: unknown = JSON.parse(bytes.toString('utf8'));
  return isObject(value) ? value : undefined;
}

function join(chunks: readonly Buffer[]): Buffer {
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

class BodyTooLarge extends Error {}

/** Reads a request body whole, as the chunks received (no copy); rejects past `limit` bytes. */
function readAll(stream: Readable, limit: number): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limit) {
        stream.destroy();
        reject(new BodyTooLarge());
      } else chunks.push(chunk);
    });
    stream.once('end', () => resolve(chunks));
    stream.once('error', reject);
  });
}

interface Endpoint {
  format: WireFormat;
  /** Measured and acted on (a generation), or only passed through (count_tokens, model lists). */
  generation: boolean;
}

/**
 * Where a request goes: the Anthropic or OpenAI upstream with the request's own path, or, for a Responses request
 * of Codex signed in with ChatGPT (its `chatgpt-account-id` header), the ChatGPT backend with the path after `/v1`.
 */
function upstreamUrl(context: ProxyRouteContext, format: WireFormat, request: FastifyRequest): URL {
  const { options } = context;
  if (format === 'anthropic') return new URL(`${options.anthropicUpstream}${request.url}`);
  if (format === 'openai-responses' && request.headers['chatgpt-account-id'] !== undefined)
    return new URL(`${options.chatgptUpstream}${request.url.replace(/^\/v1/, '')}`);
  return new URL(`${options.openaiUpstream}${request.url}`);
}

function tooLarge(reply: FastifyReply, limit: number): FastifyReply {
  return sendProblem(reply, 'BR_ERR_BODY_TOO_LARGE', `the request body is larger than ${limit} bytes`, {
    limit,
  });
}

async function proxy(
  context: ProxyRouteContext,
  endpoint: Endpoint,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { options, sessions, counters } = context;
  const limit = options.bodyLimitBytes;
  // The body is the agent's stream (the proxy's content-type parser leaves it unread).
  const payload = request.body instanceof Readable ? request.body : Readable.from([]);
  if (Number(request.headers['content-length']) > limit) return tooLarge(reply, limit);
  const api = request.routeOptions.url ?? request.url;
  /** The request as received, once read whole. */
  let chunks: Buffer[] | undefined;
  /** What goes upstream: the agent's stream as it arrives, or the request read whole (edits written in). */
  let upstreamBody: Buffer[] | undefined;
  let body: Json | undefined;
  let entry: ProxySession | undefined;
  let source: ReturnType<typeof sessionIdFromHeaders>;
  let outcome: 'passed' | 'edited' | 'held' = 'passed';
  // Fail open: whatever goes wrong in here, the agent's own bytes go upstream.
  if (endpoint.generation) {
    try {
      source = sessionIdFromHeaders(request.headers);
      if (!source) {
        chunks = await readAll(payload, limit);
        body = parse(join(chunks));
        if (body) source = sessionIdFromBody(endpoint.format, body);
      }
      if (source) {
        entry = sessions.session(source.id);
        await entry.pending;
        if (options.mode === 'act' && entry.edits.size > 0) {
          chunks ??= await readAll(payload, limit);
          // The edited blocks' byte ranges, from the session's earlier requests; else parse and re-serialize.
          const spliced = body ? undefined : spliceEdits(chunks, entry.copies, entry.version);
          if (spliced) {
            upstreamBody = spliced.parts;
            if (spliced.blocks > 0) outcome = 'edited';
          } else {
            body ??= parse(join(chunks));
            if (body && applyEdits(endpoint.format, body, entry.edits) > 0) {
              upstreamBody = [Buffer.from(JSON.stringify(body), 'utf8')];
              outcome = 'edited';
            }
          }
        }
        const hold = sessions.holdMs(entry, options.maxWaitSeconds);
        if (hold > 0) {
          outcome = 'held';
          await sleep(hold);
        }
      }
    } catch (error) {
      if (error instanceof BodyTooLarge) return tooLarge(reply, limit);
      if (payload.destroyed && !chunks) throw error;
      context.log('edit', error);
      counters.failure('edit');
      upstreamBody = undefined;
      outcome = 'passed';
    }
  }
  const abort = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  const url = upstreamUrl(context, endpoint.format, request);
  let overLimit = false;
  let sent: Buffer[] | Readable;
  if (upstreamBody) sent = upstreamBody;
  else if (chunks) sent = chunks;
  else {
    // Nothing to change: the agent's bytes go upstream as they arrive, a copy kept for the analysis.
    const received: Buffer[] = [];
    let bytes = 0;
    payload.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= limit) received.push(chunk);
      else if (!overLimit) {
        overLimit = true;
        abort.abort();
      }
    });
    payload.once('end', () => {
      chunks = received;
    });
    sent = payload;
  }
  const answered = forward(url, request.method, upstreamHeaders(request.headers), sent, abort.signal);
  // Once the answer has passed (nothing here can delay the request or the answer's first bytes): the session,
  // then (act) the policy on this request's history, whose edits the session's next request carries.
  const prepare = async (session: ProxySession, from: SessionSource): Promise<boolean> => {
    try {
      // A session already known needs no model; observe mode reads nothing else from the body.
      if (options.mode === 'observe' && session.ready) return await session.ready;
      const received = chunks;
      if (!received) return false;
      await setImmediate();
      const raw = join(received);
      const parsed = parse(raw);
      if (!parsed) return false;
      const model = typeof parsed.model === 'string' && parsed.model !== '' ? parsed.model : 'unknown';
      const created = sessions.ensure(session, model, from, parsed);
      if (options.mode === 'act') sessions.analyze(session, endpoint.format, raw, parsed);
      return await created;
    } catch (error) {
      context.log('analyze', error);
      counters.failure('analyze');
      return false;
    }
  };
  let answer: IncomingMessage;
  try {
    answer = await answered;
  } catch (error) {
    if (overLimit) return tooLarge(reply, limit);
    counters.request(api, 'unreachable');
    if (abort.signal.aborted) return reply;
    return sendProblem(
      reply,
      'BR_ERR_UPSTREAM_UNREACHABLE',
      `barometer proxy could not reach ${url.origin}: ${(error as Error).message}`,
      { upstream: url.origin },
    );
  }
  counters.request(api, outcome);
  const tap = new Tap();
  answer.pipe(tap);
  if (entry && source) {
    const session = entry;
    const from = source.source;
    const status = answer.statusCode ?? 502;
    tap.on('end', () => {
      void sessions.record(
        session,
        endpoint.format,
        status,
        answer.headers,
        tap.text(),
        prepare(session, from),
      );
    });
  }
  reply.code(answer.statusCode ?? 502);
  reply.headers(downstreamHeaders(answer.headers));
  return reply.send(tap);
}

const ANSWER = {
  description:
    "The provider's answer as it sent it, byte for byte: JSON, or server-sent events when streaming",
  contentType: 'application/json',
};
const ERRORS = {
  '413': { description: 'BR_ERR_BODY_TOO_LARGE: the request body is over the proxy’s limit (64 MiB)' },
  '502': { description: 'BR_ERR_UPSTREAM_UNREACHABLE: the provider could not be reached' },
} as const;

/**
 * The proxy's routes, registered in the service's `raw` scope (bodies are bytes, forwarded as they came unless
 * the session has edits): Anthropic Messages (and count_tokens), OpenAI Chat Completions and Responses, and the
 * model lists. Provider errors (429s included) reach the agent as the provider sent them.
 */
export function proxyRoutes(context: ProxyRouteContext): ApiRoute[] {
  const route = (method: 'GET' | 'POST', url: string, summary: string, endpoint: Endpoint): ApiRoute => ({
    method,
    url,
    scope: 'raw',
    summary,
    responses: { '200': ANSWER, ...ERRORS },
    handler: (request, reply) => proxy(context, endpoint, request, reply),
  });
  return [
    route('POST', '/v1/messages', 'Proxy: Anthropic Messages (measured; completed sub-tasks evicted)', {
      format: 'anthropic',
      generation: true,
    }),
    route('POST', '/v1/messages/count_tokens', 'Proxy: Anthropic token counting (passed through)', {
      format: 'anthropic',
      generation: false,
    }),
    route(
      'POST',
      '/v1/chat/completions',
      'Proxy: OpenAI Chat Completions (measured; completed sub-tasks evicted)',
      {
        format: 'openai-chat',
        generation: true,
      },
    ),
    route('POST', '/v1/responses', 'Proxy: OpenAI Responses (measured; completed sub-tasks evicted)', {
      format: 'openai-responses',
      generation: true,
    }),
  ];
}
