import { describe, expect, it } from 'vitest';
import { requestContext } from './request-context.js';

const TOOLS = [{ name: 'Read', input_schema: { type: 'object' } }];

describe('requestContext: what a request says of its session', () => {
  it('reads Claude Code 2.1.328: the environment section and the first user turn without its reminder', () => {
    // The shape the real binary sent (captured offline): the reminder and the prompt are two blocks of the first
    // user turn, and the environment is a `system` turn of the messages, not part of `system`.
    const body = {
      model: 'claude-opus-5-5',
      system: [{ type: 'text', text: 'You are a Claude agent, built on Anthropic’s Claude Agent SDK.' }],
      tools: TOOLS,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '<system-reminder>\nAttribution for git commits…\n</system-reminder>\n' },
            { type: 'text', text: 'Fix the failing login test in src/auth and explain the cause please' },
          ],
        },
        {
          role: 'system',
          content: [
            {
              type: 'text',
              text: '# Environment\nYou have been invoked in the following environment: \n - Primary working directory: /tmp/cap/my-project/app\n - Is a git repository: false\n',
            },
          ],
        },
      ],
    };
    expect(requestContext('anthropic', body)).toEqual({
      workingDirectory: '/tmp/cap/my-project/app',
      title: 'Fix the failing login test in src/auth and explain the cause please',
    });
  });

  it('reads the <env> block of earlier Claude Code system prompts', () => {
    const body = {
      system:
        'You are Claude Code.\n<env>\nWorking directory: /Users/me/shop\nIs directory a git repo: Yes\n</env>',
      tools: TOOLS,
      messages: [{ role: 'user', content: 'Add a test' }],
    };
    expect(requestContext('anthropic', body)).toEqual({
      workingDirectory: '/Users/me/shop',
      title: 'Add a test',
    });
    // An empty line names no folder (a published 2.1.12 prompt has one): the next line is not taken for it.
    const empty = { ...body, system: '<env>\nWorking directory:\nIs directory a git repo: Yes\n</env>' };
    expect(requestContext('anthropic', empty)).toEqual({ title: 'Add a test' });
  });

  it('reads Codex 0.169: <cwd> of the environment turn, and the first user turn that is the user’s', () => {
    const turn = (text: string, role = 'user') => ({
      type: 'message',
      role,
      content: [{ type: 'input_text', text }],
    });
    const body = {
      model: 'gpt-5.3-codex',
      tools: [{ type: 'function', name: 'exec_command' }],
      input: [
        turn('You are a coding agent running in the Codex CLI.', 'developer'),
        turn(
          '# AGENTS.md instructions for /tmp/capx/my-project/svc\n\n<INSTRUCTIONS>\nBe terse.\n</INSTRUCTIONS>',
        ),
        turn(
          '<environment_context>\n  <cwd>/tmp/capx/my-project/svc</cwd>\n  <shell>bash</shell>\n</environment_context>',
        ),
        turn('Rename the config loader and update its callers'),
      ],
    };
    expect(requestContext('openai-responses', body)).toEqual({
      workingDirectory: '/tmp/capx/my-project/svc',
      title: 'Rename the config loader and update its callers',
    });
  });

  it('reads nothing from a request without tools (a title or quota probe would name the session after itself)', () => {
    expect(
      requestContext('anthropic', { max_tokens: 1, messages: [{ role: 'user', content: 'quota' }] }),
    ).toEqual({});
    expect(requestContext('openai-chat', { tools: [], messages: [{ role: 'user', content: 'hi' }] })).toEqual(
      {},
    );
  });

  it('skips tool results and takes the chat format’s first user message', () => {
    const body = {
      tools: [{ type: 'function', function: { name: 'f' } }],
      messages: [
        { role: 'system', content: 'Be helpful.' },
        { role: 'user', content: [{ type: 'text', text: 'Summarise the report' }] },
      ],
    };
    expect(requestContext('openai-chat', body)).toEqual({ title: 'Summarise the report' });
  });
});
