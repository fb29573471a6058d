import * as z from 'zod';

/**
 * A time in an answer: ISO 8601 with its offset (`2026-11-22T12:00:00.000Z`), the one encoding every answer of every
 * surface uses (decision 022). Stored state keeps its own encoding (epoch milliseconds); answers never show it.
 */
export const IsoTimeSchema = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601 time' });
export type IsoTime = z.infer<typeof IsoTimeSchema>;
