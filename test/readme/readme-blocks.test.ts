import { describe, expect, it } from 'vitest';
import { firstMissingLine, readmeBlocks } from './readme-blocks.js';

describe('readmeBlocks', () => {
  it('reads terminal sessions, scripts and the directive above a block', () => {
    const markdown = [
      '<!-- readme-test: background "ready" -->',
      '```sh',
      'npx barometer watch',
      '```',
      '',
      '```sh',
      '$ echo one',
      'one',
      '$ echo two',
      '```',
    ].join('\n');
    expect(readmeBlocks(markdown)).toEqual([
      {
        line: 2,
        directive: { kind: 'background', readyText: 'ready' },
        commands: [{ command: 'npx barometer watch', expected: [] }],
      },
      {
        line: 6,
        directive: { kind: 'run' },
        commands: [
          { command: 'echo one', expected: ['one'] },
          { command: 'echo two', expected: [] },
        ],
      },
    ]);
  });

  it('refuses an unknown directive and a continued line, which it could not check', () => {
    expect(() => readmeBlocks('<!-- readme-test: later -->\n```sh\nls\n```')).toThrow(
      /unknown readme-test directive/,
    );
    expect(() => readmeBlocks('```sh\nls \\\n  -l\n```')).toThrow(/continued with/);
  });
});

describe('firstMissingLine', () => {
  it('matches lines in order, with … standing for any text or any lines', () => {
    const output = 'head\nmiddle 1\nmiddle 2\nCost: $0.76 → $0.60\ntail\n';
    expect(firstMissingLine(output, ['head', '…', 'Cost: … → $0.60', 'tail'])).toBeNull();
  });

  it('names the first line the output does not show', () => {
    expect(firstMissingLine('head\nother\n', ['head', 'tail'])).toBe('tail');
  });

  it('does not skip printed lines where the README shows no …', () => {
    expect(firstMissingLine('head\nsurprise\ntail\n', ['head', 'tail'])).toBe('tail');
  });

  it('takes $ and other regular-expression characters literally', () => {
    expect(firstMissingLine('cost $0.76 (x)\n', ['cost $0.76 (x)'])).toBeNull();
    expect(firstMissingLine('cost 0176 (x)\n', ['cost 0.76 (x)'])).toBe('cost 0.76 (x)');
  });
});
