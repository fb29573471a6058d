import { Readable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { sendProblem } from '../http/problem.js';
import type { ApiRoute } from '../http/route-table.js';
import { forward, type UpstreamAnswer, upstreamHeaders } from './forward.js';
import { join, type Outgoing, outgoingRequest, type ProxyEndpoint, parse } from './outgoing-request.js';
import type { ResolvedProxyOptions } from './proxy-options.js';
import type { CarriedEdits, ReadRequest } from './proxy-session.js';
import type { PreparedRequest, ProxySession, ProxySessions, ProxyStage } from './proxy-sessions.js';
import { relayAnswer } from './relay-answer.js';
import type { RequestDescriber } from './request-describer.js';
import { type SessionSource, subAgentOf, type WireFormat } from './session-key.js';
import { type UpstreamFailure, upstreamFailure } from './upstream-failure.js';

/** What the proxy counts in /metrics. */
export interface ProxyCounters {
  /** One forwarded request: its API and what the proxy did (passed, edited, held, unreachable). */
  request(api: string, outcome: 'passed' | 'edited' | 'held' | 'unreachable'): void;
  /** An internal failure; the request went on unchanged. */
  failure(stage: ProxyStage): void;
  /** An upstream that failed a request (before its answer) or an answer (after its headers), and how. */
  upstreamFailure(reason: UpstreamFailure): void;
  /** A window lever acted on a sub-agent's request: its thinking budget lowered, or it was held (for `heldMs`). */
  windowLever?(lever: 'thinking' | 'hold', heldMs: number): void;
}

export interface ProxyRouteContext {
  options: ResolvedProxyOptions;
  /** The connections to the providers (see `upstreamAgent`), with the options' timeouts. */
  upstream: Dispatcher;
  sessions: ProxySessions;
  counters: ProxyCounters;
  /** Logs a failure without the request's content or keys. */
  log: (stage: ProxyStage, error: unknown) => void;
  /** Names each session from its requests (working directory, first request); none: sessions stay unnamed. */
  describer?: RequestDescriber;
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
function upstreamUrl(context: ProxyRouteContext, endpoint: ProxyEndpoint, request: FastifyRequest): URL {
  const { options } = context;
  // An observe route goes to the same upstream path, without its prefix.
  const path = endpoint.observe ? request.url.slice(OBSERVE_PREFIX.length) : request.url;
  if (endpoint.format === 'anthropic') return new URL(`${options.anthropicUpstream}${path}`);
  if (endpoint.format === 'openai-responses' && request.headers['chatgpt-account-id'] !== undefined)
    return new URL(`${options.chatgptUpstream}${path.replace(/^\/v1/, '')}`);
  return new URL(`${options.openaiUpstream}${path}`);
}

/** The 413 of a body over the limit; the connection closes after it (the agent may still be sending the rest). */
function tooLarge(reply: FastifyReply, limit: number): FastifyReply {
  reply.header('connection', 'close');
  return sendProblem(reply, 'BR_ERR_BODY_TOO_LARGE', `the request body is larger than ${limit} bytes`, {
    limit,
  });
}

/**
 * The proxy's handler, in four steps: the request side (its session, edits and holds: outgoingRequest), the bytes
 * that go upstream (`upstreamBytes`), the upstream hop (`forward`), and the agent's answer (`answerAgent`).
 */
async function proxy(
  context: ProxyRouteContext,
  endpoint: ProxyEndpoint,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { options } = context;
  const limit = options.bodyLimitBytes;
  // The body is the agent's stream (the proxy's content-type parser leaves it unread).
  const payload = request.body instanceof Readable ? request.body : Readable.from([]);
  if (Number(request.headers['content-length']) > limit) return tooLarge(reply, limit);
  // The proxy acts on this request's session (the session itself may say otherwise: observed, or paused).
  const act = options.mode === 'act' && !endpoint.observe;
  const side = await outgoingRequest(context, endpoint, request, payload, act);
  if (!side) return tooLarge(reply, limit);
  const abort = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  const body = upstreamBytes(side, payload, limit, abort);
  const url = upstreamUrl(context, endpoint, request);
  const answered = forward(
    context.upstream,
    url,
    request.method,
    upstreamHeaders(request.headers),
    body.sent,
    abort.signal,
  );
  const { entry, source, outcome } = side;
  // Read while the provider answers: its record then waits for nothing of this (ProxySessions.read).
  let begin: () => void = () => {};
  const begun = new Promise<void>((resolve) => {
    begin = resolve;
  });
  const read =
    act && entry && source
      ? readRequest(context, endpoint.format, entry, { whole: body.whole, answered, begun }, side.carried)
      : undefined;
  return answerAgent(context, endpoint, reply, {
    answered,
    abort: abort.signal,
    url,
    api: request.routeOptions.url ?? request.url,
    outcome,
    act,
    overLimit: body.overLimit,
    payload,
    received: body.received,
    read,
    begin,
    recorded:
      entry && source
        ? {
            session: entry,
            from: source.source,
            carried: side.carried,
            subAgent: subAgentOf(request.headers),
            analyzedOnArrival: side.analyzedOnArrival === true,
          }
        : undefined,
  });
}

/** What goes upstream, and the request's bytes as received for the analysis once they are all in. */
interface UpstreamBytes {
  sent: Buffer[] | Readable;
  /** The streamed body passed the limit (the upstream hop was aborted). */
  overLimit: () => boolean;
  received: () => Buffer[] | undefined;
  /** The request's bytes as received, once all are in (undefined: the agent's stream broke off or passed the limit). */
  whole: Promise<Buffer[] | undefined>;
}

/**
 * The request side's edited body or the body it read whole; else the agent's stream itself, passed on as it arrives
 * with a copy kept for the analysis (up to the limit: past it the hop is aborted and the agent gets its 413).
 */
function upstreamBytes(
  side: Outgoing,
  payload: Readable,
  limit: number,
  abort: AbortController,
): UpstreamBytes {
  const read = side.chunks;
  const whole = Promise.resolve(read);
  if (side.upstreamBody)
    return { sent: side.upstreamBody, overLimit: () => false, received: () => read, whole };
  if (read) return { sent: read, overLimit: () => false, received: () => read, whole };
  const kept: Buffer[] = [];
  let bytes = 0;
  let overLimit = false;
  let ended = false;
  payload.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes <= limit) kept.push(chunk);
    else if (!overLimit) {
      overLimit = true;
      abort.abort();
    }
  });
  const ends = new Promise<Buffer[] | undefined>((resolve) => {
    payload.once('end', () => {
      ended = true;
      resolve(overLimit ? undefined : kept);
    });
    payload.once('close', () => resolve(undefined));
  });
  return {
    sent: payload,
    overLimit: () => overLimit,
    received: () => (ended ? kept : undefined),
    whole: ends,
  };
}

