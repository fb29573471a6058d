/**
 * The identity of a prompt prefix, as a provider's cache keys it: a cumulative hash over everything up to a position
 * ("a hash of the prefix ending at that block … the hash is cumulative, covering everything up to and including the
 * breakpoint", Anthropic's prompt caching guide; OpenAI and Google match exact prefixes too). The caller gives each
 * block a stable identity of its content (a hash of its canonical form, say); this module never reads the caller's
 * objects, so the JSON key order of a block cannot change a prefix's identity.
 *
 * Pure JavaScript (no node:crypto): two independent 32-bit multiply-xorshift hashes with the murmur3 finaliser, 64
 * bits in all. A session's cache holds thousands of prefixes, not billions: the chance that two of a million collide
 * is about 3 × 10⁻⁸.
 */

/** The identity of the empty prefix of one cache space (a provider, a model, a routing key). */
export function prefixRoot(space: string): string {
  return prefixStep('', space);
}

/**
 * The identity of a prefix extended by one part (a block's identity, or a setting rendered at that point).
 * `previous` is always 16 hex characters or empty, so the separator makes every (previous, part) pair distinct.
 * @example prefixStep(prefixRoot('anthropic\u0000claude-opus-4-6'), 'sha256:…') // '3f0c…' (16 hex characters)
 */
export function prefixStep(previous: string, part: string): string {
  const text = `${previous}\u0000${part}`;
  return hex(hash32(text, 0x9e3779b9)) + hex(hash32(text, 0x85ebca77));
}

/** The identity of each prefix ending at each block: `hashes[i]` covers blocks 0…i. */
export function prefixHashes(root: string, ids: readonly string[]): string[] {
  const hashes = new Array<string>(ids.length);
  let current = root;
  for (let index = 0; index < ids.length; index++) {
    current = prefixStep(current, ids[index] as string);
    hashes[index] = current;
  }
  return hashes;
}

function hash32(text: string, seed: number): number {
  let hash = (seed ^ text.length) >>> 0;
  for (let index = 0; index < text.length; index++) {
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x5bd1e995);
    hash ^= hash >>> 15;
  }
  // murmur3's fmix32: every input bit reaches every output bit.
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
