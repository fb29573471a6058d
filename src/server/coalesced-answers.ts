import { setImmediate } from 'node:timers';
import type { FastifyInstance } from 'fastify';

/** What an `onSend` hook calls to let Fastify write the answer. */
type Continue = (error: null, payload: unknown) => void;

/**
 * Calls made during one turn of the event loop: the turn's first runs at once, the others together at the turn's
 * end (in `setImmediate`, after the turn's I/O callbacks), in the order they came. A call that throws at the
 * turn's end is reported and the others still run; one that comes while they run is the next turn's first.
 */
export class TurnQueue {
  #calls: Continue[] = [];
  #payloads: unknown[] = [];
  #spareCalls: Continue[] = [];
  #sparePayloads: unknown[] = [];
  #scheduled = false;
  readonly #onError: (error: unknown) => void;
  readonly #run = () => this.#flush();

  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  /** Calls `call(null, payload)` now if it is the turn's first, else at the turn's end. */
  add(call: Continue, payload: unknown): void {
    if (!this.#scheduled) {
      // The turn's first: nothing to share a write with yet, so it goes now (a lone request waits for nothing).
      this.#scheduled = true;
      setImmediate(this.#run);
      call(null, payload);
      return;
    }
    this.#calls.push(call);
    this.#payloads.push(payload);
  }

  /** How many calls wait for the turn's end. */
  get size(): number {
    return this.#calls.length;
  }

  #flush(): void {
    this.#scheduled = false;
    const calls = this.#calls;
    const payloads = this.#payloads;
    // Two pairs of arrays in turn: a call that queues another puts it in the other pair, for the next turn.
    this.#calls = this.#spareCalls;
    this.#payloads = this.#sparePayloads;
    for (let index = 0; index < calls.length; index++) {
      try {
        (calls[index] as Continue)(null, payloads[index]);
      } catch (error) {
        this.#onError(error);
      }
    }
    calls.length = 0;
    payloads.length = 0;
    this.#spareCalls = calls;
    this.#sparePayloads = payloads;
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
  app.addHook('onSend', (_request, _reply, payload, done) => {
    queue.add(done as Continue, payload);
  });
  return queue;
}