/** One request as it went upstream, for the answer side of the handler. */
interface Forwarded {
  answered: Promise<UpstreamAnswer>;
  /** Aborted when the agent went away, or the streamed body passed the limit. */
  abort: AbortSignal;
  url: URL;
  api: string;
  outcome: 'passed' | 'edited' | 'held';
  /** The proxy acts on the request (act mode, not an observe route): the policy may read it once it is recorded. */
  act: boolean;
  overLimit: () => boolean;
  /** The agent's body stream. */
  payload: Readable;
  /** The request's bytes as received, once read whole (a streamed one: once it ended). */
  received: () => Buffer[] | undefined;
  /** The request read for its record while it was upstream, when the proxy acts on it and it has a session. */
  read: Promise<ReadRequest | undefined> | undefined;
  /** Tells `read` that the answer's first bytes went on to the agent (or that none will). */
  begin: () => void;
  /** The session the answer is recorded in, when the request has one. */
  recorded:
    | {
        session: ProxySession;
        from: SessionSource;
        carried: CarriedEdits | undefined;
        /** The sub-agent whose request it is (Claude Code's `x-claude-code-agent-id`), for the windows' shares. */
        subAgent: string | undefined;
        /** The policy read the request before it went upstream (a cold cache): it carried its own batch. */
        analyzedOnArrival: boolean;
      }
    | undefined;
}

/**
 * The agent's answer: the provider's, relayed as it arrives and recorded once it has passed whole; or barometer's
 * own when the provider gave none (413 for a streamed body over the limit, 502 when the provider failed first).
 */
