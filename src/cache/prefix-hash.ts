/**
 * The identity of a prompt prefix, as a provider's cache keys it: a cumulative hash over everything up to a position
 * ("a hash of the prefix ending at that block … the hash is cumulative, covering everything up to and including the
 * breakpoint", Anthropic's prompt caching guide; OpenAI and Google match exact prefixes too). The caller gives each
 * block a stable identity of its content (a hash of its canonical form, say); this module never reads the caller's
 * objects, so the JSON key order of a block cannot change a prefix's identity.
 *
 * Pure JavaScript (no node:crypto): two 32-bit lanes, 64 bits in all, each block's identity read once and folded into
 * both lanes with the murmur3 finaliser. A session's cache holds thousands of prefixes, not billions: the chance that
 * two of a million collide is about 3 × 10⁻⁸. The chain is numbers; a prefix's key (16 hex characters) is made only
 * where a cache looks one up or writes one.
 */

/** The hash lanes of every prefix of a request: lanes `2i` and `2i + 1` are the prefix ending at block `i`. */
export type PrefixChain = Uint32Array;

const SEED_A = 0x9e3779b9;
const SEED_B = 0x85ebca77;

/**
 * The chain of a request's prefixes in one cache space (a provider, a model, a routing key): `parts[i]` is block
 * `i`'s identity, and `before[i]`, where given, is folded in ahead of it (a setting the provider renders there).
 */
export function prefixChain(
  space: string,
  parts: readonly string[],
  before?: ReadonlyMap<number, string>,
): PrefixChain {
  const chain = new Uint32Array(parts.length * 2);
  const lanes = new Uint32Array([SEED_A, SEED_B]);
  fold(lanes, space);
  for (let index = 0; index < parts.length; index++) {
    const extra = before?.get(index);
    if (extra !== undefined) fold(lanes, extra);
    fold(lanes, parts[index] as string);
    chain[index * 2] = lanes[0] as number;
    chain[index * 2 + 1] = lanes[1] as number;
  }
  return chain;
}

/** The key of the prefix ending at block `position`: what a cache state's record is keyed by. */
export function prefixKey(chain: PrefixChain, position: number): string {
  return hex(chain[position * 2] as number) + hex(chain[position * 2 + 1] as number);
}

/**
 * Folds a part into both lanes, reading its characters once: each lane starts from its own value crossed with the
 * other's (so a collision must hit both at once), takes every character with its own multiplier, and ends with the
 * murmur3 finaliser so every input bit reaches every output bit.
 */
function fold(lanes: Uint32Array, part: string): void {
  const a0 = lanes[0] as number;
  const b0 = lanes[1] as number;
  let a = (Math.imul(a0 ^ part.length, 0xcc9e2d51) ^ ((b0 << 13) | (b0 >>> 19))) >>> 0;
  let b = (Math.imul(b0 ^ (part.length + 1), 0x1b873593) ^ ((a0 << 7) | (a0 >>> 25))) >>> 0;
  for (let index = 0; index < part.length; index++) {
    const code = part.charCodeAt(index);
    a = Math.imul(a ^ code, 0x5bd1e995);
    a ^= a >>> 15;
    b = Math.imul(b ^ code, 0x27d4eb2f);
    b ^= b >>> 13;
  }
  lanes[0] = finalise(a);
  lanes[1] = finalise(b ^ 0x165667b1);
}

/** murmur3's fmix32. */
function finalise(value: number): number {
  let hash = value;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

function hex(value: number): string {
  return value.toString(16).padStart(8, '0');
}
