import { createHash } from 'node:crypto';
import { ARCHIVE_ID_PATTERN } from '../compaction/archive-sink.js';

/** The wire formats the proxy reads. */
export type WireFormat = 'anthropic' | 'openai-chat' | 'openai-responses';

type Headers = Readonly<Record<string, string | string[] | undefined>>;
type Json = Record<string, unknown>;

/** Where a session id was found (docs/rules.md, "Proxy sessions"). */
export type SessionSource =
  | 'claude-code-header'
  | 'claude-code-metadata'
  | 'codex-turn-metadata'
  | 'prompt-cache-key'
  | 'barometer-header'
  | 'conversation-hash';

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' && text.trim() !== '' ? text.trim() : undefined;
}

function jsonField(text: string, field: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null) {
      const found = (value as Json)[field];
      if (typeof found === 'string' && found !== '') return found;
    }
  } catch {
    // Not JSON: the caller tries the next rule.
  }
  return undefined;
}

/** An id usable as a session id and an archive folder name; anything else is hashed into one. */
function usable(id: string): string {
  return ARCHIVE_ID_PATTERN.test(id) && !id.includes('..')
    ? id
    : `s-${createHash('sha256').update(id).digest('hex').slice(0, 32)}`;
}

/**
 * The session id a request carries without reading its body: Claude Code's `x-claude-code-session-id` (the
 * transcript's id, the same as `metadata.user_id`'s `session_id`), Codex's `x-codex-turn-metadata` JSON
 * `session_id` (the rollout's id), or `x-barometer-session`. Undefined when the body must be read.
 */
export function sessionIdFromHeaders(headers: Headers): { id: string; source: SessionSource } | undefined {
  const claude = header(headers, 'x-claude-code-session-id');
  if (claude) return { id: usable(claude), source: 'claude-code-header' };
  const turn = header(headers, 'x-codex-turn-metadata');
  const codex = turn === undefined ? undefined : jsonField(turn, 'session_id');
  if (codex) return { id: usable(codex), source: 'codex-turn-metadata' };
  const own = header(headers, 'x-barometer-session');
  if (own) return { id: usable(own), source: 'barometer-header' };
  return undefined;
}

/** What starts a conversation: the instructions and the first user turn, the same in every later request. */
function conversationStart(format: WireFormat, body: Json): unknown {
  if (format === 'anthropic') {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    return [body.system ?? null, messages[0] ?? null];
  }
  if (format === 'openai-chat') {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const firstUser = messages.findIndex(
      (message) => typeof message === 'object' && message !== null && (message as Json).role === 'user',
    );
    return messages.slice(0, firstUser + 1);
  }
  const input = body.input;
  if (typeof input === 'string') return [body.instructions ?? null, input];
  const items = Array.isArray(input) ? input : [];
  const firstUser = items.findIndex(
    (item) => typeof item === 'object' && item !== null && (item as Json).role === 'user',
  );
  return [body.instructions ?? null, items.slice(0, firstUser + 1)];
}

/**
 * The session id of a request whose headers name none: Claude Code's `metadata.user_id` (a JSON string with
 * `session_id`, or the older `…_session_<uuid>` form), a Responses request's `prompt_cache_key` (Codex sets it to
 * its session id), else a stable hash of the conversation's start (model, instructions, first user turn).
 */
export function sessionIdFromBody(format: WireFormat, body: Json): { id: string; source: SessionSource } {
  const metadata = body.metadata;
  if (typeof metadata === 'object' && metadata !== null) {
    const userId = (metadata as Json).user_id;
    if (typeof userId === 'string') {
      const fromJson = jsonField(userId, 'session_id');
      const legacy = /_session_([0-9a-f-]{36})$/i.exec(userId)?.[1];
      const id = fromJson ?? legacy;
      if (id) return { id: usable(id), source: 'claude-code-metadata' };
    }
  }
  if (typeof body.prompt_cache_key === 'string' && body.prompt_cache_key !== '')
    return { id: usable(body.prompt_cache_key), source: 'prompt-cache-key' };
  const digest = createHash('sha256')
    .update(JSON.stringify([format, body.model ?? null, conversationStart(format, body)]))
    .digest('hex');
  return { id: `c-${digest.slice(0, 32)}`, source: 'conversation-hash' };
}

/** A conversation within a session (sub-agents share their parent's session id): the hash of its start. */
export function threadKey(format: WireFormat, body: Json): string {
  return createHash('sha256')
    .update(JSON.stringify(conversationStart(format, body)))
    .digest('hex')
    .slice(0, 24);
}

/**
 * The sub-agent a request comes from, by the id its agent sends, or undefined for a main conversation's: Claude
 * Code 2.1.328 sends `x-claude-code-agent-id` on every request of a sub-agent (an Agent/Task tool's conversation) and
 * never on the main conversation's (checked on the real binary, docs/rules.md "Window policy"); any other client may
 * send `x-barometer-sub-agent`.
 */
export function subAgentOf(headers: Headers): string | undefined {
  const id = header(headers, 'x-claude-code-agent-id') ?? header(headers, 'x-barometer-sub-agent');
  return id === undefined ? undefined : id.slice(0, 200);
}
