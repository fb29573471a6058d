import { createHash } from 'node:crypto';
import type { AnthropicCacheBlock, AnthropicCacheRequest } from '../cache/anthropic-cache-request.js';
import type { AnthropicCacheTtl } from '../cache/anthropic-cache-rules.js';
import type {
  OpenAiCacheBlock,
  OpenAiCacheRequest,
  OpenAiMessageRole,
} from '../cache/openai-cache-request.js';
import type { OpenAiCacheRetention } from '../cache/openai-cache-rules.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { isObject } from '../usage/json-object.js';
import type { WireFormat } from './session-key.js';

type Json = Record<string, unknown>;

/**
 * A block's canonical JSON: keys sorted, `cache_control` left out at every depth (a marker is not content), no
 * whitespace. Two blocks with the same content have the same text whatever the key order the agent wrote.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let index = 0; index < value.length; index++) {
      if (index > 0) out += ',';
      const item: unknown = value[index];
      out += item === undefined || typeof item === 'function' ? 'null' : canonicalJson(item);
    }
    return `${out}]`;
  }
  const object = value as Json;
  let out = '{';
  let first = true;
  for (const key of Object.keys(object).sort()) {
    const item = object[key];
    if (key === 'cache_control' || item === undefined || typeof item === 'function') continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(item)}`;
    first = false;
  }
  return `${out}}`;
}

/** A block's identity and size, as the cache models take them. */
export interface BlockFigures {
  id: string;
  tokens: number;
}

/** The most block sizes a describer remembers (by identity); past it, it starts over. */
const MEMO_LIMIT = 20_000;

/**
 * Describes blocks for the cache models: the identity is a SHA-1 of the block's level (tool, system, the message's
 * role) and its canonical JSON; the size is the token counter's count of that JSON, remembered by identity so that a
 * block resent in every request of a session is counted once.
 */
export class BlockDescriber {
  readonly #counter: TokenCounter;
  readonly #tokens = new Map<string, number>();

  constructor(counter: TokenCounter) {
    this.#counter = counter;
  }

  describe(level: string, block: unknown): BlockFigures {
    const text = canonicalJson(block);
    const id = createHash('sha1').update(level).update('\u0000').update(text).digest('base64');
    let tokens = this.#tokens.get(id);
    if (tokens === undefined) {
      tokens = this.#counter.count(text);
      if (this.#tokens.size >= MEMO_LIMIT) this.#tokens.clear();
      this.#tokens.set(id, tokens);
    }
    return { id, tokens };
  }
}

/** The edited copy of each block the session's edits rewrite (`editedBlocks`), by the block object of the body. */
export type EditedCopies = ReadonlyMap<object, Json>;

/** A request as the cache model of its provider reads it, as the agent sent it and as barometer sent it. */
export type CacheRequests =
  | { provider: 'anthropic'; unedited: AnthropicCacheRequest; sent: AnthropicCacheRequest }
  | { provider: 'openai'; unedited: OpenAiCacheRequest; sent: OpenAiCacheRequest };

/**
 * The request as the agent sent it (`body`, before any edit) and as it went upstream (the same body with each block
 * of `edited` replaced by its edited copy), in the terms of the provider's cache model. Each block is described once
 * unless it was edited. Null for a body that is no request of the format (no model).
 */
export function cacheRequestsOf(
  format: WireFormat,
  body: Json,
  edited: EditedCopies,
  describer: BlockDescriber,
): CacheRequests | null {
  if (typeof body.model !== 'string' || body.model === '') return null;
  if (format === 'anthropic') return anthropicRequests(body, body.model, edited, describer);
  return openAiRequests(format, body, body.model, edited, describer);
}

function ttlOf(block: unknown): AnthropicCacheTtl | undefined {
  if (!isObject(block) || !isObject(block.cache_control)) return undefined;
  return block.cache_control.ttl === '1h' ? '1h' : '5m';
}

/** "Thinking blocks cannot be cached directly with `cache_control`", nor "empty text blocks". */
function cacheable(block: unknown): boolean {
  if (!isObject(block)) return true;
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false;
  return !(block.type === 'text' && block.text === '');
}

function anthropicBlock(level: string, block: unknown, describer: BlockDescriber): AnthropicCacheBlock {
  const figures = describer.describe(level, block);
  const ttl = ttlOf(block);
  return {
    ...figures,
    ...(ttl === undefined ? {} : { cacheControl: ttl }),
    ...(cacheable(block) ? {} : { cacheable: false }),
  };
}

/** Both Anthropic requests: each tool, system block and message content block one block (a string content is one). */
function anthropicRequests(
  body: Json,
  model: string,
  edited: EditedCopies,
  describer: BlockDescriber,
): CacheRequests {
  const tools = (Array.isArray(body.tools) ? body.tools : []).map((tool) =>
    anthropicBlock('tool', tool, describer),
  );
  const system =
    typeof body.system === 'string'
      ? body.system === ''
        ? []
        : [anthropicBlock('system', body.system, describer)]
      : (Array.isArray(body.system) ? body.system : []).map((block) =>
          anthropicBlock('system', block, describer),
        );
  const unedited: AnthropicCacheBlock[] = [];
  const sent: AnthropicCacheBlock[] = [];
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (!isObject(message)) continue;
    const role = typeof message.role === 'string' ? message.role : 'user';
    const content = message.content;
    const blocks = Array.isArray(content)
      ? content
      : content === undefined || content === ''
        ? []
        : [content];
    for (const block of blocks) {
      const figures = anthropicBlock(role, block, describer);
      unedited.push(figures);
      const copy = isObject(block) ? edited.get(block) : undefined;
      sent.push(copy === undefined ? figures : anthropicBlock(role, copy, describer));
    }
  }
  // Settings the API renders before the messages ("What invalidates the cache": tool choice and thinking).
  const settings = canonicalJson({ thinking: body.thinking, tool_choice: body.tool_choice });
  const base = {
    model,
    tools,
    system,
    settings: { messages: settings },
    ...(ttlOf(body) === undefined ? {} : { automatic: ttlOf(body) }),
  };
  return {
    provider: 'anthropic',
    unedited: { ...base, messages: unedited },
    sent: { ...base, messages: sent },
  };
}

