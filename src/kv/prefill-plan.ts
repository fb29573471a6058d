import { BarometerValidationError } from '../errors/validation.js';

/** What a prefill of `tokens` would do to a cache with `remaining` free cells, decoded in `nBatch` chunks. */
export interface PrefillPlan {
  readonly tokens: number;
  /** Engine calls: `ceil(tokens / nBatch)`. */
  readonly chunks: number;
  /** Whether every chunk finds its cells: `tokens ≤ remaining`. */
  readonly fits: boolean;
  /**
   * The cells the engine would hold once the prefill returns: all of them when it fits, otherwise the whole chunks
   * that found their cells before the first one that did not (a llama.cpp decode of k tokens needs k free cells and
   * fails cleanly, but the chunks before it stay written).
   */
  readonly committed: number;
}

function invalid(field: string, value: unknown, message: string): never {
  throw new BarometerValidationError([{ field, value, message }], 'prefill plan');
}

/**
 * Plans a chunked prefill. A prefill larger than the free cells half-commits: its first chunks are written and the
 * call fails, so a caller that records only successful calls over-reports what is free (measured on lloyal's
 * native context: 500 tokens on 421 free cells with nBatch 64 wrote 384 and failed). Refuse it instead.
 *
 * @example prefillPlan({ remaining: 421, tokens: 500, nBatch: 64 }) // { chunks: 8, fits: false, committed: 384 }
 */
export function prefillPlan(input: { remaining: number; tokens: number; nBatch: number }): PrefillPlan {
  const { remaining, tokens, nBatch } = input;
  if (!Number.isInteger(tokens) || tokens < 0)
    invalid('tokens', tokens, 'must be a whole number, at least 0');
  if (!Number.isInteger(nBatch) || nBatch < 1)
    invalid('nBatch', nBatch, 'must be a whole number, at least 1');
  if (!(remaining === Number.POSITIVE_INFINITY || (Number.isInteger(remaining) && remaining >= 0)))
    invalid('remaining', remaining, 'must be a whole number, at least 0, or Infinity');
  const chunks = Math.ceil(tokens / nBatch);
  const fits = tokens <= remaining;
  const committed = fits ? tokens : Math.floor(remaining / nBatch) * nBatch;
  return { tokens, chunks, fits, committed };
}
