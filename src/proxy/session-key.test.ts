import { describe, expect, it } from 'vitest';
import { sessionIdFromBody, sessionIdFromHeaders } from './session-key.js';

describe('sessionIdFromHeaders', () => {
  it("takes Claude Code's x-claude-code-session-id first", () => {
    expect(
      sessionIdFromHeaders({
        'x-claude-code-session-id': 'c4b50355-d5ef-48b3-b6af-959d3110b912',
        'x-barometer-session': 'mine',
      }),
    ).toEqual({ id: 'c4b50355-d5ef-48b3-b6af-959d3110b912', source: 'claude-code-header' });
  });

  it("takes the session_id of Codex's x-codex-turn-metadata JSON", () => {
    const turn = JSON.stringify({ session_id: '01a21710-462a-7061-ac79-16005311062c', turn_id: 't' });
    expect(sessionIdFromHeaders({ 'x-codex-turn-metadata': turn })).toEqual({
      id: '01a21710-462a-7061-ac79-16005311062c',
      source: 'codex-turn-metadata',
    });
  });

  it('takes x-barometer-session, hashing an id that cannot name a folder', () => {
    expect(sessionIdFromHeaders({ 'x-barometer-session': 'run-7' })).toEqual({
      id: 'run-7',
      source: 'barometer-header',
    });
    expect(sessionIdFromHeaders({ 'x-barometer-session': '../etc' })?.id).toMatch(/^s-[0-9a-f]{32}$/);
  });

  it('answers undefined when no header names the session', () => {
    expect(sessionIdFromHeaders({ 'x-codex-turn-metadata': 'not json' })).toBeUndefined();
  });
});

describe('sessionIdFromBody', () => {
  it("reads Claude Code's metadata.user_id JSON and its older _session_<uuid> form", () => {
    const userId = JSON.stringify({
      device_id: 'd',
      account_uuid: '',
      session_id: 'c4b50355-d5ef-48b3-b6af-959d3110b912',
    });
    expect(sessionIdFromBody('anthropic', { metadata: { user_id: userId }, messages: [] }).id).toBe(
      'c4b50355-d5ef-48b3-b6af-959d3110b912',
    );
    expect(
      sessionIdFromBody('anthropic', {
        metadata: { user_id: 'user_abc_account__session_c4b50355-d5ef-48b3-b6af-959d3110b912' },
      }).source,
    ).toBe('claude-code-metadata');
  });

  it("takes a Responses request's prompt_cache_key", () => {
    expect(sessionIdFromBody('openai-responses', { prompt_cache_key: 'abc-1', input: [] })).toEqual({
      id: 'abc-1',
      source: 'prompt-cache-key',
    });
  });

  it('hashes the conversation start: the same for every later request of it, another for another conversation', () => {
    const first = {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    };
    const later = {
      ...first,
      messages: [
        ...first.messages,
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'more' },
      ],
    };
    const other = { ...first, messages: [{ role: 'user', content: 'another task' }] };
    const id = sessionIdFromBody('openai-chat', first);
    expect(id.source).toBe('conversation-hash');
    expect(sessionIdFromBody('openai-chat', later).id).toBe(id.id);
    expect(sessionIdFromBody('openai-chat', other).id).not.toBe(id.id);
  });
});
