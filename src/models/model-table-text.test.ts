import { describe, expect, it } from 'vitest';
import data from './data/models.json' with { type: 'json' };
import { familyRows } from './model-table.js';
import { familyRowsFromText, familyTableText, type ModelRow, rowFamily } from './model-table-text.js';

const rows = data.rows as unknown as ModelRow[];

describe('the model table as text by family (what the lean bundles read)', () => {
  const text = familyTableText(rows);

  it('gives every family exactly the rows the JSON table gives it, in table order', () => {
    const families = new Set(rows.map(rowFamily));
    // Snapshots and -latest ids share their family's line: fewer families than rows.
    expect(families.size).toBeGreaterThan(1000);
    expect(families.size).toBeLessThan(rows.length);
    let seen = 0;
    for (const family of families) {
      const fromText = familyRowsFromText(text, family);
      expect(fromText).toEqual(familyRows(family));
      seen += fromText.length;
    }
    // Every row is on exactly one family's line.
    expect(seen).toBe(rows.length);
  });

  it('keeps snapshots with their family: claude-sonnet-4 holds the dated claude-sonnet-4-20250514', () => {
    const models = familyRowsFromText(text, 'claude-sonnet-4').map((row) => `${row[0]}/${row[1]}`);
    expect(models).toContain('anthropic/claude-sonnet-4-20250514');
    expect(models.every((model) => /claude-sonnet-4(?:-\d{8}|@\d{8}|-latest)?$/.test(model))).toBe(true);
  });

  it('finds nothing for a family the table lacks, nor for a prefix or a key that would cross lines', () => {
    expect(familyRowsFromText(text, 'no-such-model')).toEqual([]);
    expect(familyRowsFromText(text, 'claude-sonnet')).toEqual(familyRows('claude-sonnet'));
    expect(familyRowsFromText(text, 'claude-sonnet-4\t[')).toEqual([]);
    expect(familyRowsFromText(text, '')).toEqual([]);
  });
});
