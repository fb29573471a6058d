import { describe, expect, it } from 'vitest';
import data from './data/models.json' with { type: 'json' };
import { familyMembers, familyRows } from './model-table.js';
import {
  FAMILY_SHARDS,
  familyMembersFromText,
  familyRowsFromText,
  familyShard,
  familyTableTexts,
  type ModelRow,
  rowFamily,
} from './model-table-text.js';

const rows = data.rows as unknown as ModelRow[];

describe('the model table as text by family (what the lean bundles read)', () => {
  const texts = familyTableTexts(rows);
  const rowsOf = (family: string) => familyRowsFromText(texts[familyShard(family)]!, family);

  it('gives every family exactly the rows the JSON table gives it, in table order', () => {
    const families = new Set(rows.map(rowFamily));
    // Snapshots and -latest ids share their family's line: fewer families than rows.
    expect(families.size).toBeGreaterThan(1000);
    expect(families.size).toBeLessThan(rows.length);
    let seen = 0;
    for (const family of families) {
      const fromText = rowsOf(family);
      expect(fromText).toEqual(familyRows(family));
      seen += fromText.length;
    }
    // Every row is on exactly one family's line.
    expect(seen).toBe(rows.length);
  });

  it('spreads the families over the files: none holds more than twice its share of the table', () => {
    expect(texts).toHaveLength(FAMILY_SHARDS);
    const total = texts.reduce((sum, text) => sum + text.length, 0);
    for (const text of texts) expect(text.length).toBeLessThan((2 * total) / FAMILY_SHARDS);
    // Every family's line is in its own file only.
    for (const [shard, text] of texts.entries()) {
      for (const line of text.split('\n').filter(Boolean))
        expect(familyShard(line.split('\t')[0]!)).toBe(shard);
    }
  });

  it('keeps snapshots with their family: claude-sonnet-4 holds the dated claude-sonnet-4-20250514', () => {
    const models = rowsOf('claude-sonnet-4').map((row) => `${row[0]}/${row[1]}`);
    expect(models).toContain('anthropic/claude-sonnet-4-20250514');
    expect(models.every((model) => /claude-sonnet-4(?:-\d{8}|@\d{8}|-latest)?$/.test(model))).toBe(true);
  });

  it('finds nothing for a family the table lacks, nor for a prefix or a key that would cross lines', () => {
    expect(rowsOf('no-such-model')).toEqual([]);
    expect(rowsOf('claude-sonnet')).toEqual(familyRows('claude-sonnet'));
    const sonnet = texts[familyShard('claude-sonnet-4')]!;
    expect(familyRowsFromText(sonnet, 'claude-sonnet-4\t[')).toEqual([]);
    expect(familyRowsFromText(sonnet, '')).toEqual([]);
  });

  it('gives every family pattern the families the JSON table gives it, on a line of its own', () => {
    const membersOf = (pattern: string) => familyMembersFromText(texts[familyShard(pattern)]!, pattern);
    const opus = membersOf('claude-opus-*');
    expect(opus).toEqual(familyMembers('claude-opus-*'));
    expect(opus).toEqual(
      expect.arrayContaining(['claude-opus-4-8', 'claude-opus-4', 'anthropic.claude-opus-4-8']),
    );
    expect(membersOf('gpt-*-codex')).toEqual(familyMembers('gpt-*-codex'));
    // A pattern is never read as a family, nor a family as a pattern.
    expect(familyRowsFromText(texts[familyShard('claude-opus-*')]!, 'claude-opus-*')).toEqual([]);
    expect(familyMembersFromText(texts[familyShard('claude-opus-4')]!, 'claude-opus-4')).toEqual([]);
    expect(membersOf('no-such-*')).toEqual([]);
  });
});
