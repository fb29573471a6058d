import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyRequest } from 'fastify';
import { loweredBudget } from '../quota/windows/window-levers.js';
import { isObject } from '../usage/json-object.js';
import { markBreakpoint } from './proxy-breakpoint.js';
import type { ResolvedProxyOptions } from './proxy-options.js';
import type { CarriedEdits } from './proxy-session.js';
import type { ProxySession, ProxySessions, ProxyStage } from './proxy-sessions.js';
import { sessionIdFromBody, sessionIdFromHeaders, subAgentOf, type WireFormat } from './session-key.js';
import { thinkingBudgetBytes, withThinkingBudget } from './thinking-bytes.js';
import { type EditBook, editedBlocks } from './wire-history.js';
import { spliceEdits } from './wire-splice.js';

type Json = Record<string, unknown>;

/** A request body's JSON object; undefined when it is JSON but no object. @throws when it is not JSON */
export function parse(bytes: Buffer): Json | undefined {
  const value: unknown = JSON.parse(bytes.toString('utf8'));
  return isObject(value) ? value : undefined;
}

/** The chunks as one buffer (no copy for one chunk). */
export function join(chunks: readonly Buffer[]): Buffer {
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

class BodyTooLarge extends Error {}

/** Reads a request body whole, as the chunks received (no copy); rejects past `limit` bytes. */
function readAll(stream: Readable, limit: number): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const take = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limit) {
        // Not destroyed: the rest is read and dropped, so that the agent reads its 413 (a connection closed on
        // bytes it had not read is reset, and the agent saw a socket hang-up: issue 40).
        stream.off('data', take);
        stream.resume();
        reject(new BodyTooLarge());
      } else chunks.push(chunk);
    };
    stream.on('data', take);
    stream.once('end', () => resolve(chunks));
    stream.once('error', reject);
  });
}

/** One proxied API: its wire format, whether it is measured, and whether it is an observe route. */
export interface ProxyEndpoint {
  format: WireFormat;
  /** Measured and acted on (a generation), or only passed through (count_tokens, model lists). */
  generation: boolean;
  /** Under `/observe`: forwarded as sent (its session observed), whatever the proxy's mode. */
  observe: boolean;
}

/** What the request side reads of the proxy's routes' context. */
export interface RequestSideContext {
  options: Pick<ResolvedProxyOptions, 'bodyLimitBytes' | 'maxWaitSeconds'>;
  sessions: ProxySessions;
  counters: {
    failure(stage: ProxyStage): void;
    /** A window lever acted on a request: its thinking budget lowered, or the request held (for `heldMs`). */
    windowLever?(lever: 'thinking' | 'hold', heldMs: number): void;
  };
  /** Logs a failure without the request's content or keys. */
  log: (stage: ProxyStage, error: unknown) => void;
}

/** What the request side decided, before anything goes upstream. */
export interface Outgoing {
  /** The request as received, once read whole. */
  chunks: Buffer[] | undefined;
  /** What goes upstream: the request read whole with edits written in; undefined: as received. */
  upstreamBody: Buffer[] | undefined;
  body: Json | undefined;
  entry: ProxySession | undefined;
  source: ReturnType<typeof sessionIdFromHeaders>;
  outcome: 'passed' | 'edited' | 'held';
  /** What the request carried of the session's edits (Anthropic): the proxy's breakpoint, and whether it was placed. */
  carried?: CarriedEdits;
  /** The policy read the request before it went upstream: it found the cache cold (ProxySessions.coldOnArrival). */
  analyzedOnArrival?: boolean;
}

/**
 * The request with the edits written into its parsed body and serialized again, cut around the keyed blocks the
 * proxy's breakpoint may go on (`placed`: part index by block key); undefined when no block was rewritten.
 */
