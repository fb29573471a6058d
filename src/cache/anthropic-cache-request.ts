import {
  ANTHROPIC_MAX_BREAKPOINTS,
  ANTHROPIC_TTL_MS,
  type AnthropicCacheTtl,
} from './anthropic-cache-rules.js';

/** One block of a Messages request, as the cache sees it: a tool definition, a system block or a content block. */
export interface AnthropicCacheBlock {
  /**
   * A stable identity of the block's content, given by the caller (a hash of its canonical form, `cache_control`
   * left out: a marker is not content). Equal content, equal identity; the model never looks inside.
   */
  id: string;
  /** The block's prompt tokens. */
  tokens: number;
  /** The block's `cache_control` lifetime; absent when it has none. */
  cacheControl?: AnthropicCacheTtl | undefined;
  /**
   * False for a block `cache_control` cannot mark ("Thinking blocks cannot be cached directly with `cache_control`",
   * "Empty text blocks cannot be cached"): the automatic breakpoint passes over it. Default true.
   */
  cacheable?: boolean | undefined;
}

/**
 * A Messages request as the cache sees it, in Anthropic's prefix order ("Cache prefixes are created in the following
 * order: `tools`, `system`, then `messages`"): every block is one lookback position.
 */
export interface AnthropicCacheRequest {
  /** The model id as sent: entries of one model are never another's. */
  model: string;
  tools?: readonly AnthropicCacheBlock[] | undefined;
  system?: readonly AnthropicCacheBlock[] | undefined;
  /** The messages' content blocks in order (a string content is one block). */
  messages: readonly AnthropicCacheBlock[];
  /** The request's top-level `cache_control` (automatic caching): a breakpoint on the last cacheable block. */
  automatic?: AnthropicCacheTtl | undefined;
  /**
   * Settings the API renders into the prompt, as stable strings, by the first level they invalidate ("What
   * invalidates the cache"): `system` for those that invalidate the system and message caches (web search, citations,
   * speed), `messages` for those that invalidate only the messages (`tool_choice`, images, thinking, effort).
   */
  settings?: { system?: string | undefined; messages?: string | undefined } | undefined;
}

/** A request the API refuses (a 400), or one the model cannot read. */
export interface AnthropicCacheRefusal {
  ok: false;
  code:
    | 'invalid_request'
    | 'too_many_breakpoints'
    | 'ttl_order'
    | 'automatic_ttl_conflict'
    | 'breakpoint_not_cacheable';
  /** The field at fault (`messages[3].cacheControl`), or the request's top level (''). */
  path: string;
  message: string;
}

/** A breakpoint of a request: the block it marks (a position in tools → system → messages) and its lifetime. */
export interface AnthropicBreakpoint {
  position: number;
  lifetimeMs: number;
  ttl: AnthropicCacheTtl;
}

/** A request read and checked: its blocks in prefix order, where each level starts, and its breakpoints in order. */
export interface CheckedAnthropicRequest {
  ok: true;
  blocks: readonly AnthropicCacheBlock[];
  paths: readonly string[];
  systemStart: number;
  messagesStart: number;
  breakpoints: readonly AnthropicBreakpoint[];
}

const LEVELS = ['tools', 'system', 'messages'] as const;

/**
 * Reads a request as the API would before it caches anything: every block well formed, at most 4 breakpoints (the
 * automatic one included), 1-hour breakpoints before 5-minute ones ("Cache entries with longer TTL must appear before
 * shorter TTLs"), no `cache_control` on a block that cannot carry one, and the automatic breakpoint's rules ("If the
 * last block already has an explicit `cache_control` with the same TTL, automatic caching is a no-op … with a
 * different TTL, the API returns a 400 error … If 4 explicit block-level breakpoints already exist, the API returns a
 * 400 error").
 */
