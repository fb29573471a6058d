import { archiveLocation } from '../compaction/archive-sink.js';
import type { EvictionDecision } from '../compaction/eviction-policy.js';
import { evictionTombstone } from '../compaction/eviction-tombstone.js';
import { type HistoryItem, itemText } from '../compaction/history-item.js';
import type { EvictionStep } from '../compaction/plan-eviction.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { WhatIfHistory } from './what-if-history.js';
import type { WhatIfEviction } from './what-if-report.js';

/** One batch the policy applied, to be written into the what-if history as the proxy sends it. */
export interface TombstoneBatchInput {
  /** The what-if history before the batch; it holds the tombstoned history afterwards. */
  history: WhatIfHistory;
  /** The decision with its batch (`decision.evict`), as the policy decided it. */
  decision: EvictionDecision & { evict: NonNullable<EvictionDecision['evict']> };
  /** The history the policy answered (`ApplyEvictionResult.history`), each evicted item with its archive address. */
  applied: HistoryItem[];
  /** The batch's archive file, as written. */
  archive: string;
  /**
   * The call (`LogCall.index`) that carries the batch first: the one after the call whose history showed the
   * boundary, or that call itself when it found the cache cold (`evictOnColdArrival`).
   */
  carriedBy: number;
  counter: TokenCounter;
  /** The archive path a tombstone names (see `SimulateWhatIfOptions.tombstonePath`). @default the archive written */
  tombstonePath?: (taskId: string) => string;
  /**
   * Told of each item replaced, before the history holds the batch (`history.items` is still the one the batch was
   * decided on): the original, its tombstoned item, its source, the field evicted, and the address its tombstone
   * names.
   */
  onEvicted?: (
    original: HistoryItem,
    item: HistoryItem,
    source: number,
    field: EvictionStep['field'],
    shown: string,
  ) => void;
}

/** What the batch did: the report's row, the bytes archived, and the position of its last step (if any). */
export interface TombstoneBatchResult {
  eviction: WhatIfEviction;
  bytes: number;
  lastPosition: number | undefined;
}

/**
 * Writes a batch into the what-if history: each evicted item takes the proxy's tombstone text (the one text of both,
 * `evictionTombstone`, sized exactly: its local tokens counted, its provider tokens by the current fit), and the
 * history's sizes and total follow. Answers the row `replay --what-if` shows for it.
 */
export function tombstoneBatch(input: TombstoneBatchInput): TombstoneBatchResult {
  const { history, decision, counter } = input;
  const batch = decision.evict;
  const next = input.applied;
  const calls = new Map<string, HistoryItem>();
  for (const item of history.items) if (item.kind === 'tool-call') calls.set(item.callId, item);
  const shown = input.tombstonePath?.(batch.taskId) ?? input.archive;
  let freed = 0;
  let bytes = 0;
  for (const step of batch.steps) {
    const archived = next[step.position] as HistoryItem;
    const original = history.items[step.position] as HistoryItem;
    if (archived.kind !== 'tool-call' && archived.kind !== 'tool-result') continue;
    const text = evictionTombstone({
      kind: archived.kind,
      call: calls.get(archived.callId),
      tokens: counter.count(step.original),
      taskId: batch.taskId,
      boundary: decision.boundary?.kind ?? 'sub-task end',
      itemId: step.itemId,
      archive: shown,
    });
    const item = tombstoned(archived, text);
    next[step.position] = item;
    freed += history.resizeAt(step.position, item, {
      tokens: counter.count(itemText(item)),
      sizeClass: 'tool',
    });
    bytes += Buffer.byteLength(step.original, 'utf8');
    input.onEvicted?.(
      original,
      item,
      history.sources[step.position] ?? -1,
      step.field,
      archiveLocation(shown, step.itemId),
    );
  }
  history.replaceItems(next);
  return {
    eviction: {
      beforeCallIndex: input.carriedBy,
      taskId: batch.taskId,
      boundary: decision.boundary?.kind ?? 'earlier boundary',
      detail: decision.boundary?.detail ?? '',
      items: batch.steps.length,
      bytes,
      tokensFreed: Math.round(freed),
      archive: input.archive,
    },
    bytes,
    lastPosition: batch.steps.at(-1)?.position,
  };
}

/** An evicted item as it reads with the proxy's tombstone text (its archive address kept). */
export function tombstoned(item: HistoryItem, tombstone: string): HistoryItem {
  if (item.kind === 'tool-result') return { ...item, content: tombstone };
  if (item.kind === 'tool-call') return { ...item, input: { evicted: tombstone } };
  return item;
}
