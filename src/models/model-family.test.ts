import { describe, expect, it } from 'vitest';
import { familyBareId, modelFamily, newestFirst } from './model-family.js';

const pattern = (id: string) => modelFamily(id)?.pattern;

describe('modelFamily: the family is the id with each version replaced by *', () => {
  it('reads Claude ids, whose versions are hyphenated (claude-opus-4-8, claude-3-5-sonnet)', () => {
    expect(modelFamily('claude-opus-5-5')).toEqual({
      pattern: 'claude-opus-*',
      versions: [[5, 5]],
      wider: [],
    });
    expect(pattern('claude-opus-4')).toBe('claude-opus-*');
    expect(pattern('claude-3-5-sonnet')).toBe('claude-*-sonnet');
    expect(modelFamily('claude-3-5-sonnet')?.versions).toEqual([[3, 5]]);
  });

  it('reads OpenAI and Gemini ids, whose versions are dotted (gpt-5.3-codex, gemini-2.5-pro)', () => {
    expect(modelFamily('gpt-5.5-codex')).toMatchObject({ pattern: 'gpt-*-codex', versions: [[5, 5]] });
    expect(pattern('gpt-5-codex')).toBe('gpt-*-codex');
    expect(pattern('gpt-5-3-codex')).toBe('gpt-*-codex');
    expect(modelFamily('gemini-2.5-flash-lite')).toMatchObject({ pattern: 'gemini-*-flash-lite' });
  });

  it('removes what is not the model: decorations, provider path, deployment prefix, snapshot and Bedrock version', () => {
    for (const id of [
      'Claude-Opus-5-5[1m]',
      'anthropic/claude-opus-5-5',
      'openrouter/anthropic/claude-opus-5-5',
      'us.anthropic.claude-opus-5-5-20261101-v1:0',
      'claude-opus-5-5@20261101',
      'claude-opus-5-5-latest',
    ]) {
      expect(modelFamily(id), id).toMatchObject({ pattern: 'claude-opus-*', versions: [[5, 5]] });
    }
    expect(familyBareId('global.openai.gpt-5.6-luna')).toBe('gpt-5.6-luna');
  });

  it('lists the wider families, qualifiers after the last version dropped one at a time', () => {
    expect(modelFamily('gpt-5.6-codex-max')?.wider).toEqual(['gpt-*-codex', 'gpt-*']);
    expect(modelFamily('gpt-5.6-sol')?.wider).toEqual(['gpt-*']);
    // Nothing after the version: nothing wider (claude-opus-* never widens to claude-*).
    expect(modelFamily('claude-opus-5-5')?.wider).toEqual([]);
    // A family keeps a name: 5-turbo would widen to the bare version, which is no family.
    expect(modelFamily('5-turbo')?.wider).toEqual([]);
  });

  it("maps Claude Code's aliases of one line to that line, and no other alias", () => {
    expect(modelFamily('opus')).toEqual({ pattern: 'claude-opus-*', versions: [], wider: [], alias: 'opus' });
    expect(modelFamily('sonnet[1m]')).toMatchObject({ pattern: 'claude-sonnet-*', alias: 'sonnet' });
    expect(pattern('haiku')).toBe('claude-haiku-*');
    expect(pattern('fable')).toBe('claude-fable-*');
    // Account- or mode-dependent: no one family.
    for (const alias of ['default', 'best', 'opusplan']) expect(modelFamily(alias), alias).toBeUndefined();
  });

  it('gives no family to an id without a version, or with nothing but numbers', () => {
    for (const id of ['o3', 'gpt-4o', 'my-local-model', 'claude-opus-latest', '2025', '']) {
      expect(modelFamily(id), id).toBeUndefined();
    }
  });
});

describe('newestFirst', () => {
  const order = (ids: string[]) =>
    ids
      .map((id) => ({ id, family: modelFamily(id)! }))
      .sort((a, b) => newestFirst(a.family, b.family))
      .map(({ id }) => id);

  it('orders by version number by number, a missing number below any, 10 above 9', () => {
    expect(
      order(['claude-opus-4-1', 'claude-opus-4', 'claude-opus-4-10', 'claude-opus-5', 'claude-opus-4-9']),
    ).toEqual(['claude-opus-5', 'claude-opus-4-10', 'claude-opus-4-9', 'claude-opus-4-1', 'claude-opus-4']);
    expect(order(['gpt-5-codex', 'gpt-5.3-codex', 'gpt-5.1-codex'])).toEqual([
      'gpt-5.3-codex',
      'gpt-5.1-codex',
      'gpt-5-codex',
    ]);
  });

  it('calls one version written two ways a tie', () => {
    expect(newestFirst(modelFamily('gpt-5.1')!, modelFamily('gpt-5-1')!)).toBe(0);
  });
});
