import type { SessionSignals } from '../../src/contract/index.js';
import { formatTokens } from './format.js';

export type KvFigures = NonNullable<SessionSignals['kv']>;

/** What the KV card of a session's page says: its lines, and whether the cache is below its crash floor. */
export interface KvText {
  cells: string;
  of: string;
  headroom: string;
  floor: string;
  source: string;
  critical: boolean;
}

/**
 * A local model's KV budget in words (seed 001): the cells in use of the cache's, what is free and the headroom
 * over the soft limit, the crash floor (the hard limit: `nBatch` where the engine said it, else the documented 128)
 * and whether the figure is the engine's own count or the prompt's tokens.
 */
export function kvText(kv: KvFigures): KvText {
  const floor =
    kv.nBatch === undefined
      ? `crash floor ${formatTokens(kv.hardLimit)} (nBatch unknown: the documented default)`
      : `crash floor ${formatTokens(kv.hardLimit)} (nBatch ${formatTokens(kv.nBatch)})`;
  return {
    cells: formatTokens(kv.cellsUsed),
    of: kv.unbounded ? 'cells, no limit' : `of ${formatTokens(kv.nCtx)} cells`,
    headroom: kv.unbounded
      ? 'headroom unbounded'
      : `${formatTokens(kv.remaining)} free · headroom ${formatTokens(kv.headroom)} over the soft limit of ${formatTokens(kv.softLimit)}`,
    floor: kv.critical ? `critical: below the ${floor}` : floor,
    source: kv.source === 'engine' ? 'as the engine counts its cells' : 'from the last prompt and completion',
    critical: kv.critical,
  };
}

/** A local session's KV figures in the session list: the cells in use of the cache's, critical, and the rest. */
export interface KvListText {
  /** `1,990 / 2,048`, or `1,990, no limit` for an unbounded cache. */
  cells: string;
  critical: boolean;
  /** The KV card's other lines, for the cell's title: free cells and headroom, the crash floor, the source. */
  title: string;
}

/** The list's KV cell, from the same figures and words as the session page's KV card ({@link kvText}). */
export function kvListText(kv: KvFigures): KvListText {
  const text = kvText(kv);
  return {
    cells: kv.unbounded ? `${text.cells}, no limit` : `${text.cells} / ${formatTokens(kv.nCtx)}`,
    critical: kv.critical,
    title: `${text.headroom}; ${text.floor}; ${text.source}`,
  };
}
