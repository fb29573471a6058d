import { setImmediate } from 'node:timers';
import type { FastifyInstance } from 'fastify';

/** What an `onSend` hook calls to let Fastify go on: write the answer, or (with an error) answer the error. */
type Continue = (error: Error | null, payload?: unknown) => void;

/** The part of a Fastify reply the queue touches. */
export interface QueuedReply {
  sent: boolean;
  readonly raw: { readonly headersSent: boolean; destroy(error?: Error): unknown };
}

/** Shadows Fastify's `reply.sent` (a getter on the prototype) while the answer waits. */
const SENT = { value: true, configurable: true, enumerable: true, writable: false } as const;

/**
 * Answers finished during one turn of the event loop: the turn's first goes on at once, the others together at
 * the turn's end (in `setImmediate`, after the turn's I/O callbacks), in the order they came; one that comes
 * while they go on is the next turn's first.
 *
 * A waiting reply reads as sent (`reply.sent`), as it would have once written: Fastify asks before it runs a
 * hook or a handler and before a second `send`, so an async handler that sends without returning the reply, or
 * a hook that answers, stops the request there as it does without the queue. If writing a waiting answer throws
 * (an invalid header, say), the error is reported and Fastify answers it as it answers a throw in its own
 * `onSend` step (a 500); if the answer's head was already out, the connection is closed rather than left hanging.
 */
export class TurnQueue {
  #replies: QueuedReply[] = [];
  #calls: Continue[] = [];
  #payloads: unknown[] = [];
  #spare: [QueuedReply[], Continue[], unknown[]] = [[], [], []];
  #scheduled = false;
  readonly #onError: (error: unknown) => void;
  readonly #run = () => this.#flush();

  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  /** Lets `reply`'s answer go on (`call(null, payload)`) now if it is the turn's first, else at the turn's end. */
  add(reply: QueuedReply, call: Continue, payload: unknown): void {
    if (!this.#scheduled) {
      // The turn's first: nothing to share a write with yet, so it goes now (a lone request waits for nothing).
      this.#scheduled = true;
      setImmediate(this.#run);
      call(null, payload);
      return;
    }
    Object.defineProperty(reply, 'sent', SENT);
    this.#replies.push(reply);
    this.#calls.push(call);
    this.#payloads.push(payload);
  }

  /** How many answers wait for the turn's end. */
  get size(): number {
    return this.#calls.length;
  }

  #flush(): void {
    this.#scheduled = false;
    const replies = this.#replies;
    const calls = this.#calls;
    const payloads = this.#payloads;
    // Two sets of arrays in turn: an answer that comes while these go on lands in the other set.
    [this.#replies, this.#calls, this.#payloads] = this.#spare;
    for (let index = 0; index < calls.length; index++) {
      const reply = replies[index] as QueuedReply;
      // Fastify's own `sent` again: the response's state from here on.
      delete (reply as { sent?: boolean }).sent;
      const call = calls[index] as Continue;
      try {
        call(null, payloads[index]);
      } catch (error) {
        this.#onError(error);
        this.#fail(reply, call, error);
      }
    }
    replies.length = 0;
    calls.length = 0;
    payloads.length = 0;
    this.#spare = [replies, calls, payloads];
  }

  #fail(reply: QueuedReply, call: Continue, error: unknown): void {
    if (!reply.raw.headersSent) {
      try {
        call(error instanceof Error ? error : new Error(String(error)));
        return;
      } catch (again) {
        this.#onError(again);
      }
    }
    reply.raw.destroy();
  }
}

/**
 * The answers finished during one turn of the event loop after its first are written together at the turn's end,
 * instead of each as soon as it is ready (decision 018). Under load a turn handles the requests of many
 * connections; writing their answers one by one, between the handling of the next ones, woke the client for
 * each answer, and on a VM whose idle vCPU halts that wakeup was the largest single cost of a request. Node's
 * own corking cannot do this: `ServerResponse.end()` uncorks its socket fully. The first answer of a turn is
 * written at once, so a lone request waits for nothing.
 */
export function registerCoalescedAnswers(app: FastifyInstance, onError: (error: unknown) => void): TurnQueue {
  const queue = new TurnQueue(onError);
  app.addHook('onSend', (_request, reply, payload, done) => {
    queue.add(reply, done as Continue, payload);
  });
  return queue;
}
