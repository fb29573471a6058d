/**
 * Counts evaluations in flight per agent. Plain data in, plain data out: the server's hook turns a refusal
 * into a 429, as fastify-rate-limit's own limiter does.
 */
export class ConcurrencyLimiter {
  readonly #max: number;
  readonly #inFlight = new Map<string, number>();

  /** @param max evaluations allowed at once per agent; 0 turns the limit off. */
  constructor(max: number) {
    this.#max = max;
  }

  get max(): number {
    return this.#max;
  }

  /** Takes a slot for the agent, or says no when it already holds `max`. */
  tryAcquire(agent: string): boolean {
    if (this.#max === 0) return true;
    const current = this.#inFlight.get(agent) ?? 0;
    if (current >= this.#max) return false;
    this.#inFlight.set(agent, current + 1);
    return true;
  }

  release(agent: string): void {
    if (this.#max === 0) return;
    const current = this.#inFlight.get(agent) ?? 0;
    if (current <= 1) this.#inFlight.delete(agent);
    else this.#inFlight.set(agent, current - 1);
  }

  inFlight(agent: string): number {
    return this.#inFlight.get(agent) ?? 0;
  }
}
