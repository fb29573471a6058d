import data from './data/models.json' with { type: 'json' };
import { canonicalModelId } from './model-id.js';
import { familyPatterns, type ModelRow, rowBareModel, rowFamily } from './model-table-text.js';

/**
 * The built-in model table (data/models.json, models.dev's data). The lean CLI entries are bundled with another
 * module in place of this one, which holds the same rows as text by family (`model-table-text.ts`,
 * `scripts/bundle-lean-entries.ts`): both export `MODEL_TABLE_INFO`, `familyRows` and
 * `familyMembers`.
 */

const rows = data.rows as unknown as readonly ModelRow[];

/** Where the built-in table comes from, for `--version`-style reports and docs. */
export const MODEL_TABLE_INFO = Object.freeze({
  source: data.source,
  licence: data.licence,
  generated: data.generated,
  rows: rows.length,
});

/** The rows of one model family (`rowFamily`), in table order. */
export function familyRows(family: string): ModelRow[] {
  const found: ModelRow[] = [];
  for (const row of rows) {
    const bare = rowBareModel(row);
    // A cheap test first: a row of the family starts with the family's name (`rowFamily` of the row).
    if (bare.startsWith(family) && canonicalModelId(bare) === family) found.push(row);
  }
  return found;
}

let patterns: Map<string, string[]> | undefined;

/**
 * The families (`rowFamily`) whose family pattern (`modelFamily`) is `pattern`, in table order: the models a family
 * estimate chooses among. Indexed on first use: only a model the registry does not know asks.
 */
export function familyMembers(pattern: string): readonly string[] {
  patterns ??= familyPatterns(new Set(rows.map(rowFamily)));
  return patterns.get(pattern) ?? [];
}

/** The table in figures: listings (provider × model), distinct models, model families and providers. */
export function tableCounts(): { listings: number; models: number; families: number; providers: number } {
  const families = new Set(rows.map(rowFamily));
  patterns ??= familyPatterns(families);
  return {
    listings: rows.length,
    models: new Set(rows.map(rowBareModel)).size,
    families: patterns.size,
    providers: new Set(rows.map((row) => row[0])).size,
  };
}
