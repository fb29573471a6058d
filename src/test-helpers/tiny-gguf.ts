import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';

/**
 * A tiny llama-architecture model with random weights, written as GGUF v3 from ggml's specification
 * (https://github.com/ggml-org/ggml/blob/master/docs/gguf.md: header, metadata key-value pairs, tensor infos,
 * padding to `general.alignment`, tensor data). The text it generates is garbage; the KV cache a llama.cpp engine
 * keeps for it is real, which is all the KV tests need. Nothing of it is committed: tests write it to a temp folder.
 *
 * The weights come from SHAKE-256 of the seed and the tensor's name, so the same seed gives the same bytes.
 */
export interface TinyGgufOptions {
  /** @default 'barometer' */
  seed?: string;
  /** @default 1 */
  layers?: number;
  /** @default 64 */
  embedding?: number;
  /** @default 4 */
  heads?: number;
  /** @default 128 */
  feedForward?: number;
  /** The context length the model declares (`llama.context_length`). @default 8192 */
  contextLength?: number;
}

const ALIGNMENT = 32;
// gguf_metadata_value_type (docs/gguf.md)
const UINT32 = 4;
const INT32 = 5;
const FLOAT32 = 6;
const BOOL = 7;
const STRING = 8;
const ARRAY = 9;
// ggml_type F32
const GGML_F32 = 0;
// tokenizer.ggml.token_type: 1 normal, 2 unknown, 3 control, 6 byte
const NORMAL = 1;
const UNKNOWN = 2;
const CONTROL = 3;
const BYTE = 6;

type Value =
  | { type: typeof UINT32 | typeof INT32 | typeof FLOAT32; value: number }
  | { type: typeof BOOL; value: boolean }
  | { type: typeof STRING; value: string }
  | { type: typeof ARRAY; of: typeof STRING; value: string[] }
  | { type: typeof ARRAY; of: typeof FLOAT32 | typeof INT32; value: number[] };

class Writer {
  readonly #chunks: Buffer[] = [];
  length = 0;

