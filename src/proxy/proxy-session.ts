import type { EvictionPolicyState } from '../compaction/eviction-policy.js';
import type { WindowWaitNow } from '../quota/windows/window-levers.js';
import type { ProxyState } from '../session/proxy-status.js';
import type { CacheRequests } from './cache-request-of.js';
import type { WireFormat } from './session-key.js';
import type { EditBook } from './wire-history.js';
import type { WireCopy } from './wire-splice.js';

/** A time the proxy stopped acting on a session because recording failed; `until` set once it works again. */
export type ProxyPause = NonNullable<ProxyState['pause']>;

/** What the proxy keeps of one session, in memory: its edits (re-applied to every request) and policy states. */
export interface ProxySession {
  id: string;
  /** Every edit made so far, by call id: the same tombstones go into every later request. */
  edits: EditBook;
  /** Bumped whenever `edits` changes. */
  version: number;
  /** The latest requests (at most two: a conversation and a sub-agent's) with where their edited blocks are. */
  copies: WireCopy[];
  /** The block of the last tombstone of the latest batch (`<call id>:result|input`): the proxy's breakpoint. */
  batchEnd: string | null;
  /**
   * What the latest recorded request of the conversation carried: the edit version, and the block its proxy
   * breakpoint was on (null: none). The provider holds a cache entry there.
   */
  carried: { version: number; breakpoint: string | null } | null;
  /** The policy's state per conversation of the session (Claude Code's sub-agents share its session id). */
  threads: Map<string, EvictionPolicyState>;
  /**
   * The session's chain of decisions: the restore of its file, then each answer's usage (its verdict) and the
   * analysis of its request (a batch archived before its tombstones join), in request order. The next request of the
   * session waits for it before it is edited.
   */
  pending: Promise<void>;
  /**
   * The session's chain of writes, in order: its status, each answer's usage and receipt, its evictions' records and
   * its row. No request waits for it (a durable commit is not the agent's to wait for); the service's close does.
   */
  writes: Promise<void>;
  /** The monitor's session exists (created by the proxy, or found). */
  ready: Promise<boolean> | null;
  /** The latest verdict the monitor answered, and when; `windowWait`: the 5-hour window's wait (epoch ms). */
  verdict: {
    action: string;
    waitSeconds: number | null;
    at: number;
    windowWait?: WindowWaitNow | null;
  } | null;
  /**
   * The window policy's decision for each sub-agent conversation of the session, by its agent id (Claude Code's
   * `x-claude-code-agent-id`), made at its first request and kept for all of them: lowered thinking or not.
   */
  conversations: Map<string, { lowered: boolean }>;
  /** What the window policy did to the session's requests so far. */
  windowPolicy: WindowPolicyTally;
  /**
   * The latest answer with usage of each conversation (by its sub-agent's id, '' for the main one: Claude Code's
   * sub-agents share the session id, and each has its own cache prefix): when it came, its model, and how long the
   * provider's cache surely outlives it (`cacheLifetimeMs`). A request of the conversation after a longer pause, or of
   * another model, finds its cache cold.
   */
  lastAnswers: Map<string, LastAnswer>;
  /** Token counts of items already seen, by item id and length. */
  sizes: Map<string, number>;
  /** What was last written to (or read from) the session's file. */
  saved: string;
  /** Seen in observe (the `/observe` routes or an observing proxy): never edited again, kept across restarts. */
  observed: boolean;
  /** The latest pause: recording failed and the proxy stopped acting; `until` null while it lasts. */
  pause: ProxyPause | null;
  /** The status last written to the monitor's session ('' before any). */
  shown: string;
}

/** An answer with usage, as the cold-cache lever reads it. */
export interface LastAnswer {
  at: number;
  model: string | undefined;
  lifetimeMs: number;
}

/** What the window policy did to a session's sub-agents: conversations and requests lowered, requests held. */
export interface WindowPolicyTally {
  conversationsLowered: number;
  requestsLowered: number;
  requestsHeld: number;
  heldMs: number;
}

/** A session the proxy has not seen before (its file, if any, is read next). */
export function newProxySession(id: string): ProxySession {
  return {
    id,
    edits: new Map(),
    version: 0,
    copies: [],
    batchEnd: null,
    carried: null,
    threads: new Map(),
    pending: Promise.resolve(),
    writes: Promise.resolve(),
    ready: null,
    verdict: null,
    conversations: new Map(),
    windowPolicy: { conversationsLowered: 0, requestsLowered: 0, requestsHeld: 0, heldMs: 0 },
    sizes: new Map(),
    lastAnswers: new Map(),
    saved: '',
    observed: false,
    pause: null,
    shown: '',
  };
}

/**
 * What the request side hands to `record` once the answer is in: whether the monitor has the session, and, when
 * the proxy acts on the request, the request itself (as sent, and parsed) for the eviction policy.
 */
export interface PreparedRequest {
  created: boolean;
  /** What the request carried of the session's edits, for the proxy's next breakpoint (ProxySessions.record). */
  carried?: CarriedEdits;
  request?: ReadRequest | { format: WireFormat; raw: Buffer; body: Record<string, unknown> };
  /** The sub-agent whose request it was (Claude Code's `x-claude-code-agent-id`): its window rises are its own. */
  subAgent?: string;
  /** The policy read the request before it went upstream (it found the cache cold), and it carried its batch. */
  analyzedOnArrival?: boolean;
}

/**
 * A request the proxy acts on, read while it was with the provider (ProxySessions.read): `body` holds the session's
 * edits of `version` (the ones it went out with), and `requests` is it in its cache model's terms for the receipt.
 */
export interface ReadRequest {
  format: WireFormat;
  raw: Buffer;
  body: Record<string, unknown>;
  version: number;
  requests: CacheRequests | null;
}

/** What one request carried of its session's edits (Anthropic). */
export interface CarriedEdits {
  /** The edit version written into it. */
  version: number;
  /** The block its proxy breakpoint was on (`<call id>:result|input`), or null. */
  breakpoint: string | null;
  /** That breakpoint's lifetime (the agent's first breakpoint after it, else 5 minutes). */
  ttl?: '5m' | '1h';
  /** It held the block of the latest batch's last tombstone (the conversation's own request, not a sub-agent's). */
  sawEnd: boolean;
}
