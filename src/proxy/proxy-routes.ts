import type { IncomingMessage } from 'node:http';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from '../server/problem.js';
import type { ApiRoute } from '../server/route-table.js';
import { downstreamHeaders, forward, upstreamHeaders } from './forward.js';
import type { ResolvedProxyOptions } from './proxy-options.js';
import type { PreparedRequest, ProxySession, ProxySessions, ProxyStage } from './proxy-sessions.js';
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
  /** Under `/observe`: forwarded as sent (its session observed), whatever the proxy's mode. */
  observe: boolean;
}

/**
 * The prefix of the observe routes: `ANTHROPIC_BASE_URL=http://127.0.0.1:8797/observe` (or a Codex provider's
 * `base_url = ".../observe/v1"`) observes a session on a proxy that acts on the others.
 */
export const OBSERVE_PREFIX = '/observe';

/**
 * Where a request goes: the Anthropic or OpenAI upstream with the request's own path, or, for a Responses request
 * of Codex signed in with ChatGPT (its `chatgpt-account-id` header), the ChatGPT backend with the path after `/v1`.
 */
function upstreamUrl(context: ProxyRouteContext, endpoint: Endpoint, request: FastifyRequest): URL {
  const { options } = context;
  // An observe route goes to the same upstream path, without its prefix.
  const path = endpoint.observe ? request.url.slice(OBSERVE_PREFIX.length) : request.url;
  if (endpoint.format === 'anthropic') return new URL(`${options.anthropicUpstream}${path}`);
  if (endpoint.format === 'openai-responses' && request.headers['chatgpt-account-id'] !== undefined)
    return new URL(`${options.chatgptUpstream}${path.replace(/^\/v1/, '')}`);
  return new URL(`${options.openaiUpstream}${path}`);
}

function tooLarge(reply: FastifyReply, limit: number): FastifyReply {
  return sendProblem(reply, 'BR_ERR_BODY_TOO_LARGE', `the request body is larger than ${limit} bytes`, {
    limit,
  });
}

/** What the request side decided, before anything goes upstream. */
interface Outgoing {
  /** The request as received, once read whole. */
  chunks: Buffer[] | undefined;
  /** What goes upstream: the request read whole with edits written in; undefined: as received. */
  upstreamBody: Buffer[] | undefined;
  body: Json | undefined;
  entry: ProxySession | undefined;
  source: ReturnType<typeof sessionIdFromHeaders>;
  outcome: 'passed' | 'edited' | 'held';
}

/**
 * The request side: finds the session, writes in its edits and holds the request on a `wait` verdict, while the proxy
 * acts on it (act mode, not an observe route, a session neither observed nor paused; a paused session's requests
 * keep the edits made before its pause, see ProxySessions). Fails open: whatever goes wrong in here, the agent's own
 * bytes go upstream. Undefined when the body is over the limit.
 */
