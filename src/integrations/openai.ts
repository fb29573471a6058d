/**
 * `barometer/openai`: the official `openai` client, reporting every call's usage and rate-limit headers to a
 * barometer session. A thin adapter: the session decides, this reads responses.
 */
import { normalizeUsage } from '../usage/normalize-usage.js';
import { quotaObservation } from '../usage/quota-observation.js';
import type { UsageFormat } from '../usage/usage-format.js';
import {
  isEventStream,
  jsonBodyOf,
  jsonRequestBody,
  type ObserveEventsOptions,
  observeEventStream,
} from './observe-response.js';
import { type AdapterOptions, type BarometerHandle, SessionRecorder } from './session-recorder.js';

export type {
  AdapterOptions,
  BarometerHandle,
  MonitorSession,
  RecordedCall,
  SessionTarget,
} from './session-recorder.js';

import { isObject } from '../usage/json-object.js';

/** The `fetch` an `openai` client calls (its `Fetch` type). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** What `wrapOpenAI` needs of a client: the `openai` package's `OpenAI` (or `AzureOpenAI`) has it. */
export interface OpenAIClientLike {
  // `never`: any client's own options type fits; the call below passes only `fetch`.
  withOptions(options: never): unknown;
}

export interface WrapOpenAIOptions extends AdapterOptions {
  /**
   * A streamed chat completion reports usage only when asked (`stream_options.include_usage`). When a call does
   * not ask, barometer asks for it and removes what that adds from the stream the caller reads (the last chunk,
   * whose `choices` is empty, and the `usage: null` of the other chunks), so the caller sees what it would have
   * seen. `false` leaves such calls alone: their usage is then recorded as unavailable.
   * @default true
   */
  streamUsage?: boolean;
  /**
   * Wait before a call while the session's verdict says `wait` (a per-minute quota refills within the session's
   * `maxWaitSeconds`), instead of sending a request the provider would refuse; the call's `signal` ends the wait.
   * @default false
   */
  waitOnQuota?: boolean;
}

/** The client `wrapOpenAI` returns: the same API, plus `barometer`. */
export type WrappedOpenAI<Client> = Client & { readonly barometer: BarometerHandle };

/** The endpoints whose responses carry usage, by the last segments of their path. */
function formatOf(
  method: string | undefined,
  url: string,
): Extract<UsageFormat, 'openai-chat' | 'openai-responses'> | undefined {
  if ((method ?? 'GET').toUpperCase() !== 'POST') return undefined;
  const path = new URL(url).pathname.replace(/\/+$/, '');
  if (path.endsWith('/chat/completions')) return 'openai-chat';
  if (path.endsWith('/responses') || path.endsWith('/responses/compact')) return 'openai-responses';
  return undefined;
}

function urlOf(input: string | URL | Request): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

/** The events of a stream worth keeping for its usage (few: memory stays flat however long the stream). */
const KEEP: Readonly<Record<'openai-chat' | 'openai-responses', ObserveEventsOptions['keep']>> = {
  'openai-chat': (chunk) => isObject(chunk.usage),
  'openai-responses': (event) =>
    event.type === 'response.created' || (isObject(event.response) && isObject(event.response.usage)),
};

/** Undoes what asking for usage added to a chat stream the caller did not ask usage of. */
function hideAskedUsage(payload: unknown, event: string): string | null {
  if (!isObject(payload) || !('usage' in payload)) return event;
  if (Array.isArray(payload.choices) && payload.choices.length === 0 && isObject(payload.usage)) return null;
  if (payload.usage !== null) return event;
  const { usage: _usage, ...chunk } = payload;
  return event.replace(/^data:.*$/m, `data: ${JSON.stringify(chunk)}`);
}

