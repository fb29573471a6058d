import { modelFamily } from './model-family.js';
import { canonicalModelId } from './model-id.js';

/**
 * The model table (data/models.json) as text keyed by model family, for the lean CLI entries: a status line looks
 * up one model, and parsing the five thousand rows of the table to index one family of them cost it more than
 * anything else it did (docs/decisions/080). `scripts/bundle-lean-entries.ts` writes the table in this form beside
 * those bundles (`dist/cli/model-families/<n>.txt`, a family's rows in one of 32 files), and they read the file of
 * the family they look up instead of the JSON module (`model-table.ts`).
 */

type Usd = number | null;
type TierRow = readonly [
  aboveTokens: number,
  input: number,
  output: number,
  cacheRead?: Usd,
  cacheWrite?: Usd,
  reasoning?: Usd,
];
type PriceRow = readonly [
  input: number,
  output: number,
  cacheRead?: Usd,
  cacheWrite?: Usd,
  reasoning?: Usd,
  tiers?: readonly TierRow[],
];
/** A row of data/models.json (scripts/generate-models.ts writes it; trailing nulls of a price are left out). */
export type ModelRow = readonly [
  provider: string,
  model: string,
  context: number | null,
  input: number | null,
  output: number | null,
  reasoning: boolean | null,
  price: PriceRow | null,
];

/** The bare id of a row's model, lower-cased: the last path segment (`openrouter`'s `anthropic/claude-…`). */
export function rowBareModel(row: ModelRow): string {
  const name = row[1];
  return name.slice(name.lastIndexOf('/') + 1).toLowerCase();
}

/** The family a row belongs to: its bare id without a snapshot suffix, the key `findModel` indexes by. */
export function rowFamily(row: ModelRow): string {
  return canonicalModelId(rowBareModel(row));
}

/** How many files the table is split into: each about 13 KB, so that a look-up reads one small file. */
export const FAMILY_SHARDS = 32;

/** Which of the `FAMILY_SHARDS` files holds a family: its FNV-1a 32-bit hash, modulo their number. */
export function familyShard(family: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < family.length; index++) {
    hash = Math.imul(hash ^ family.charCodeAt(index), 0x01000193);
  }
  return (hash >>> 0) % FAMILY_SHARDS;
}

/**
 * The rows as `FAMILY_SHARDS` texts, each family in the one `familyShard` names, a line per family,
 * `\n<family>\t<JSON array of its rows>`, each family's rows in table order. A family (a lower-cased model id) holds
 * neither a tab nor a newline, and JSON text holds no raw newline.
 */
export function familyTableTexts(rows: readonly ModelRow[]): string[] {
  const families = new Map<string, ModelRow[]>();
  for (const row of rows) {
    const family = rowFamily(row);
    const list = families.get(family);
    if (list) list.push(row);
    else families.set(family, [row]);
  }
  const texts = Array.from({ length: FAMILY_SHARDS }, () => '');
  for (const [family, list] of families) texts[familyShard(family)] += `\n${family}\t${JSON.stringify(list)}`;
  for (const [pattern, members] of familyPatterns(families.keys()))
    texts[familyShard(pattern)] += `\n${pattern}\t${JSON.stringify(members)}`;
  return texts.map((text) => `${text}\n`);
}

/**
 * The families of each family pattern (`modelFamily`'s `claude-opus-*`), in table order: what a family estimate
 * looks among. A pattern holds a `*`, which no family does, so the two kinds of line never share a key.
 */
export function familyPatterns(families: Iterable<string>): Map<string, string[]> {
  const patterns = new Map<string, string[]>();
  for (const family of families) {
    const pattern = modelFamily(family)?.pattern;
    if (pattern === undefined) continue;
    const members = patterns.get(pattern);
    if (members) members.push(family);
    else patterns.set(pattern, [family]);
  }
  return patterns;
}

function lineOf(text: string, key: string): unknown[] {
  if (key.includes('\n') || key.includes('\t')) return [];
  const marker = `\n${key}\t`;
  const at = text.indexOf(marker);
  if (at === -1) return [];
  const start = at + marker.length;
  return JSON.parse(text.slice(start, text.indexOf('\n', start))) as unknown[];
}

/** One family's rows from the text of its shard: a string search and the parse of that one line. */
export function familyRowsFromText(text: string, family: string): ModelRow[] {
  return family.includes('*') ? [] : (lineOf(text, family) as ModelRow[]);
}

/** The families of one family pattern (`claude-opus-*`) from the text of its shard. */
export function familyMembersFromText(text: string, pattern: string): string[] {
  return pattern.includes('*') ? (lineOf(text, pattern) as string[]) : [];
}
