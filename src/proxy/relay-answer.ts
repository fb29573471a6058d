import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { pipeline, Transform, type TransformCallback } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { FastifyReply } from 'fastify';
import { UsageEventDigest } from '../usage/server-sent-events.js';
import { downstreamHeaders, type UpstreamAnswer } from './forward.js';
import { type UpstreamFailure, upstreamFailure } from './upstream-failure.js';

/** A JSON answer's usage sits at its end; beyond this many bytes only the tail is kept. */
const KEPT_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * Passes the upstream's bytes on untouched, keeping what its usage is read from: of an event stream, the events that
 * carry usage, read as they pass (whatever the answer's size: its first event holds Anthropic's prompt figures);
 * of any other answer, its bytes (the tail, past the cap).
 */
class Tap extends Transform {
  readonly #chunks: Buffer[] = [];
  readonly #events: { digest: UsageEventDigest; decoder: StringDecoder } | undefined;
  #bytes = 0;
  #begun: (() => void) | undefined;
  constructor(eventStream: boolean, begun: () => void) {
    super();
    this.#begun = begun;
    this.#events = eventStream
      ? { digest: new UsageEventDigest(), decoder: new StringDecoder('utf8') }
      : undefined;
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.#events) this.#events.digest.feed(this.#events.decoder.write(chunk));
    else {
      this.#chunks.push(chunk);
      this.#bytes += chunk.length;
      while (this.#bytes > KEPT_ANSWER_BYTES && this.#chunks.length > 1)
        this.#bytes -= (this.#chunks.shift() as Buffer).length;
    }
    done(null, chunk);
    this.#begun?.();
    this.#begun = undefined;
  }
  text(): string {
    if (!this.#events) return Buffer.concat(this.#chunks).toString('utf8');
    this.#events.digest.feed(this.#events.decoder.end());
    return this.#events.digest.text();
  }
}

function isEventStream(headers: IncomingHttpHeaders): boolean {
  const type = headers['content-type'];
  return typeof type === 'string' && type.toLowerCase().startsWith('text/event-stream');
}

/** How an answer ended for the agent. */
export type AnswerEnd =
  /** The upstream's whole answer reached the agent; `text` is what its usage is read from (see `Tap`). */
  | { type: 'complete'; text: string }
  /** The upstream broke it off; the agent's answer was cut the same way at once. */
  | { type: 'failed'; reason: UpstreamFailure }
  /** The agent went away first; the upstream request was aborted. */
  | { type: 'abandoned' };

function contentLength(headers: IncomingHttpHeaders): number | undefined {
  const value = headers['content-length'];
  return value === undefined || !/^\d+$/.test(value) ? undefined : Number(value);
}

/**
 * Ends the agent's answer as the upstream's failed: a reset for a reset (an RST, as the agent's own client would
 * have seen from the provider), otherwise the connection closed before the answer is whole (chunked without its
 * last chunk, or fewer bytes than its content-length). Either way the agent's client errors and retries.
 */
function cut(response: ServerResponse, reason: UpstreamFailure): void {
  const socket = response.socket;
  if (reason === 'reset' && socket && !socket.destroyed) socket.resetAndDestroy();
  else response.destroy();
}

/**
 * Sends the upstream's answer to the agent as it arrives: its status and headers at once (less the hop-by-hop
 * ones), then its body byte for byte. However the upstream's answer ends, the agent's ends the same way at once
 * (see `cut`); `onEnd` says how, after the agent's answer is over. The agent going away destroys the upstream's
 * body, which aborts its request. The reply is hijacked: Fastify sends nothing more on it. `onBegun` is told once
 * the answer's first bytes went on to the agent (or it ended without any).
 */
export function relayAnswer(
  reply: FastifyReply,
  answer: UpstreamAnswer,
  onEnd: (end: AnswerEnd) => void,
  onBegun: () => void = () => {},
): void {
  reply.hijack();
  const response = reply.raw;
  // The headers the service's hooks set (CORS), then the provider's.
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined) headers[name] = value;
  try {
    response.writeHead(answer.statusCode, Object.assign(headers, downstreamHeaders(answer.headers)));
  } catch {
    // A status or header Node will not write (llhttp let it through): the answer cannot reach the agent as sent.
    answer.body.destroy();
    response.destroy();
    onBegun();
    onEnd({ type: 'failed', reason: 'malformed' });
    return;
  }
  // The agent sees the provider's status as soon as the proxy does, even if no body byte follows.
  response.flushHeaders();
  const tap = new Tap(isEventStream(answer.headers), onBegun);
  let failure: UpstreamFailure | undefined;
  let abandoned = false;
  // Both registered before the pipeline's own listeners: the agent's going away is known before the pipeline
  // destroys the upstream's body for it (an error that is no upstream failure), and a reset is passed on as one
  // before the pipeline closes the agent's connection.
  response.once('close', () => {
    if (!response.writableFinished && failure === undefined) abandoned = true;
  });
  answer.body.once('error', (error) => {
    if (abandoned) return;
    failure = upstreamFailure(error, { promisedBytes: contentLength(answer.headers) });
    cut(response, failure);
  });
  pipeline(answer.body, tap, response, (error) => {
    onBegun();
    if (!error) onEnd({ type: 'complete', text: tap.text() });
    else if (failure) onEnd({ type: 'failed', reason: failure });
    else onEnd({ type: 'abandoned' });
  });
}