function serializeEdited(
  format: WireFormat,
  body: Json,
  edits: EditBook,
  breakpoint: string | null,
): { parts: Buffer[]; placed: Map<string, number> } | undefined {
  const blocks = editedBlocks(format, body, edits);
  if (blocks.length === 0) return undefined;
  for (const { block, edited } of blocks) Object.assign(block, edited);
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  // Every keyed block the request holds; -1: not a part of its own (only the breakpoint's block is cut out).
  const placed = new Map<string, number>();
  for (const { key } of blocks) if (key !== undefined) placed.set(key, -1);
  const marked = blocks.find((candidate) => candidate.key !== undefined && candidate.key === breakpoint);
  if (!marked) return { parts: [bytes], placed };
  // The block as JSON.stringify wrote it inside the body: found once, so that the breakpoint lands on it alone.
  const needle = Buffer.from(JSON.stringify(marked.block), 'utf8');
  const start = bytes.indexOf(needle);
  if (start === -1 || bytes.indexOf(needle, start + 1) !== -1) return { parts: [bytes], placed };
  placed.set(breakpoint as string, 1);
  return {
    parts: [
      bytes.subarray(0, start),
      bytes.subarray(start, start + needle.length),
      bytes.subarray(start + needle.length),
    ],
    placed,
  };
}

/**
 * Puts the proxy's breakpoint on its block when the request holds it (markBreakpoint decides whether the request
 * has room), and says what the request carried, for ProxySessions.record.
 */
function carriedEdits(
  parts: Buffer[],
  placed: Map<string, number>,
  version: number,
  batchEnd: string | null,
  breakpoint: string | null,
): CarriedEdits {
  const at = breakpoint === null ? undefined : placed.get(breakpoint);
  const ttl = at !== undefined && at >= 0 ? markBreakpoint(parts, at) : null;
  return {
    version,
    breakpoint: ttl ? breakpoint : null,
    ...(ttl ? { ttl } : {}),
    sawEnd: batchEnd !== null && placed.has(batchEnd),
  };
}

/**
 * The window policy on a sub-agent's request (docs/rules.md, "Window policy"): its thinking budget lowered when its
 * conversation is (the figure rewritten in the bytes going upstream, every other byte as it was), and how long the
 * hold lever holds it (ms). A main conversation's request, or a request of a session with no lever on, is left alone.
 */
async function windowLevers(
  context: RequestSideContext,
  endpoint: ProxyEndpoint,
  request: FastifyRequest,
  payload: Readable,
  out: Outgoing,
  entry: ProxySession,
): Promise<number> {
  const { sessions, options, counters } = context;
  const agent = subAgentOf(request.headers);
  if (agent === undefined) return 0;
  const { lowered, holdMs } = sessions.windowLevers(entry, agent, options.maxWaitSeconds);
  if (lowered && endpoint.format === 'anthropic') {
    out.chunks ??= await readAll(payload, options.bodyLimitBytes);
    const bytes = join(out.upstreamBody ?? out.chunks);
    const found = thinkingBudgetBytes(bytes);
    const budget = loweredBudget({ lowered }, found?.budgetTokens ?? null);
    if (found && budget !== null) {
      out.upstreamBody = [withThinkingBudget(bytes, found, budget)];
      out.outcome = 'edited';
      entry.windowPolicy.requestsLowered++;
      counters.windowLever?.('thinking', 0);
    }
  }
  if (holdMs > 0) {
    entry.windowPolicy.requestsHeld++;
    entry.windowPolicy.heldMs += holdMs;
    counters.windowLever?.('hold', holdMs);
  }
  return holdMs;
}

/**
 * A request that finds its conversation's cache cold (ProxySessions.coldOnArrival) is read by the policy before it
 * goes upstream, so that it carries the batch its own history ends: at a cold moment (a pause longer than the cache
 * lives) the parse and the analysis wait on nothing the agent is waiting for. The policy reads a copy of the body.
 */
