import { describe, expect, it } from 'vitest';
import { projectOf, requestExcerpt, TITLE_MAX_CHARS, userRequestText } from './session-title.js';

describe('projectOf', () => {
  it('names a project by the last two folders of its path, trailing separators ignored', () => {
    expect(projectOf('/home/me/work/barometer')).toBe('work/barometer');
    expect(projectOf('/home/me/work/barometer/')).toBe('work/barometer');
    expect(projectOf('C:\\Users\\me\\app')).toBe('me/app');
    expect(projectOf('/srv')).toBe('srv');
    expect(projectOf('/')).toBe('/');
    expect(projectOf('')).toBeUndefined();
  });
});

describe('requestExcerpt', () => {
  it('leaves out the blocks Claude Code and Codex add to a user turn', () => {
    // As Claude Code 2.1.328 sends its first user turn's text, and Codex 0.169 its environment turn.
    expect(
      requestExcerpt(
        '<system-reminder>\nAttribution for git commits…\n</system-reminder>\nFix the failing login test',
      ),
    ).toBe('Fix the failing login test');
    expect(
      requestExcerpt(
        '<environment_context>\n  <cwd>/tmp/x</cwd>\n  <shell>bash</shell>\n</environment_context>',
      ),
    ).toBeUndefined();
    expect(
      requestExcerpt('# AGENTS.md instructions for /tmp/x\n\n<INSTRUCTIONS>be terse</INSTRUCTIONS>'),
    ).toBe(undefined);
    expect(userRequestText('<command-name>/review</command-name>\n<command-args>PR 12</command-args>')).toBe(
      '/review PR 12',
    );
  });

  it('keeps one line, cut at a word boundary with an ellipsis', () => {
    expect(requestExcerpt('  Rename the\n\nconfig   loader  ')).toBe('Rename the config loader');
    const long = `${'word '.repeat(60)}end`;
    const excerpt = requestExcerpt(long)!;
    expect(excerpt.endsWith('…')).toBe(true);
    expect([...excerpt].length).toBeLessThanOrEqual(TITLE_MAX_CHARS);
    expect(excerpt.slice(0, -1).endsWith('word')).toBe(true);
    // Characters, not UTF-16 units: a request in Chinese is cut at the same length.
    expect([...requestExcerpt('幫'.repeat(300))!].length).toBe(TITLE_MAX_CHARS);
  });
});
