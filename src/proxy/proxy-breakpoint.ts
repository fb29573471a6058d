import { ANTHROPIC_MAX_BREAKPOINTS } from '../cache/anthropic-cache-rules.js';

/** A `cache_control` key as JSON writes it (inside a JSON string its quotes would be escaped: `\"`). */
const KEY = Buffer.from('"cache_control"', 'latin1');
/** The longest `cache_control` object read after a key: `:{"type":"ephemeral","ttl":"1h"}` with some spaces. */
const MARK_WINDOW = 96;
const MARK = /^"cache_control"\s*:\s*(\{[^{}]*\})/;

/** `length` bytes (or fewer at the end) from byte `offset` of part `index` on, across the parts. */
function bytesFrom(parts: readonly Buffer[], index: number, offset: number, length: number): Buffer {
  const out: Buffer[] = [];
  let left = length;
  for (let part = index; part < parts.length && left > 0; part++) {
    const bytes = parts[part] as Buffer;
    const from = part === index ? offset : 0;
    const piece = bytes.subarray(from, Math.min(bytes.length, from + left));
    out.push(piece);
    left -= piece.length;
  }
  return out.length === 1 ? (out[0] as Buffer) : Buffer.concat(out);
}

/** Every `"cache_control"` key in the parts from part `from` on, as [part, offset], matches across parts included. */
function* keysIn(parts: readonly Buffer[], from: number): Generator<[number, number]> {
  const reach = KEY.length - 1;
  for (let index = from; index < parts.length; index++) {
    const part = parts[index] as Buffer;
    for (let at = part.indexOf(KEY); at !== -1; at = part.indexOf(KEY, at + 1)) yield [index, at];
    // A key that starts in this part's last bytes and ends in the next ones.
    const start = Math.max(0, part.length - reach);
    const window = bytesFrom(parts, index, start, reach * 2);
    for (
      let at = window.indexOf(KEY);
      at !== -1 && at < part.length - start;
      at = window.indexOf(KEY, at + 1)
    )
      if (start + at + KEY.length > part.length) yield [index, start + at];
  }
}

/** The `cache_control` object a key at [part, offset] opens, when it is a breakpoint's (`{"type":"ephemeral"…}`). */
function markAt(parts: readonly Buffer[], part: number, offset: number): string | undefined {
  const text = bytesFrom(parts, part, offset, MARK_WINDOW).toString('latin1');
  const object = MARK.exec(text)?.[1];
  if (object === undefined) return undefined;
  try {
    const value = JSON.parse(object) as { type?: unknown; ttl?: unknown };
    if (value.type !== 'ephemeral') return undefined;
    if (value.ttl === undefined) return '{"type":"ephemeral"}';
    return value.ttl === '5m' || value.ttl === '1h' ? `{"type":"ephemeral","ttl":"${value.ttl}"}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Puts the proxy's own cache breakpoint on the block at `parts[index]` (a block the proxy itself serialized: a
 * tombstoned tool result or call), in place, as Anthropic's prompt caching allows (agreement 2 of issue 38,
 * docs/rules.md "The proxy's breakpoint"): only when the request has fewer than 4 `cache_control` breakpoints (a fifth
 * is a 400), never on a block the agent marked already, with the lifetime of the agent's first breakpoint after it
 * (`5m` when none follows: a 1-hour entry must not follow a 5-minute one, and the agent's order already holds that).
 * Every `"cache_control"` key counts, a mention in a JSON value too (a string `"cache_control"` is one): the count can
 * only be high, and then no breakpoint is added. Answers the lifetime of the breakpoint added, or null when none was.
 */
export function markBreakpoint(parts: Buffer[], index: number): '5m' | '1h' | null {
  const block = parts[index];
  if (block?.at(-1) !== 0x7d || block.includes(KEY)) return null;
  let count = 0;
  let after: string | undefined;
  let lifetimeKnown = true;
  for (const [part, offset] of keysIn(parts, 0)) {
    count++;
    if (count >= ANTHROPIC_MAX_BREAKPOINTS) return null;
    if (part > index && after === undefined && lifetimeKnown) {
      after = markAt(parts, part, offset);
      // A key whose object cannot be read: its lifetime is unknown, so none is guessed.
      if (after === undefined) lifetimeKnown = false;
    }
  }
  if (!lifetimeKnown) return null;
  const mark = after ?? '{"type":"ephemeral"}';
  parts[index] = Buffer.concat([block.subarray(0, -1), Buffer.from(`,"cache_control":${mark}}`, 'latin1')]);
  return mark.includes('"1h"') ? '1h' : '5m';
}
