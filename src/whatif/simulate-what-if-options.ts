import type { ArchiveSink } from '../compaction/archive-sink.js';
import type { EvictionPolicy } from '../compaction/eviction-policy.js';
import type { ModelPrice } from '../models/model-price.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { UsageSource } from '../usage/usage-record.js';
import type { ArchiveReader } from './verify-archive.js';

/** What a what-if replay is given (`simulateWhatIf`). */
export interface SimulateWhatIfOptions {
  policy: EvictionPolicy;
  archive: ArchiveSink;
  reader: ArchiveReader;
  /** The archive's session folder. */
  sessionId: string;
  counter: TokenCounter;
  /** The price of a call's model (null when unknown: its cost is not counted). */
  priceOf: (model: string | undefined) => ModelPrice | null | undefined;
  /** Where the agent compacts: its lowest recorded compaction, else its window; null when unknown. */
  compactionPoint: number | null;
  source: UsageSource;
  /**
   * The archive path a tombstone names, by task (the archive written is the real one). A replay that archives to a
   * temporary directory names the archive as the data folder would hold it, so that its figures do not depend on a
   * random directory name. @default the real path
   */
  tombstonePath?: (taskId: string) => string;
  /**
   * The recap fallback (a lever the proxy does not apply): off by default; when on, its rewrite of the cache is
   * priced by the model and it is counted as the what-if's own (`policy.recaps`), never as a compaction. @default false
   */
  recap?: boolean;
  /**
   * Whether the proxy puts a cache breakpoint of its own on the last tombstone of the latest batch (Anthropic), so
   * that a later batch rewrites only what follows it, as the proxy does when the request has fewer than 4
   * breakpoints (Claude Code sends 3). @default true
   */
  proxyBreakpoint?: boolean;
}
