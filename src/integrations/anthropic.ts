/**
 * `barometer/anthropic`: the official `@anthropic-ai/sdk` client, reporting every Messages call's usage and
 * rate-limit headers to a barometer session, through the client's own middleware. A thin adapter: the session
 * decides, this reads responses.
 */
import { normalizeUsage } from '../usage/normalize-usage.js';
import { quotaObservation } from '../usage/quota-observation.js';
import { isEventStream, jsonBodyOf, observeEventStream } from './observe-response.js';
import { type AdapterOptions, type BarometerHandle, SessionRecorder } from './session-recorder.js';

export type {
  AdapterOptions,
  BarometerHandle,
  MonitorSession,
  RecordedCall,
  SessionTarget,
} from './session-recorder.js';

/** The request a middleware of `@anthropic-ai/sdk` sees (its `APIRequest`, as far as barometer reads it). */
export interface AnthropicMiddlewareRequest {
  url: string;
  method?: string | undefined;
  signal?: AbortSignal | null | undefined;
}

/** A middleware of `@anthropic-ai/sdk` (its `Middleware` type, as far as barometer uses it). */
export type AnthropicMiddleware = (
  request: AnthropicMiddlewareRequest,
  next: (request: AnthropicMiddlewareRequest) => Promise<Response>,
  context: unknown,
) => Promise<Response>;

/** What `wrapAnthropic` needs of a client: `@anthropic-ai/sdk`'s `Anthropic` (0.101 or later) has it. */
export interface AnthropicClientLike {
  middleware: ReadonlyArray<unknown>;
  // `never`: any client's own options type fits; the call below passes only `middleware`.
  withOptions(options: never): unknown;
}

export interface WrapAnthropicOptions extends AdapterOptions {
  /**
   * Wait before a Messages call while the session's verdict says `wait` (a per-minute quota refills within the
   * session's `maxWaitSeconds`), instead of sending a request the provider would refuse; the call's `signal` ends
   * the wait. @default false
   */
  waitOnQuota?: boolean;
}

/** The client `wrapAnthropic` returns: the same API, plus `barometer`. */
export type WrappedAnthropic<Client> = Client & { readonly barometer: BarometerHandle };

/** The Messages event types that carry usage: `message_start` (the prompt), `message_delta` (the final counts). */
const USAGE_EVENTS = new Set(['message_start', 'message_delta', 'error']);

function isMessagesCall(request: AnthropicMiddlewareRequest): boolean {
  if ((request.method ?? 'GET').toUpperCase() !== 'POST') return false;
  // `/v1/messages` (and `?beta=true`); not `/v1/messages/count_tokens` or `/v1/messages/batches`.
  return new URL(request.url).pathname.replace(/\/+$/, '').endsWith('/v1/messages');
}

/**
 * Wraps an `@anthropic-ai/sdk` client so that every Messages call — `messages.create` plain and `stream: true`,
 * `messages.stream`, `messages.parse`, and their `beta.messages` twins — reports its usage (cache reads and writes,
 * server-side compaction passes) and the response's `anthropic-ratelimit-*` headers to the session. The wrapper is a
 * copy of the client made with its own `withOptions`, with one more middleware (the SDK's documented extension
 * point, which sees every HTTP attempt on every backend); the client given is not changed, and neither is anything
 * a call returns: the middleware hands the SDK the provider's bytes as they came. A call's usage is recorded before
 * the caller gets the result (for a stream, before the stream ends), so `wrapped.barometer.verdict` speaks of it
 * once the call is done. A refused request (429) is recorded as a quota observation (its headers and
 * `retry-after`: the verdict then carries the wait); a stream stopped early keeps the usage that had arrived and says
 * so (`barometer.lastCall.note`). With `waitOnQuota`, a call waits first while the verdict says `wait`.
 *
 * @example
 * const anthropic = wrapAnthropic(new Anthropic(), { session: new Session({ model: 'claude-sonnet-4-6' }) });
 * const message = await anthropic.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 1024, messages });
 * anthropic.barometer.verdict?.action; // 'continue' | 'optimize' | 'wait' | 'compress' | 'terminate'
 */
export function wrapAnthropic<Client extends AnthropicClientLike>(
  client: Client,
  options: WrapAnthropicOptions,
): WrappedAnthropic<Client> {
  if (!Array.isArray(client?.middleware) || typeof client.withOptions !== 'function') {
    throw new TypeError(
      'barometer: wrapAnthropic needs an @anthropic-ai/sdk client with middleware support (version 0.101 or later)',
    );
  }
  const recorder = new SessionRecorder(options);
  const observe: AnthropicMiddleware = async (request, next) => {
    const messages = isMessagesCall(request);
    if (messages && options.waitOnQuota === true) await recorder.waitBeforeCall(request.signal ?? undefined);
    const response = await next(request);
    if (!messages) return response;
    if (!response.ok) {
      // A refusal teaches the quota: its rate-limit headers and retry-after, with no generation.
      const observation = quotaObservation(response.status, response.headers, Date.now());
      if (observation) await recorder.observeQuota(observation.headers);
      return response;
    }
    const record = async (payload: unknown, note?: string) => {
      await recorder.record({ usage: normalizeUsage('anthropic', payload), headers: response.headers }, note);
    };
    if (isEventStream(response)) {
      return observeEventStream(response, {
        keep: (event) => typeof event.type === 'string' && USAGE_EVENTS.has(event.type),
        done: record,
        // `message_start` carries the prompt's figures: a stream stopped early keeps them, and says so.
        aborted: (kept, events) =>
          record(
            kept,
            `the stream was stopped after ${events} events: the prompt's figures are message_start's, the output only what had arrived`,
          ),
      });
    }
    await record(await jsonBodyOf(response));
    return response;
  };
  // Last in the client's list: inside the caller's own middleware, so every HTTP attempt that was billed is seen
  // (a retry or a fallback made by an outer middleware included), and still outside the backend adaptation, so a
  // Bedrock or Vertex stream is read as Anthropic's server-sent events.
  const withOptions = client.withOptions as unknown as (options: { middleware: unknown[] }) => unknown;
  const wrapped = withOptions.call(client, {
    middleware: [...client.middleware, observe],
  }) as WrappedAnthropic<Client>;
  Object.defineProperty(wrapped, 'barometer', { value: recorder, enumerable: false });
  return wrapped;
}