async function analyzeOnArrival(
  context: RequestSideContext,
  endpoint: ProxyEndpoint,
  request: FastifyRequest,
  payload: Readable,
  out: Outgoing,
  entry: ProxySession,
): Promise<void> {
  const { sessions, options } = context;
  const conversation = subAgentOf(request.headers) ?? '';
  if (entry.observed || !sessions.coldOnArrival(entry, conversation)) return;
  out.chunks ??= await readAll(payload, options.bodyLimitBytes);
  const raw = join(out.chunks);
  const body = parse(raw);
  if (!body) return;
  await sessions.analyzeOnArrival(entry, endpoint.format, raw, body, conversation);
  out.analyzedOnArrival = true;
}

/**
 * The request side: finds the session, writes in its edits and holds the request on a `wait` verdict, while the proxy
 * acts on it (act mode, not an observe route, a session neither observed nor paused; a paused session's requests
 * keep the edits made before its pause, see ProxySessions). Fails open: whatever goes wrong in here, the agent's own
 * bytes go upstream. Undefined when the body is over the limit.
 */
export async function outgoingRequest(
  context: RequestSideContext,
  endpoint: ProxyEndpoint,
  request: FastifyRequest,
  payload: Readable,
  act: boolean,
): Promise<Outgoing | undefined> {
  const { options, sessions, counters } = context;
  const limit = options.bodyLimitBytes;
  const out: Outgoing = {
    chunks: undefined,
    upstreamBody: undefined,
    body: undefined,
    entry: undefined,
    source: undefined,
    outcome: 'passed',
  };
  if (!endpoint.generation) return out;
  try {
    out.source = sessionIdFromHeaders(request.headers);
    if (!out.source) {
      out.chunks = await readAll(payload, limit);
      out.body = parse(join(out.chunks));
      if (out.body) out.source = sessionIdFromBody(endpoint.format, out.body);
    }
    if (!out.source) return out;
    const entry = sessions.session(out.source.id);
    out.entry = entry;
    await entry.pending;
    // A session seen in observe stays observed: its later requests go as sent, on any route.
    if (!act) sessions.observe(entry);
    if (act) await analyzeOnArrival(context, endpoint, request, payload, out, entry);
    if (act && !entry.observed && entry.edits.size > 0) {
      out.chunks ??= await readAll(payload, limit);
      const version = entry.version;
      const breakpoint = sessions.breakpoint(entry, out.analyzedOnArrival === true);
      // The edited blocks' byte ranges, from the session's earlier requests; else parse and re-serialize.
      const spliced = out.body ? undefined : spliceEdits(out.chunks, entry.copies, version);
      let placed: Map<string, number> | undefined;
      if (spliced) {
        out.upstreamBody = spliced.parts;
        placed = spliced.placed;
        if (spliced.blocks > 0) out.outcome = 'edited';
      } else {
        out.body ??= parse(join(out.chunks));
        const edited = out.body
          ? serializeEdited(endpoint.format, out.body, entry.edits, breakpoint)
          : undefined;
        if (edited) {
          out.upstreamBody = edited.parts;
          placed = edited.placed;
          out.outcome = 'edited';
        }
      }
      // Anthropic: the proxy's own breakpoint on the block of the latest batch's last tombstone (proxy-breakpoint.ts).
      if (endpoint.format === 'anthropic' && out.upstreamBody && placed)
        out.carried = carriedEdits(out.upstreamBody, placed, version, entry.batchEnd, breakpoint);
    }
    const windowHold = act ? await windowLevers(context, endpoint, request, payload, out, entry) : 0;
    // Held only while the proxy acts on the session: an observed or paused one's verdict decides nothing.
    const quotaHold = act && sessions.acting(entry) ? sessions.holdMs(entry, options.maxWaitSeconds) : 0;
    const hold = Math.max(quotaHold, windowHold);
    if (hold > 0) {
      out.outcome = 'held';
      await sleep(hold);
    }
  } catch (error) {
    if (error instanceof BodyTooLarge) return undefined;
    if (payload.destroyed && !out.chunks) throw error;
    context.log('edit', error);
    counters.failure('edit');
    out.upstreamBody = undefined;
    out.outcome = 'passed';
  }
  return out;
}
