import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import type { TokenCounter } from './token-counter.js';

/** The BPE encodings barometer counts with. */
export const TOKEN_ENCODINGS = ['o200k_base', 'cl100k_base'] as const;
export type TokenEncoding = (typeof TOKEN_ENCODINGS)[number];

/** The encoding used when neither an encoding nor a known model family is given. */
export const DEFAULT_ENCODING: TokenEncoding = 'o200k_base';

/** Options of {@link createTokenCounter}; unknown keys are rejected. */
export const TokenCounterOptionsSchema = z.strictObject({
  /** The encoding to count with; wins over `model`. @default 'o200k_base' */
  encoding: z.enum(TOKEN_ENCODINGS).optional(),
  /** A model name (e.g. `gpt-4o`, `openai/gpt-4`) whose family picks the encoding. */
  model: z.string().min(1).optional(),
});
export type TokenCounterOptions = z.infer<typeof TokenCounterOptionsSchema>;

/** Which encoding a model is counted with, and whether that is the model's own tokenizer. */
export interface ModelEncoding {
  encoding: TokenEncoding;
  /** False when the family is not an OpenAI one: its own tokenizer is not available, o200k approximates it. */
  known: boolean;
}

// Order matters: the gpt-4o / gpt-4.1 / gpt-4.5 families must match before the plain gpt-4 prefix.
const O200K_FAMILIES = /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o\d|codex)/;
const CL100K_FAMILIES = /^(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada-002)/;

/**
 * The encoding of a model family: gpt-4o, gpt-4.1, gpt-4.5, gpt-5, gpt-oss, codex and the o-series use
 * o200k_base; gpt-4 and gpt-3.5 use cl100k_base. Any other family (Claude, Gemini, Llama, …) has a tokenizer
 * barometer does not ship, so it is counted with o200k_base and reported with `known: false`.
 * A provider prefix (`openai/gpt-4o`, `azure/gpt-4`) is ignored.
 */
export function encodingForModel(model: string): ModelEncoding {
  const name = model.toLowerCase().slice(model.lastIndexOf('/') + 1);
  if (O200K_FAMILIES.test(name)) return { encoding: 'o200k_base', known: true };
  if (CL100K_FAMILIES.test(name)) return { encoding: 'cl100k_base', known: true };
  return { encoding: DEFAULT_ENCODING, known: false };
}

interface EncodingApi {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
}

// gpt-tokenizer's ESM entries load their rank tables at import time (≈ 145 ms, +55 MB for o200k), so a static
// import would make every importer of barometer pay for both encodings. require() of the CommonJS build is
// synchronous, which keeps count() synchronous, and happens only when a counter first counts.
const requireFromHere = createRequire(import.meta.url);
const loadedEncodings = new Map<TokenEncoding, EncodingApi>();

/**
 * Where an encoding is required from. The package carries the two encodings bundled from gpt-tokenizer into
 * dist/vendor (scripts/bundle-vendored.ts) and does not depend on gpt-tokenizer, which installs 30 MB of every
 * OpenAI encoding and model table (docs/decisions/019-install-size.md); run from the sources (tests, tsx), there
 * is no bundle beside this file and the devDependency is the same code.
 */
function encodingModule(encoding: TokenEncoding): string {
  const bundled = fileURLToPath(new URL(`../vendor/gpt-tokenizer-${encoding}.cjs`, import.meta.url));
  return existsSync(bundled) ? bundled : `gpt-tokenizer/encoding/${encoding}`;
}

function loadEncoding(encoding: TokenEncoding): EncodingApi {
  let api = loadedEncodings.get(encoding);
  if (!api) {
    api = requireFromHere(encodingModule(encoding)) as EncodingApi;
    loadedEncodings.set(encoding, api);
  }
  return api;
}

// Agent content can quote special-token text such as "<|endoftext|>"; it is counted as the plain text it is,
// not refused (gpt-tokenizer throws on special tokens by default).
const NO_SPECIAL_TOKENS = { disallowedSpecial: new Set<string>() };

/**
 * A real BPE token counter backed by gpt-tokenizer. The encoding is loaded lazily, once per process, on the
 * first count. `name` is the encoding's name (`o200k_base` or `cl100k_base`).
 *
 * @param options.encoding the encoding; wins over `model`. @default 'o200k_base'
 * @param options.model picks the encoding by family (see {@link encodingForModel})
 * @throws BarometerValidationError when the options are invalid (unknown key, unknown encoding)
 * @example
 * createTokenCounter().count('hello world'); // 2
 * createTokenCounter({ model: 'gpt-4' }).name; // 'cl100k_base'
 */
export function createTokenCounter(options: TokenCounterOptions = {}): TokenCounter {
  const parsed = parseWith(TokenCounterOptionsSchema, options);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'token counter options');
  const { encoding, model } = parsed.value;
  const chosen = encoding ?? (model === undefined ? DEFAULT_ENCODING : encodingForModel(model).encoding);
  return Object.freeze({
    name: chosen,
    estimate: false,
    count(text: string): number {
      return loadEncoding(chosen).countTokens(text, NO_SPECIAL_TOKENS);
    },
  });
}
