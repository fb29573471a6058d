/**
 * Reading a provider's HTTP response on its way to the SDK, for the OpenAI and Anthropic wrappers: the body the
 * SDK reads is the provider's, byte for byte (unless a `rewrite` is given), and what barometer needs is taken from
 * it as it passes.
 */

import { eventReader, eventText, jsonData } from '../usage/server-sent-events.js';

type Payload = Record<string, unknown>;

export interface ObserveEventsOptions {
  /** Whether an event's JSON payload is kept for `done` (only the few that carry usage are). */
  keep(payload: Payload): boolean;
  /**
   * Rewrites each event: the event text to send instead (without its trailing blank line), or null to drop it.
   * Without a rewrite the bytes pass through untouched.
   */
  rewrite?(payload: unknown, event: string): string | null;
  /**
   * Called once, when the body has ended, with the kept payloads; the SDK sees the end of the stream only after it
   * settles, so a caller's loop over the stream ends with the session already updated. Not called when the stream
   * fails or the caller stops reading it.
   */
  done(kept: Payload[]): Promise<void>;
  /**
   * Called once instead of `done` when the stream stops early (the caller aborts or stops reading, or the body
   * fails), with the payloads kept so far and how many events had arrived: what usage arrived is not lost.
   */
  aborted?(kept: Payload[], events: number): Promise<void>;
}

function isPayload(value: unknown): value is Payload {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A response with a new body and the original's status, headers and URL. */
function withBody(response: Response, body: ReadableStream<Uint8Array>): Response {
  const replaced = new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  // A new Response has no URL; the SDKs name it in their logs and errors.
  Object.defineProperty(replaced, 'url', { value: response.url });
  return replaced;
}

/**
 * Passes a server-sent-events response through, reading its events as they go by. The stream the SDK gets ends
 * only after `done` has settled.
 */
export function observeEventStream(response: Response, options: ObserveEventsOptions): Response {
  const source = response.body;
  if (!source) return response;
  const reader = source.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const kept: Payload[] = [];
  let rewritten = '';
  let events = 0;
  let settled = false;
  const stopped = async () => {
    if (settled || !options.aborted) return;
    settled = true;
    try {
      await options.aborted(kept, events);
    } catch {
      // barometer never fails the caller's stream: `aborted` reports its own errors.
    }
  };
  const parser = eventReader((event) => {
    const payload = jsonData(event.data);
    if (payload !== undefined) events++;
    if (isPayload(payload) && options.keep(payload)) kept.push(payload);
    if (options.rewrite) {
      const replaced = options.rewrite(payload, eventText(event));
      if (replaced !== null) rewritten += `${replaced}\n\n`;
    }
  });
  /** Reads the complete events of the next piece of text; answers the text to send when rewriting. */
  const takeEvents = (text: string, final: boolean): string => {
    parser.feed(text);
    if (final) parser.end();
    const out = rewritten;
    rewritten = '';
    return out;
  };
  const body = new ReadableStream<Uint8Array>({
    // A pull must enqueue something or end the stream: one that returns empty-handed is not called again.
    async pull(controller) {
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          // An aborted fetch fails the body's read: what arrived is still recorded.
          takeEvents('', false);
          await stopped();
          throw error;
        }
        const { done, value } = chunk;
        // A read pending when the caller cancelled ends as "done": the stream was stopped, not finished (recording
        // it as finished made an aborted OpenAI stream read "the stream holds no JSON chunks").
        if (done && settled) return;
        if (done) {
          const rest = takeEvents(decoder.decode(), true);
          if (options.rewrite && rest !== '') controller.enqueue(encoder.encode(rest));
          settled = true;
          try {
            await options.done(kept);
          } catch {
            // barometer never fails the caller's stream: `done` reports its own errors.
          }
          controller.close();
          return;
        }
        const out = takeEvents(decoder.decode(value, { stream: true }), false);
        if (!options.rewrite) {
          controller.enqueue(value);
          return;
        }
        if (out !== '') {
          controller.enqueue(encoder.encode(out));
          return;
        }
      }
    },
    async cancel(reason) {
      await stopped();
      return reader.cancel(reason);
    },
  });
  return withBody(response, body);
}

/** Whether a response is a server-sent-events stream. */
export function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}

/** The JSON body of a response, read from a clone (the response stays readable), or undefined. */
export async function jsonBodyOf(response: Response): Promise<unknown> {
  const text = await response.clone().text();
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The JSON object a request body holds, when it is JSON text. */
export function jsonRequestBody(body: unknown): Payload | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(body);
    return isPayload(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
