import type { AnthropicConversation, AnthropicMessage } from './anthropic-messages.js';

/**
 * The conversations a Claude Code session log (`~/.claude/projects/<project>/<session>.jsonl`) holds, as the
 * Anthropic messages the agent sent: one conversation per stretch between automatic or manual compactions
 * (`system` lines with `subtype: "compact_boundary"`), the last one being what the agent sent at the end.
 *
 * How the log is read (observed in the recorded sessions under test/fixtures/traces/claude-code):
 * - `user` and `assistant` lines carry `message` (role, content); other line types (progress, summaries,
 *   file-history snapshots, queue operations) are not part of the conversation;
 * - one assistant API message is written as several lines sharing `message.id`, one content block per line:
 *   consecutive lines with the same id are one message;
 * - sidechain lines (`isSidechain: true`, a sub-agent's own conversation) are left out.
 * Lines that are not JSON, or not objects, are skipped: a log being written may end in a partial line.
 */
export function claudeCodeConversations(log: string): AnthropicConversation[] {
  const conversations: AnthropicMessage[][] = [[]];
  let lastAssistantId: string | undefined;
  for (const line of log.split('\n')) {
    if (line.trim() === '') continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof entry !== 'object' || entry === null) continue;
    const record = entry as Record<string, unknown>;
    if (record.type === 'system' && record.subtype === 'compact_boundary') {
      conversations.push([]);
      lastAssistantId = undefined;
      continue;
    }
    if ((record.type !== 'user' && record.type !== 'assistant') || record.isSidechain === true) continue;
    const message = record.message as Record<string, unknown> | undefined;
    if (typeof message !== 'object' || message === null) continue;
    const role = message.role;
    const content = message.content;
    if ((role !== 'user' && role !== 'assistant') || (typeof content !== 'string' && !Array.isArray(content)))
      continue;
    const current = conversations.at(-1) as AnthropicMessage[];
    const id = typeof message.id === 'string' ? message.id : undefined;
    const previous = current.at(-1);
    if (
      role === 'assistant' &&
      id !== undefined &&
      id === lastAssistantId &&
      previous?.role === 'assistant'
    ) {
      const blocks =
        typeof previous.content === 'string' ? [{ type: 'text', text: previous.content }] : previous.content;
      previous.content = [
        ...blocks,
        ...(typeof content === 'string' ? [{ type: 'text', text: content }] : content),
      ];
      continue;
    }
    current.push({ role, content: typeof content === 'string' ? content : [...content] } as AnthropicMessage);
    lastAssistantId = role === 'assistant' ? id : undefined;
  }
  return conversations.filter((messages) => messages.length > 0).map((messages) => ({ messages }));
}
