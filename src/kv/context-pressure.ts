import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';

/** Cells kept free for downstream work (tool results, the next generation): `headroom = remaining − softLimit`. */
export const DEFAULT_SOFT_LIMIT = 1024;
/** The crash-prevention floor when the batch size is unknown: `critical = remaining < hardLimit`. */
export const DEFAULT_HARD_LIMIT = 128;

const cellCount = z.int().min(0);

/**
 * The inputs of one KV budget snapshot. `nCtx ≤ 0` means the context has no limit.
 *
 * Where `nBatch` is known, `hardLimit` defaults to it and may not be set below it: one llama.cpp decode needs
 * `n_batch` free cells, and lloyal-agents raised its own floor after the documented 128 crashed recovery decodes.
 */
export const ContextPressureInputSchema = z
  .strictObject({
    nCtx: z.int(),
    cellsUsed: cellCount,
    softLimit: cellCount.optional(),
    hardLimit: cellCount.optional(),
    nBatch: z.int().min(1).optional(),
  })
  .superRefine((input, context) => {
    if (input.nBatch !== undefined && input.hardLimit !== undefined && input.hardLimit < input.nBatch) {
      context.addIssue({
        code: 'custom',
        path: ['hardLimit'],
        message:
          `must be at least nBatch (${input.nBatch}): a decode needs n_batch free KV cells, so a lower floor ` +
          'lets the agent run into a failed llama_decode instead of stopping before it',
      });
    }
  });
export type ContextPressureInput = z.infer<typeof ContextPressureInputSchema>;

/** A snapshot as JSON: infinite values (no context limit) are `null`, and `unbounded` says so. */
export const ContextPressureJsonSchema = z.object({
  nCtx: z.int(),
  cellsUsed: z.int(),
  remaining: z.int().nullable(),
  softLimit: z.int(),
  hardLimit: z.int(),
  nBatch: z.int().optional(),
  headroom: z.int().nullable(),
  critical: z.boolean(),
  percentAvailable: z.int(),
  unbounded: z.boolean(),
});
export type ContextPressureJson = z.infer<typeof ContextPressureJsonSchema>;

/** An immutable KV budget snapshot for one phase of the agent loop (seed 001). */
export interface ContextPressure {
  readonly nCtx: number;
  readonly cellsUsed: number;
  /** `nCtx − cellsUsed`; Infinity when the context has no limit. */
  readonly remaining: number;
  readonly softLimit: number;
  readonly hardLimit: number;
  readonly nBatch: number | undefined;
  /** `remaining − softLimit`: positive means room for new work; ≤ 0 means SETTLE rejects and PRODUCE cuts. */
  readonly headroom: number;
  /** `remaining < hardLimit`: the agent must stop before producing. */
  readonly critical: boolean;
  /** `round(remaining / nCtx · 100)`, at least 0; 100 when the context has no limit. */
  readonly percentAvailable: number;
  /** Whether the context has no limit (`nCtx ≤ 0`). */
  readonly unbounded: boolean;
  /** Whether `tokenCount` more cells fit while keeping the soft limit free: `tokenCount ≤ headroom`. */
  canFit(tokenCount: number): boolean;
  toJSON(): ContextPressureJson;
}

// A class rather than an object literal so that the methods live once on the prototype, not once per snapshot.
class Snapshot implements ContextPressure {
  readonly nCtx: number;
  readonly cellsUsed: number;
  readonly remaining: number;
  readonly softLimit: number;
  readonly hardLimit: number;
  readonly nBatch: number | undefined;
  readonly headroom: number;
  readonly critical: boolean;
  readonly percentAvailable: number;
  readonly unbounded: boolean;

  constructor(input: ContextPressureInput) {
    this.nCtx = input.nCtx;
    this.cellsUsed = input.cellsUsed;
    this.unbounded = input.nCtx <= 0;
    this.remaining = this.unbounded ? Number.POSITIVE_INFINITY : input.nCtx - input.cellsUsed;
    this.softLimit = input.softLimit ?? DEFAULT_SOFT_LIMIT;
    this.nBatch = input.nBatch;
    this.hardLimit = input.hardLimit ?? input.nBatch ?? DEFAULT_HARD_LIMIT;
    this.headroom = this.remaining - this.softLimit;
    this.critical = this.remaining < this.hardLimit;
    this.percentAvailable = this.unbounded
      ? 100
      : Math.max(0, Math.round((this.remaining / input.nCtx) * 100));
    Object.freeze(this);
  }

  canFit(tokenCount: number): boolean {
    return tokenCount <= this.headroom;
  }

  toJSON(): ContextPressureJson {
    const json: ContextPressureJson = {
      nCtx: this.nCtx,
      cellsUsed: this.cellsUsed,
      remaining: this.unbounded ? null : this.remaining,
      softLimit: this.softLimit,
      hardLimit: this.hardLimit,
      headroom: this.unbounded ? null : this.headroom,
      critical: this.critical,
      percentAvailable: this.percentAvailable,
      unbounded: this.unbounded,
    };
    if (this.nBatch !== undefined) json.nBatch = this.nBatch;
    return json;
  }
}

/**
 * Takes a KV budget snapshot.
 *
 * @param input.nCtx the context size in cells; ≤ 0 for no limit.
 * @param input.cellsUsed cells in use (see `CellLedger`).
 * @param input.softLimit cells reserved for downstream work. @default 1024
 * @param input.hardLimit the floor below which the agent stops. @default nBatch when given, else 128
 * @param input.nBatch the batch size of one decode, when known.
 * @throws BarometerValidationError naming the field, e.g. a hardLimit below nBatch.
 * @example contextPressure({ nCtx: 16384, cellsUsed: 14000 }).headroom // 1360
 */
export function contextPressure(input: ContextPressureInput): ContextPressure {
  const parsed = parseWith(ContextPressureInputSchema, input, (field) =>
    field === 'hardLimit' && Number.isInteger(input.nBatch) && (input.nBatch as number) >= 1
      ? { min: input.nBatch as number }
      : undefined,
  );
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'KV pressure input');
  return new Snapshot(parsed.value);
}
