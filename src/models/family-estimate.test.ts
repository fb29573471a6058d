import { describe, expect, it } from 'vitest';
import data from './data/models.json' with { type: 'json' };
import { familyEstimate } from './family-estimate.js';
import { findModel } from './find-model.js';

type Row = [string, string, number | null, number | null, number | null, boolean | null, unknown];
const rows = data.rows as unknown as Row[];

/**
 * The newest model a provider lists whose id matches `shape` (one capture per version number), read straight from
 * the table: an independent reading of "the newest known model of the family" for the checks below.
 */
function newestListed(provider: string, shape: RegExp): string {
  let best: { id: string; version: number[] } | undefined;
  for (const [owner, model] of rows) {
    const match = owner === provider ? shape.exec(model) : null;
    if (!match) continue;
    const version = match.slice(1).map((part) => (part === undefined ? -1 : Number(part)));
    const difference = best ? version.map((value, index) => value - best!.version[index]!).find(Boolean) : 1;
    if ((difference ?? 0) > 0) best = { id: model, version };
  }
  return best!.id;
}

describe('familyEstimate: a model the registry does not list, from its family', () => {
  it("estimates Claude Code 2.1.328's default claude-opus-5-5 from the newest claude-opus-* Anthropic lists", () => {
    expect(findModel('claude-opus-5-5')).toBeUndefined();
    const newest = newestListed('anthropic', /^claude-opus-(\d{1,2})(?:-(\d{1,2}))?$/);
    // The table of 2026-11-22 lists claude-opus-4-0 … claude-opus-4-8 under anthropic.
    expect(newest).toBe('claude-opus-4-8');
    const estimate = familyEstimate('claude-opus-5-5');
    expect(estimate).toMatchObject({ from: newest, family: 'claude-opus-*', widened: false });
    // Its figures are that model's, price included (Anthropic's listing: 5 / 25 per million).
    expect(estimate?.limits).toBe(findModel(newest));
    expect(estimate?.limits.price).toMatchObject({ input: 5, output: 25 });
    expect(estimate?.rule).toContain(
      'claude-opus-4-8 is the newest known claude-opus-* model listed by anthropic',
    );
  });

  it('estimates gpt-5.5-codex from the newest gpt-*-codex OpenAI lists, not a -codex-max or -codex-spark', () => {
    const newest = newestListed('openai', /^gpt-(\d+)(?:\.(\d+))?-codex$/);
    expect(newest).toBe('gpt-5.3-codex');
    expect(familyEstimate('gpt-5.5-codex')).toMatchObject({ from: newest, family: 'gpt-*-codex' });
    expect(familyEstimate('gpt-5.6-codex-max')?.from).toBe(
      newestListed('openai', /^gpt-(\d+)(?:\.(\d+))?-codex-max$/),
    );
  });

  it("widens a family nobody lists: Codex 0.169's gpt-5.6-sol from the newest gpt-*", () => {
    const estimate = familyEstimate('gpt-5.6-sol');
    expect(estimate).toMatchObject({
      from: newestListed('openai', /^gpt-(\d+)(?:\.(\d+))?$/),
      family: 'gpt-*',
      widened: true,
    });
    expect(estimate?.rule).toContain('no model is known, so of the wider family gpt-*');
  });

  it("resolves Claude Code's aliases to their line's newest model", () => {
    expect(familyEstimate('opus')?.from).toBe(
      newestListed('anthropic', /^claude-opus-(\d{1,2})(?:-(\d{1,2}))?$/),
    );
    expect(familyEstimate('sonnet[1m]')?.from).toBe(
      newestListed('anthropic', /^claude-sonnet-(\d{1,2})(?:-(\d{1,2}))?$/),
    );
  });

  it('keeps to the provider the id names: its own listing of the newest model, with its own price', () => {
    const estimate = familyEstimate('openrouter/anthropic/claude-opus-5-5');
    expect(estimate?.from).toBe('openrouter/anthropic/claude-opus-4.8');
    expect(estimate?.limits.priceId).toBe('openrouter/anthropic/claude-opus-4.8');
  });

  it('gives nothing for an id of no family, or of a family with no known model', () => {
    for (const id of ['o9', 'my-local-model', 'claude-foo-2', 'acme-7'])
      expect(familyEstimate(id), id).toBeUndefined();
  });
});
