import type { WireFormat } from './session-key.js';
import { type EditBook, type EditedBlock, editedBlocks } from './wire-history.js';

type Json = Record<string, unknown>;

/** One rewritten block of a request, by its byte range in the request as the agent sent it. */
interface SplicedBlock {
  start: number;
  end: number;
  /** The block with its tombstone, serialized. */
  replacement: Buffer;
  /** The block's key (`<call id>:result|input`, Anthropic), for the proxy's breakpoint. */
  key?: string;
}

/**
 * A request of a session as the agent sent it, with where its edited blocks are: the next request of the
 * conversation starts with the same bytes (the agent resends its history and appends), so its edits are the same
 * byte ranges, written without parsing it.
 */
export interface WireCopy {
  bytes: Buffer;
  blocks: SplicedBlock[];
  /** The session's edit version the blocks were located for (a newer edit book needs a new copy). */
  version: number;
  /** Every call id of the edit book, quoted, as bytes: searched for in the part of a request that is new. */
  ids: Buffer[];
}

/**
 * Locates the blocks the edits rewrite in the bytes the agent sent (parsed as `body`): each block's serialization is
 * searched for in document order. Undefined when one is not found as JSON.stringify writes it (an agent that sends
 * its JSON spaced out or escaped otherwise): its requests are then parsed and re-serialized instead. `found`: the
 * request's edited blocks, when the caller has them already.
 */
export function locateEdits(
  format: WireFormat,
  bytes: Buffer,
  body: Json,
  edits: EditBook,
  version: number,
  found: readonly EditedBlock[] = editedBlocks(format, body, edits),
): WireCopy | undefined {
  const blocks: SplicedBlock[] = [];
  let from = 0;
  for (const { block, edited, key } of found) {
    const needle = Buffer.from(JSON.stringify(block), 'utf8');
    const start = bytes.indexOf(needle, from);
    if (start === -1) return undefined;
    from = start + needle.length;
    blocks.push({
      start,
      end: from,
      replacement: Buffer.from(JSON.stringify(edited), 'utf8'),
      ...(key === undefined ? {} : { key }),
    });
  }
  const ids = [...edits.keys()].map((id) => Buffer.from(JSON.stringify(id), 'utf8'));
  return { bytes, blocks, version, ids };
}

/** How many leading bytes the chunks (one request, as received) share with `bytes`. */
function commonPrefix(chunks: readonly Buffer[], bytes: Buffer): number {
  let offset = 0;
  for (const chunk of chunks) {
    const length = Math.min(chunk.length, bytes.length - offset);
    if (length <= 0) return offset;
    if (chunk.compare(bytes, offset, offset + length, 0, length) === 0) {
      offset += length;
      if (length < chunk.length) return offset;
      continue;
    }
    // The first differing byte is in this chunk: halve until found (each step one native compare).
    let low = 0;
    let high = length;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (chunk.compare(bytes, offset, offset + middle, 0, middle) === 0) low = middle;
      else high = middle - 1;
    }
    return offset + low;
  }
  return offset;
}

/** The bytes [from, to) of a request received as chunks, as views of them (no copy). */
function slice(chunks: readonly Buffer[], from: number, to: number, out: Buffer[]): void {
  let offset = 0;
  for (const chunk of chunks) {
    const end = offset + chunk.length;
    if (end > from && offset < to)
      out.push(chunk.subarray(Math.max(0, from - offset), Math.min(chunk.length, to - offset)));
    offset = end;
    if (offset >= to) return;
  }
}

/**
 * A request with the session's edits written in, from the copies of its earlier requests: the copy sharing the
 * longest prefix with it gives the byte ranges of every edited block in that prefix, and the rest of the request
 * (what the agent appended) must name no edited call. Answers the request's bytes as views of the chunks and the
 * serialized tombstoned blocks, in order, how many blocks were rewritten, and at which part each keyed block's
 * replacement is; or undefined when the request must be parsed instead (a copy of an older edit book, an edited
 * block in the new part or across its start).
 */
export function spliceEdits(
  chunks: readonly Buffer[],
  copies: readonly WireCopy[],
  version: number,
): { parts: Buffer[]; blocks: number; placed: Map<string, number> } | undefined {
  let copy: WireCopy | undefined;
  let shared = -1;
  for (const candidate of copies) {
    if (candidate.version !== version) continue;
    const length = commonPrefix(chunks, candidate.bytes);
    if (length > shared) {
      shared = length;
      copy = candidate;
    }
  }
  if (!copy) return undefined;
  let total = 0;
  for (const chunk of chunks) total += chunk.length;
  const applied: SplicedBlock[] = [];
  let newPartFrom = shared;
  for (const block of copy.blocks) {
    if (block.end <= shared) applied.push(block);
    // An edited block that begins in the shared part and ends in the new one was changed by the agent.
    else if (block.start < shared) return undefined;
  }
  // Where the new part starts, less the longest id, so that an id across the boundary is found.
  for (const id of copy.ids) newPartFrom = Math.min(newPartFrom, Math.max(0, shared - id.length + 1));
  if (newPartFrom < total) {
    const newPart: Buffer[] = [];
    slice(chunks, newPartFrom, total, newPart);
    const tail = newPart.length === 1 ? (newPart[0] as Buffer) : Buffer.concat(newPart);
    for (const id of copy.ids) if (tail.includes(id)) return undefined;
  }
  const out: Buffer[] = [];
  const placed = new Map<string, number>();
  let at = 0;
  for (const block of applied) {
    slice(chunks, at, block.start, out);
    if (block.key !== undefined) placed.set(block.key, out.length);
    out.push(block.replacement);
    at = block.end;
  }
  slice(chunks, at, total, out);
  return { parts: out, blocks: applied.length, placed };
}