/**
 * Wraps an `openai` client so that every chat completion (`chat.completions.create`, plain and `stream: true`, and
 * the helpers built on it: `stream`, `parse`, `runTools`) and every Responses call (`responses.create`, plain and
 * streamed, `responses.stream`, `parse`, `compact`) reports its usage and the response's rate-limit headers
 * (`x-ratelimit-*`) to the session. The wrapper is a copy of the client made with its own `withOptions`, whose
 * `fetch` reads each response as it passes; the client given is not changed, and neither is anything a call
 * returns. A call's usage is recorded before the caller gets the result (for a stream, before the stream ends),
 * so `wrapped.barometer.verdict` speaks of it once the call is done. A refused request (429) is recorded as a quota
 * observation (its headers and `retry-after`: the verdict then carries the wait); a stream stopped early keeps the
 * usage that had arrived and says so (`barometer.lastCall.note`). With `waitOnQuota`, a call waits first while the
 * verdict says `wait`.
 *
 * @example
 * const openai = wrapOpenAI(new OpenAI(), { session: new Session({ model: 'gpt-5' }) });
 * await openai.chat.completions.create({ model: 'gpt-5', messages });
 * openai.barometer.verdict?.action; // 'continue' | 'optimize' | 'wait' | 'compress' | 'terminate'
 */
export function wrapOpenAI<Client extends OpenAIClientLike>(
  client: Client,
  options: WrapOpenAIOptions,
): WrappedOpenAI<Client> {
  if (typeof client?.withOptions !== 'function') {
    throw new TypeError(
      'barometer: wrapOpenAI needs an `openai` client (version 5 or later: it has withOptions)',
    );
  }
  const recorder = new SessionRecorder(options);
  const streamUsage = options.streamUsage ?? true;
  // The client's own fetch (a proxy agent, a test double) stays the one that goes out; it is not part of the
  // typed API (`private fetch` in the openai package), but `withOptions` copies it from the same property.
  const inner: FetchLike =
    (client as unknown as { fetch?: FetchLike }).fetch ??
    ((input, init) => globalThis.fetch(input as string, init));
  const observed: FetchLike = async (input, init) => {
    const url = urlOf(input);
    const format = formatOf(init?.method ?? (input instanceof Request ? input.method : undefined), url);
    if (format === undefined) return inner(input, init);
    let request = init;
    let asked = false;
    const body = jsonRequestBody(init?.body);
    if (format === 'openai-chat' && streamUsage && body?.stream === true) {
      const streamOptions = isObject(body.stream_options) ? body.stream_options : {};
      if (streamOptions.include_usage === undefined) {
        asked = true;
        request = {
          ...init,
          body: JSON.stringify({ ...body, stream_options: { ...streamOptions, include_usage: true } }),
        };
      }
    }
    if (options.waitOnQuota === true) await recorder.waitBeforeCall(init?.signal ?? undefined);
    const response = await inner(input, request);
    if (!response.ok) {
      // A refusal teaches the quota: its rate-limit headers and retry-after, with no generation.
      const observation = quotaObservation(response.status, response.headers, Date.now());
      if (observation) await recorder.observeQuota(observation.headers);
      return response;
    }
    const record = async (payload: unknown, note?: string) => {
      await recorder.record({ usage: normalizeUsage(format, payload), headers: response.headers }, note);
    };
    if (isEventStream(response)) {
      return observeEventStream(response, {
        keep: KEEP[format],
        ...(asked ? { rewrite: hideAskedUsage } : {}),
        done: record,
        aborted: async (kept, events) => {
          const usage = normalizeUsage(format, kept);
          const note = `the stream was stopped after ${events} events`;
          await recorder.record(
            {
              usage: usage.available
                ? usage
                : {
                    ...usage,
                    reason: `${note}, before its usage arrived (OpenAI sends it in the last event)`,
                  },
              headers: response.headers,
            },
            usage.available ? `${note}: the usage is what had arrived` : note,
          );
        },
      });
    }
    await record(await jsonBodyOf(response));
    return response;
  };
  const withOptions = client.withOptions as unknown as (options: { fetch: FetchLike }) => unknown;
  const wrapped = withOptions.call(client, { fetch: observed }) as WrappedOpenAI<Client>;
  Object.defineProperty(wrapped, 'barometer', { value: recorder, enumerable: false });
  return wrapped;
}
