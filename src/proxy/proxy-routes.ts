import { Readable } from 'node:stream';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { sendProblem } from '../server/problem.js';
import type { ApiRoute } from '../server/route-table.js';
import { forward, type UpstreamAnswer, upstreamHeaders } from './forward.js';
import type { ResolvedProxyOptions } from './proxy-options.js';
import type { ProxySession, ProxySessions, ProxyStage } from './proxy-sessions.js';
import { relayAnswer } from './relay-answer.js';
import {
  type SessionSource,
  sessionIdFromBody,
  sessionIdFromHeaders,
  type WireFormat,
} from './session-key.js';
import { type UpstreamFailure, upstreamFailure } from './upstream-failure.js';
import { applyEdits } from './wire-history.js';
import { spliceEdits } from './wire-splice.js';

type Json = Record<string, unknown>;

/** What the proxy counts in /metrics. */
export interface ProxyCounters {
  /** One forwarded request: its API and what the proxy did (passed, edited, held, unreachable). */
  request(api: string, outcome: 'passed' | 'edited' | 'held' | 'unreachable'): void;
  /** An internal failure; the request went on unchanged. */
  failure(stage: ProxyStage): void;
  /** An upstream that failed a request (before its answer) or an answer (after its headers), and how. */
  upstreamFailure(reason: UpstreamFailure): void;
}

export interface ProxyRouteContext {
  options: ResolvedProxyOptions;
  /** The connections to the providers (see `upstreamAgent`), with the options' timeouts. */
  upstream: Dispatcher;
  sessions: ProxySessions;
  counters: ProxyCounters;
  /** Logs a failure without the request's content or keys. */
  log: (stage: ProxyStage, error: unknown) => void;
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
  const answered = forward(
    context.upstream,
    url,
    request.method,
    upstreamHeaders(request.headers),
    sent,
    abort.signal,
  );
  return answerAgent(context, endpoint, reply, {
    answered,
    abort: abort.signal,
    url,
    api,
    outcome,
    overLimit: () => overLimit,
    received: () => chunks,
    recorded: entry && source ? { session: entry, from: source.source } : undefined,
  });
}

/** One request as it went upstream, for the answer side of the handler. */
interface Forwarded {
  answered: Promise<UpstreamAnswer>;
  /** Aborted when the agent went away, or the streamed body passed the limit. */
  abort: AbortSignal;
  url: URL;
  api: string;
  outcome: 'passed' | 'edited' | 'held';
  overLimit: () => boolean;
  /** The request's bytes as received, once read whole (a streamed one: once it ended). */
  received: () => Buffer[] | undefined;
  /** The session the answer is recorded in, when the request has one. */
  recorded: { session: ProxySession; from: SessionSource } | undefined;
}

/**
 * The agent's answer: the provider's, relayed as it arrives and recorded once it has passed whole; or barometer's
 * own when the provider gave none (413 for a streamed body over the limit, 502 when the provider failed first).
 */
async function answerAgent(
  context: ProxyRouteContext,
  endpoint: Endpoint,
  reply: FastifyReply,
  forwarded: Forwarded,
): Promise<FastifyReply> {
  const { counters, sessions } = context;
  let answer: UpstreamAnswer;
  try {
    answer = await forwarded.answered;
  } catch (error) {
    if (forwarded.overLimit()) return tooLarge(reply, context.options.bodyLimitBytes);
    counters.request(forwarded.api, 'unreachable');
    if (forwarded.abort.aborted) return reply;
    return unreachable(context, reply, forwarded.url, error);
  }
  counters.request(forwarded.api, forwarded.outcome);
  relayAnswer(reply, answer, (end) => {
    // A broken answer is counted, never read as if it were whole: the agent retries, and its retry is recorded.
    if (end.type === 'failed') counters.upstreamFailure(end.reason);
    if (end.type !== 'complete' || !forwarded.recorded) return;
    const { session, from } = forwarded.recorded;
    const ready = prepareSession(context, endpoint.format, session, from, forwarded.received());
    void sessions.record(session, endpoint.format, answer.statusCode, answer.headers, end.text, ready);
  });
  return reply;
}

/**
 * Once the answer has passed (nothing here can delay the request or the answer's first bytes): the session, then
 * (act) the policy on this request's history, whose edits the session's next request carries. Resolves whether
 * the session is recorded; never rejects (a failure is logged and counted).
 */
async function prepareSession(
  context: ProxyRouteContext,
  format: WireFormat,
  session: ProxySession,
  from: SessionSource,
  received: Buffer[] | undefined,
): Promise<boolean> {
  const { options, sessions } = context;
  try {
    // A session already known needs no model; observe mode reads nothing else from the body.
    if (options.mode === 'observe' && session.ready) return await session.ready;
    if (!received) return false;
    await setImmediate();
    const raw = join(received);
    const parsed = parse(raw);
    if (!parsed) return false;
    const model = typeof parsed.model === 'string' && parsed.model !== '' ? parsed.model : 'unknown';
    const created = sessions.ensure(session, model, from);
    if (options.mode === 'act') sessions.analyze(session, format, raw, parsed);
    return await created;
  } catch (error) {
    context.log('analyze', error);
    context.counters.failure('analyze');
    return false;
  }
}

/**
 * The agent's answer when the provider gave none: a 502 of barometer's own, naming the upstream and why (its
 * client retries it as it would the provider's own 5xx), the failure counted by its reason.
 */
function unreachable(
  context: ProxyRouteContext,
  reply: FastifyReply,
  url: URL,
  error: unknown,
): FastifyReply {
  const reason = upstreamFailure(error);
  context.counters.upstreamFailure(reason);
  const why =
    reason === 'timeout'
      ? `no answer within ${context.options.upstreamHeadersTimeoutSeconds} s (--upstream-headers-timeout)`
      : (error as Error).message;
  return sendProblem(
    reply,
    'BR_ERR_UPSTREAM_UNREACHABLE',
    `barometer proxy could not reach ${url.origin}: ${why}`,
    { upstream: url.origin, reason },
  );
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
