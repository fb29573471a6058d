import { type PrefixBlock, prefixBlockFault } from './automatic-prefix-cache.js';
import type { OpenAiCacheRetention } from './openai-cache-rules.js';

/** The role of the message a block ends, where the caching of GPT-5.6 and later places its implicit breakpoints. */
export type OpenAiMessageRole = 'developer' | 'user' | 'tool' | 'assistant' | 'other';

/** One block of a Responses or Chat Completions request, in the order the model reads them (tools, then input). */
export interface OpenAiCacheBlock extends PrefixBlock {
  /** The block is the last of a message, of this role (a tool output is `tool`); absent inside a message. */
  messageEnd?: OpenAiMessageRole | undefined;
  /** The block carries `prompt_cache_breakpoint: { mode: "explicit" }` (GPT-5.6 and later). */
  breakpoint?: boolean | undefined;
}

/** A request as OpenAI's prompt cache sees it. */
export interface OpenAiCacheRequest {
  model: string;
  /** `prompt_cache_key`: requests under different keys never share entries ("separates cache reuse"). */
  promptCacheKey?: string | null | undefined;
  /** `prompt_cache_retention` (models before GPT-5.6); default: the model's default. */
  retention?: OpenAiCacheRetention | undefined;
  /** `prompt_cache_options.mode` (GPT-5.6 and later); default `implicit`. */
  mode?: 'implicit' | 'explicit' | undefined;
  /** The visible prompt, block by block (the provider's hidden system content is not in any figure it reports). */
  blocks: readonly OpenAiCacheBlock[];
  /** How long an unused entry lives, when the caller knows better than the model's choice (docs/rules.md). */
  lifetimeMs?: number | undefined;
}

/** A request the model cannot read, or one the API refuses. */
export interface OpenAiCacheRefusal {
  ok: false;
  code: 'invalid_request' | 'retention_unsupported';
  path: string;
  message: string;
}

const ROLES = new Set<string>(['developer', 'user', 'tool', 'assistant', 'other']);

/** The first fault of a request, or null: every block well formed, a retention the model accepts. */
export function openAiRequestFault(
  request: OpenAiCacheRequest,
  retentions: readonly OpenAiCacheRetention[] | null,
): OpenAiCacheRefusal | null {
  if (typeof request.model !== 'string' || request.model.length === 0)
    return refuse('invalid_request', 'model', 'expected a model id');
  const block = prefixBlockFault(request.blocks, 'blocks');
  if (block)
    return {
      ok: false,
      code: 'invalid_request',
      path: block.path,
      message: `${block.path}: ${block.message}`,
    };
  for (let index = 0; index < request.blocks.length; index++) {
    const role = (request.blocks[index] as OpenAiCacheBlock).messageEnd;
    if (role !== undefined && !ROLES.has(role))
      return refuse('invalid_request', `blocks[${index}].messageEnd`, `unknown role ${String(role)}`);
  }
  if (
    request.lifetimeMs !== undefined &&
    (!Number.isSafeInteger(request.lifetimeMs) || request.lifetimeMs < 1)
  )
    return refuse(
      'invalid_request',
      'lifetimeMs',
      `expected a whole number of ms ≥ 1, got ${String(request.lifetimeMs)}`,
    );
  if (request.mode !== undefined && request.mode !== 'implicit' && request.mode !== 'explicit')
    return refuse(
      'invalid_request',
      'mode',
      `expected "implicit" or "explicit", got ${String(request.mode)}`,
    );
  if (request.retention !== undefined) {
    if (retentions === null)
      return refuse(
        'retention_unsupported',
        'retention',
        `${request.model} sets its lifetime with prompt_cache_options.ttl`,
      );
    if (!retentions.includes(request.retention))
      return refuse(
        'retention_unsupported',
        'retention',
        `${request.model} accepts ${retentions.join(' or ')}`,
      );
  }
  return null;
}

function refuse(code: OpenAiCacheRefusal['code'], path: string, message: string): OpenAiCacheRefusal {
  return { ok: false, code, path, message: `${path}: ${message}` };
}
