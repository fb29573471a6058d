import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tinyGguf } from './tiny-gguf.js';

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('tinyGguf (GGUF v3 per ggml docs/gguf.md)', () => {
  it('writes the header: magic GGUF, version 3, tensor and key-value counts', () => {
    const bytes = tinyGguf();
    expect(bytes.subarray(0, 4).toString('ascii')).toBe('GGUF');
    expect(bytes.readUInt32LE(4)).toBe(3);
    // token_embd, output_norm, output + 9 tensors per layer.
    expect(bytes.readBigUInt64LE(8)).toBe(12n);
    expect(bytes.readBigUInt64LE(16)).toBe(19n);
    expect(tinyGguf({ layers: 2 }).readBigUInt64LE(8)).toBe(21n);
  });

  it('is byte-identical for one seed and differs for another', () => {
    expect(sha(tinyGguf({ seed: 'a' }))).toBe(sha(tinyGguf({ seed: 'a' })));
    expect(sha(tinyGguf({ seed: 'a' }))).not.toBe(sha(tinyGguf({ seed: 'b' })));
  });

  it('aligns the tensor data to 32 bytes and stays small', () => {
    const bytes = tinyGguf();
    expect(bytes.length % 32).toBe(0);
    expect(bytes.length).toBeLessThan(1_000_000);
  });
});