export function checkAnthropicRequest(
  request: AnthropicCacheRequest,
): CheckedAnthropicRequest | AnthropicCacheRefusal {
  if (typeof request.model !== 'string' || request.model.length === 0)
    return refuse('invalid_request', 'model', 'expected a model id');
  const blocks: AnthropicCacheBlock[] = [];
  const paths: string[] = [];
  const starts: number[] = [];
  for (const level of LEVELS) {
    starts.push(blocks.length);
    const list = request[level] ?? [];
    if (!Array.isArray(list)) return refuse('invalid_request', level, 'expected a list of blocks');
    for (let index = 0; index < list.length; index++) {
      const block = list[index] as AnthropicCacheBlock;
      const path = `${level}[${index}]`;
      const wrong = blockFault(block);
      if (wrong) return refuse('invalid_request', `${path}.${wrong.field}`, wrong.message);
      if (block.cacheControl !== undefined && block.cacheable === false)
        return refuse(
          'breakpoint_not_cacheable',
          `${path}.cacheControl`,
          'this block cannot carry cache_control',
        );
      blocks.push(block);
      paths.push(path);
    }
  }
  const breakpoints: AnthropicBreakpoint[] = [];
  for (let position = 0; position < blocks.length; position++) {
    const ttl = (blocks[position] as AnthropicCacheBlock).cacheControl;
    if (ttl !== undefined) breakpoints.push(breakpoint(position, ttl));
  }
  const automatic = automaticBreakpoint(request.automatic, blocks, paths, breakpoints);
  if (automatic && 'ok' in automatic) return automatic;
  if (automatic) breakpoints.push(automatic);
  if (breakpoints.length > ANTHROPIC_MAX_BREAKPOINTS) {
    const fifth = breakpoints[ANTHROPIC_MAX_BREAKPOINTS] as AnthropicBreakpoint;
    return refuse(
      'too_many_breakpoints',
      automatic === fifth ? 'automatic' : `${paths[fifth.position]}.cacheControl`,
      `${breakpoints.length} cache breakpoints; a request may have at most ${ANTHROPIC_MAX_BREAKPOINTS}`,
    );
  }
  const shortFirst = breakpoints.findIndex((point) => point.ttl === '5m');
  const longAfter =
    shortFirst < 0 ? -1 : breakpoints.findIndex((point, i) => i > shortFirst && point.ttl === '1h');
  if (longAfter >= 0) {
    const late = breakpoints[longAfter] as AnthropicBreakpoint;
    return refuse(
      'ttl_order',
      automatic === late ? 'automatic' : `${paths[late.position]}.cacheControl`,
      `a 1h breakpoint after the 5m one at ${paths[(breakpoints[shortFirst] as AnthropicBreakpoint).position]}: 1-hour entries must come first`,
    );
  }
  return {
    ok: true,
    blocks,
    paths,
    systemStart: starts[1] as number,
    messagesStart: starts[2] as number,
    breakpoints,
  };
}

/** The automatic breakpoint a request adds, none (absent, a no-op, no cacheable block), or why it is refused. */
function automaticBreakpoint(
  ttl: AnthropicCacheTtl | undefined,
  blocks: readonly AnthropicCacheBlock[],
  paths: readonly string[],
  explicit: readonly AnthropicBreakpoint[],
): AnthropicBreakpoint | AnthropicCacheRefusal | null {
  if (ttl === undefined) return null;
  if (ttl !== '5m' && ttl !== '1h') return refuse('invalid_request', 'automatic', 'expected "5m" or "1h"');
  // "If the last block is not eligible … the system silently walks backwards to find the nearest eligible block. If
  // none is found, caching is skipped."
  let target = blocks.length - 1;
  while (target >= 0 && (blocks[target] as AnthropicCacheBlock).cacheable === false) target--;
  if (target < 0) return null;
  const own = (blocks[target] as AnthropicCacheBlock).cacheControl;
  if (own === ttl) return null;
  if (own !== undefined)
    return refuse(
      'automatic_ttl_conflict',
      `${paths[target]}.cacheControl`,
      `the last cacheable block has ttl ${own}, the request's cache_control ${ttl}`,
    );
  if (explicit.length >= ANTHROPIC_MAX_BREAKPOINTS)
    return refuse(
      'too_many_breakpoints',
      'automatic',
      '4 block breakpoints leave no slot for automatic caching',
    );
  return breakpoint(target, ttl);
}

function blockFault(block: AnthropicCacheBlock): { field: string; message: string } | null {
  if (typeof block.id !== 'string' || block.id.length === 0)
    return { field: 'id', message: 'expected a non-empty identity' };
  if (!Number.isSafeInteger(block.tokens) || block.tokens < 0)
    return { field: 'tokens', message: `expected a whole number ≥ 0, got ${String(block.tokens)}` };
  if (block.cacheControl !== undefined && block.cacheControl !== '5m' && block.cacheControl !== '1h')
    return { field: 'cacheControl', message: `expected "5m" or "1h", got ${String(block.cacheControl)}` };
  return null;
}

function breakpoint(position: number, ttl: AnthropicCacheTtl): AnthropicBreakpoint {
  return { position, ttl, lifetimeMs: ANTHROPIC_TTL_MS[ttl] };
}

function refuse(code: AnthropicCacheRefusal['code'], path: string, message: string): AnthropicCacheRefusal {
  return { ok: false, code, path, message: path ? `${path}: ${message}` : message };
}