async function outgoing(
  context: ProxyRouteContext,
  endpoint: Endpoint,
  request: FastifyRequest,
  payload: Readable,
  act: boolean,
): Promise<Outgoing | undefined> {
  const { options, sessions, counters } = context;
  const limit = options.bodyLimitBytes;
  const out: Outgoing = {
    chunks: undefined,
    upstreamBody: undefined,
    body: undefined,
    entry: undefined,
    source: undefined,
    outcome: 'passed',
  };
  if (!endpoint.generation) return out;
  try {
    out.source = sessionIdFromHeaders(request.headers);
    if (!out.source) {
      out.chunks = await readAll(payload, limit);
      out.body = parse(join(out.chunks));
      if (out.body) out.source = sessionIdFromBody(endpoint.format, out.body);
    }
    if (!out.source) return out;
    const entry = sessions.session(out.source.id);
    out.entry = entry;
    await entry.pending;
    // A session seen in observe stays observed: its later requests go as sent, on any route.
    if (!act) sessions.observe(entry);
    if (act && !entry.observed && entry.edits.size > 0) {
      out.chunks ??= await readAll(payload, limit);
      // The edited blocks' byte ranges, from the session's earlier requests; else parse and re-serialize.
      const spliced = out.body ? undefined : spliceEdits(out.chunks, entry.copies, entry.version);
      if (spliced) {
        out.upstreamBody = spliced.parts;
        if (spliced.blocks > 0) out.outcome = 'edited';
      } else {
        out.body ??= parse(join(out.chunks));
        if (out.body && applyEdits(endpoint.format, out.body, entry.edits) > 0) {
          out.upstreamBody = [Buffer.from(JSON.stringify(out.body), 'utf8')];
          out.outcome = 'edited';
        }
      }
    }
    // Held only while the proxy acts on the session: an observed or paused one's verdict decides nothing.
    const hold = act && sessions.acting(entry) ? sessions.holdMs(entry, options.maxWaitSeconds) : 0;
    if (hold > 0) {
      out.outcome = 'held';
      await sleep(hold);
    }
  } catch (error) {
    if (error instanceof BodyTooLarge) return undefined;
    if (payload.destroyed && !out.chunks) throw error;
    context.log('edit', error);
    counters.failure('edit');
    out.upstreamBody = undefined;
    out.outcome = 'passed';
  }
  return out;
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
  // The proxy acts on this request's session (the session itself may say otherwise: observed, or paused).
  const act = options.mode === 'act' && !endpoint.observe;
  const side = await outgoing(context, endpoint, request, payload, act);
  if (!side) return tooLarge(reply, limit);
  let { chunks } = side;
  const { upstreamBody, entry, source, outcome } = side;
  const abort = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  const url = upstreamUrl(context, endpoint, request);
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
  const prepare = async (session: ProxySession, from: SessionSource): Promise<PreparedRequest> => {
    try {
      // A session already known needs no model; a request not acted on reads nothing else from the body.
      if (!act && session.ready) return { created: await session.ready };
      const received = chunks;
      if (!received) return { created: false };
      await setImmediate();
      const raw = join(received);
      const parsed = parse(raw);
      if (!parsed) return { created: false };
      const model = typeof parsed.model === 'string' && parsed.model !== '' ? parsed.model : 'unknown';
      const created = await sessions.ensure(session, model, from);
      // The policy reads the request once its answer is recorded, if the session is still acted on then.
      return act ? { created, request: { format: endpoint.format, raw, body: parsed } } : { created };
    } catch (error) {
      context.log('analyze', error);
      counters.failure('analyze');
      return { created: false };
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

/** The routes the proxy serves, each also under `/observe`. */
const PROXIED: ReadonlyArray<{
  url: string;
  summary: string;
  /** The same API under `/observe`. */
  observed: string;
  format: WireFormat;
  generation: boolean;
}> = [
  {
    url: '/v1/messages',
    summary: 'Anthropic Messages (measured; completed sub-tasks evicted)',
    observed: 'Anthropic Messages (measured; forwarded as sent)',
    format: 'anthropic',
    generation: true,
  },
  {
    url: '/v1/messages/count_tokens',
    summary: 'Anthropic token counting (passed through)',
    observed: 'Anthropic token counting (passed through)',
    format: 'anthropic',
    generation: false,
  },
  {
    url: '/v1/chat/completions',
    summary: 'OpenAI Chat Completions (measured; completed sub-tasks evicted)',
    observed: 'OpenAI Chat Completions (measured; forwarded as sent)',
    format: 'openai-chat',
    generation: true,
  },
  {
    url: '/v1/responses',
    summary: 'OpenAI Responses (measured; completed sub-tasks evicted)',
    observed: 'OpenAI Responses (measured; forwarded as sent)',
    format: 'openai-responses',
    generation: true,
  },
];

/**
 * The proxy's routes, registered in the service's `raw` scope (bodies are bytes, forwarded as they came unless
 * the session has edits): Anthropic Messages (and count_tokens), OpenAI Chat Completions and Responses; and each
 * under `/observe`, to the same upstream path, measured and recorded but forwarded as sent whatever the proxy's
 * mode, its session observed from then on. Provider errors (429s included) reach the agent as the provider sent them.
 */
export function proxyRoutes(context: ProxyRouteContext): ApiRoute[] {
  const route = (url: string, summary: string, endpoint: Endpoint): ApiRoute => ({
    method: 'POST',
    url,
    scope: 'raw',
    summary,
    responses: { '200': ANSWER, ...ERRORS },
    handler: (request, reply) => proxy(context, endpoint, request, reply),
  });
  return PROXIED.flatMap(({ url, summary, observed, format, generation }) => [
    route(url, `Proxy: ${summary}`, { format, generation, observe: false }),
    route(`${OBSERVE_PREFIX}${url}`, `Proxy, observed: ${observed}`, { format, generation, observe: true }),
  ]);
}