async function answerAgent(
  context: ProxyRouteContext,
  endpoint: ProxyEndpoint,
  reply: FastifyReply,
  forwarded: Forwarded,
): Promise<FastifyReply> {
  const { counters, sessions } = context;
  let answer: UpstreamAnswer;
  try {
    answer = await forwarded.answered;
  } catch (error) {
    forwarded.begin();
    if (forwarded.overLimit()) {
      // The agent is still sending: the rest of its body is read and dropped, so that it reads the 413 (closing on
      // unread bytes resets the connection: issue 40's socket hang-up), and the connection closes after it.
      forwarded.payload.resume();
      return tooLarge(reply, context.options.bodyLimitBytes);
    }
    counters.request(forwarded.api, 'unreachable');
    if (forwarded.abort.aborted) return reply;
    return unreachable(context, reply, forwarded.url, error);
  }
  counters.request(forwarded.api, forwarded.outcome);
  relayAnswer(
    reply,
    answer,
    (end) => {
      // A broken answer is counted, never read as if it were whole: the agent retries, and its retry is recorded.
      if (end.type === 'failed') counters.upstreamFailure(end.reason);
      if (end.type !== 'complete' || !forwarded.recorded) return;
      const { session, from, carried, subAgent, analyzedOnArrival } = forwarded.recorded;
      const ready = prepareSession(context, endpoint.format, session, from, forwarded).then((prepared) => ({
        ...prepared,
        ...(carried ? { carried } : {}),
        ...(subAgent === undefined ? {} : { subAgent }),
        ...(analyzedOnArrival ? { analyzedOnArrival } : {}),
      }));
      void sessions.record(session, endpoint.format, answer.statusCode, answer.headers, end.text, ready);
    },
    forwarded.begin,
  );
  return reply;
}

/**
 * Once the answer has passed (nothing here can delay the request or the answer's first bytes): the session, and,
 * when the proxy acts on the request, the request for the policy, which reads it once its answer is recorded (if the
 * session is still acted on then: ProxySessions.record). Never rejects (a failure is logged and counted).
 */
async function prepareSession(
  context: ProxyRouteContext,
  format: WireFormat,
  session: ProxySession,
  from: SessionSource,
  forwarded: Pick<Forwarded, 'act' | 'received' | 'read'>,
): Promise<PreparedRequest> {
  const { sessions } = context;
  try {
    // A session already known needs no model; a request not acted on reads nothing else from the body.
    if (!forwarded.act && session.ready) return { created: await session.ready };
    const read = await forwarded.read;
    const received = forwarded.received();
    if (!read && !received) return { created: false };
    if (!read) await setImmediate();
    const raw = read?.raw ?? join(received as Buffer[]);
    const parsed = read?.body ?? parse(raw);
    if (!parsed) return { created: false };
    const model = typeof parsed.model === 'string' && parsed.model !== '' ? parsed.model : 'unknown';
    const creating = sessions.ensure(session, model, from, parsed);
    // The session's project and first request, for people (read once the session exists).
    context.describer?.observe(session, format, parsed, creating);
    const created = await creating;
    if (!forwarded.act) return { created };
    return { created, request: read ?? { format, raw, body: parsed } };
  } catch (error) {
    context.log('analyze', error);
    context.counters.failure('analyze');
    return { created: false };
  }
}

/**
 * A request the proxy acts on, read while the provider answers it (ProxySessions.read): once its answer has begun,
 * so that nothing here delays the request on its way upstream (the provider had all of it) or the answer's first
 * bytes (relayed first); the rest of a model's streamed answer takes far longer than this reading. Never rejects:
 * undefined when it is no JSON object or reading failed (counted); its record then reads it itself.
 */
async function readRequest(
  context: ProxyRouteContext,
  format: WireFormat,
  session: ProxySession,
  upstream: { whole: Promise<Buffer[] | undefined>; answered: Promise<unknown>; begun: Promise<void> },
  carried: CarriedEdits | undefined,
): Promise<ReadRequest | undefined> {
  try {
    const chunks = await upstream.whole;
    const answered = await upstream.answered.then(
      () => true,
      () => false,
    );
    if (!chunks || !answered) return undefined;
    await upstream.begun;
    // Two turns: the first ends this one's check phase, the second comes after the next poll for I/O (what is ready
    // to read or write then goes first).
    await setImmediate();
    await setImmediate();
    const raw = join(chunks);
    const body = parse(raw);
    if (!body) return undefined;
    await setImmediate();
    return await context.sessions.read(session, format, raw, body, carried);
  } catch (error) {
    context.log('analyze', error);
    context.counters.failure('analyze');
    return undefined;
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
  const route = (url: string, summary: string, endpoint: ProxyEndpoint): ApiRoute => ({
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