function roleOf(item: Json): OpenAiMessageRole {
  if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output' || item.role === 'tool')
    return 'tool';
  if (item.role === 'developer' || item.role === 'system') return 'developer';
  if (item.role === 'user') return 'user';
  if (item.role === 'assistant' || item.type === 'function_call' || item.type === 'custom_tool_call')
    return 'assistant';
  return 'other';
}

/**
 * Both OpenAI requests (Chat Completions or Responses): each tool definition one block, the Responses instructions
 * one, and each message or input item one, ending a message of its role.
 */
function openAiRequests(
  format: WireFormat,
  body: Json,
  model: string,
  edited: EditedCopies,
  describer: BlockDescriber,
): CacheRequests {
  const head: OpenAiCacheBlock[] = (Array.isArray(body.tools) ? body.tools : []).map((tool) =>
    describer.describe('tool', tool),
  );
  if (format === 'openai-responses' && typeof body.instructions === 'string' && body.instructions !== '')
    head.push({ ...describer.describe('developer', body.instructions), messageEnd: 'developer' });
  const items = format === 'openai-chat' ? body.messages : body.input;
  const list =
    typeof items === 'string' ? [{ role: 'user', content: items }] : Array.isArray(items) ? items : [];
  const unedited: OpenAiCacheBlock[] = [...head];
  const sent: OpenAiCacheBlock[] = [...head];
  for (const item of list) {
    if (!isObject(item)) continue;
    const role = roleOf(item);
    const figures = { ...describer.describe(role, item), messageEnd: role };
    unedited.push(figures);
    const copy = edited.get(item);
    sent.push(copy === undefined ? figures : { ...describer.describe(role, copy), messageEnd: role });
  }
  const retention = body.prompt_cache_retention;
  const base = {
    model,
    ...(typeof body.prompt_cache_key === 'string' ? { promptCacheKey: body.prompt_cache_key } : {}),
    ...(retention === 'in_memory' || retention === '24h'
      ? { retention: retention as OpenAiCacheRetention }
      : {}),
  };
  return { provider: 'openai', unedited: { ...base, blocks: unedited }, sent: { ...base, blocks: sent } };
}