  push(buffer: Buffer): void {
    this.#chunks.push(buffer);
    this.length += buffer.length;
  }
  u32(value: number): void {
    const buffer = Buffer.alloc(4);
    buffer.writeUInt32LE(value);
    this.push(buffer);
  }
  i32(value: number): void {
    const buffer = Buffer.alloc(4);
    buffer.writeInt32LE(value);
    this.push(buffer);
  }
  f32(value: number): void {
    const buffer = Buffer.alloc(4);
    buffer.writeFloatLE(value);
    this.push(buffer);
  }
  u64(value: number): void {
    const buffer = Buffer.alloc(8);
    buffer.writeBigUInt64LE(BigInt(value));
    this.push(buffer);
  }
  string(value: string): void {
    const bytes = Buffer.from(value, 'utf8');
    this.u64(bytes.length);
    this.push(bytes);
  }
  pad(): void {
    const padding = (ALIGNMENT - (this.length % ALIGNMENT)) % ALIGNMENT;
    if (padding > 0) this.push(Buffer.alloc(padding));
  }
  value(entry: Value): void {
    this.u32(entry.type);
    if (entry.type === ARRAY) {
      this.u32(entry.of);
      this.u64(entry.value.length);
      for (const item of entry.value) {
        if (entry.of === STRING) this.string(item as string);
        else if (entry.of === FLOAT32) this.f32(item as number);
        else this.i32(item as number);
      }
    } else if (entry.type === STRING) this.string(entry.value);
    else if (entry.type === BOOL) this.push(Buffer.from([entry.value ? 1 : 0]));
    else if (entry.type === FLOAT32) this.f32(entry.value);
    else if (entry.type === INT32) this.i32(entry.value);
    else this.u32(entry.value);
  }
  bytes(): Buffer {
    return Buffer.concat(this.#chunks);
  }
}

/** A SentencePiece ("llama") vocabulary: <unk>, <s>, </s>, the 256 byte tokens, ▁ and printable ASCII. */
function vocabulary(): { tokens: string[]; scores: number[]; types: number[] } {
  const tokens = ['<unk>', '<s>', '</s>'];
  const types = [UNKNOWN, CONTROL, CONTROL];
  for (let byte = 0; byte < 256; byte++) {
    tokens.push(`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(BYTE);
  }
  tokens.push('\u2581');
  types.push(NORMAL);
  for (let code = 33; code < 127; code++) {
    tokens.push(String.fromCharCode(code));
    types.push(NORMAL);
  }
  return { tokens, scores: tokens.map((_, index) => -index), types };
}

/** Deterministic weights in [-0.05, 0.05) for one tensor. */
function weights(seed: string, name: string, count: number, constant?: number): Buffer {
  const out = Buffer.alloc(count * 4);
  if (constant !== undefined) {
    for (let index = 0; index < count; index++) out.writeFloatLE(constant, index * 4);
    return out;
  }
  const stream = createHash('shake256', { outputLength: count * 4 })
    .update(`${seed}\0${name}`)
    .digest();
  for (let index = 0; index < count; index++)
    out.writeFloatLE((stream.readUInt32LE(index * 4) / 2 ** 32 - 0.5) / 10, index * 4);
  return out;
}

/** The GGUF bytes of a tiny random llama model. */
export function tinyGguf(options: TinyGgufOptions = {}): Buffer {
  const seed = options.seed ?? 'barometer';
  const layers = options.layers ?? 1;
  const embedding = options.embedding ?? 64;
  const heads = options.heads ?? 4;
  const feedForward = options.feedForward ?? 128;
  const vocab = vocabulary();
  const n = vocab.tokens.length;

  const metadata: Array<[string, Value]> = [
    ['general.architecture', { type: STRING, value: 'llama' }],
    ['general.name', { type: STRING, value: `barometer-tiny-${seed}` }],
    ['general.alignment', { type: UINT32, value: ALIGNMENT }],
    ['llama.context_length', { type: UINT32, value: options.contextLength ?? 8192 }],
    ['llama.embedding_length', { type: UINT32, value: embedding }],
    ['llama.block_count', { type: UINT32, value: layers }],
    ['llama.feed_forward_length', { type: UINT32, value: feedForward }],
    ['llama.rope.dimension_count', { type: UINT32, value: embedding / heads }],
    ['llama.attention.head_count', { type: UINT32, value: heads }],
    ['llama.attention.head_count_kv', { type: UINT32, value: heads }],
    ['llama.attention.layer_norm_rms_epsilon', { type: FLOAT32, value: 1e-5 }],
    ['tokenizer.ggml.model', { type: STRING, value: 'llama' }],
    ['tokenizer.ggml.tokens', { type: ARRAY, of: STRING, value: vocab.tokens }],
    ['tokenizer.ggml.scores', { type: ARRAY, of: FLOAT32, value: vocab.scores }],
    ['tokenizer.ggml.token_type', { type: ARRAY, of: INT32, value: vocab.types }],
    ['tokenizer.ggml.unknown_token_id', { type: UINT32, value: 0 }],
    ['tokenizer.ggml.bos_token_id', { type: UINT32, value: 1 }],
    ['tokenizer.ggml.eos_token_id', { type: UINT32, value: 2 }],
    ['tokenizer.ggml.add_bos_token', { type: BOOL, value: false }],
  ];

  // Shapes as llama.cpp's llama architecture creates them, dimension 0 first.
  const tensors: Array<{ name: string; shape: number[]; constant?: number }> = [
    { name: 'token_embd.weight', shape: [embedding, n] },
    { name: 'output_norm.weight', shape: [embedding], constant: 1 },
    { name: 'output.weight', shape: [embedding, n] },
  ];
  for (let layer = 0; layer < layers; layer++) {
    const block = `blk.${layer}`;
    tensors.push(
      { name: `${block}.attn_norm.weight`, shape: [embedding], constant: 1 },
      { name: `${block}.attn_q.weight`, shape: [embedding, embedding] },
      { name: `${block}.attn_k.weight`, shape: [embedding, embedding] },
      { name: `${block}.attn_v.weight`, shape: [embedding, embedding] },
      { name: `${block}.attn_output.weight`, shape: [embedding, embedding] },
      { name: `${block}.ffn_norm.weight`, shape: [embedding], constant: 1 },
      { name: `${block}.ffn_gate.weight`, shape: [embedding, feedForward] },
      { name: `${block}.ffn_up.weight`, shape: [embedding, feedForward] },
      { name: `${block}.ffn_down.weight`, shape: [feedForward, embedding] },
    );
  }

  const file = new Writer();
  file.push(Buffer.from('GGUF', 'ascii'));
  file.u32(3);
  file.u64(tensors.length);
  file.u64(metadata.length);
  for (const [key, value] of metadata) {
    file.string(key);
    file.value(value);
  }
  const data: Buffer[] = [];
  let offset = 0;
  for (const tensor of tensors) {
    const count = tensor.shape.reduce((product, size) => product * size, 1);
    file.string(tensor.name);
    file.u32(tensor.shape.length);
    for (const size of tensor.shape) file.u64(size);
    file.u32(GGML_F32);
    file.u64(offset);
    const bytes = weights(seed, tensor.name, count, tensor.constant);
    const padding = (ALIGNMENT - (bytes.length % ALIGNMENT)) % ALIGNMENT;
    data.push(bytes, Buffer.alloc(padding));
    offset += bytes.length + padding;
  }
  file.pad();
  for (const chunk of data) file.push(chunk);
  return file.bytes();
}

/** Writes the model to `path` (a temp folder's file) and returns the path. */
export function writeTinyGguf(path: string, options: TinyGgufOptions = {}): string {
  writeFileSync(path, tinyGguf(options));
  return path;
}
