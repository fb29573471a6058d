/**
 * Regenerates src/models/data/models.json, the built-in table of model limits, from models.dev data.
 *
 *   npx tsx scripts/generate-models.ts [source.json] [--date YYYY-MM-DD]
 *
 * The source may be either of two shapes:
 * - the derived file kept in the shared traces (`{ _source, models: { "provider/model": { context, input, output } } }`),
 *   the default (../shared/traces/registries/models_dev_limits.json relative to the repository root);
 * - models.dev's own https://models.dev/api.json (`{ provider: { models: { model: { limit: { context, input, output } } } } }`).
 *
 * Only the limits are kept, one row per provider/model: `[provider, model, context, input, output]`, with `null`
 * where models.dev gives no figure (a 0 counts as no figure: models.dev uses it for image models without a window).
 * Rows without a window (neither context nor input) are dropped: an output limit alone cannot size a context.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

type Limit = number | null;
type Row = [provider: string, model: string, context: Limit, input: Limit, output: Limit];

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const defaultSource = resolve(repositoryRoot, '../shared/traces/registries/models_dev_limits.json');
const target = resolve(repositoryRoot, 'src/models/data/models.json');

function limit(value: unknown): Limit {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function rowsFromDerived(models: Record<string, unknown>): Row[] {
  const rows: Row[] = [];
  for (const [key, entry] of Object.entries(models)) {
    const slash = key.indexOf('/');
    if (slash <= 0 || !isRecord(entry)) continue;
    rows.push([
      key.slice(0, slash),
      key.slice(slash + 1),
      limit(entry.context),
      limit(entry.input),
      limit(entry.output),
    ]);
  }
  return rows;
}

function rowsFromApi(providers: Record<string, unknown>): Row[] {
  const rows: Row[] = [];
  for (const [provider, entry] of Object.entries(providers)) {
    if (!isRecord(entry) || !isRecord(entry.models)) continue;
    for (const [model, details] of Object.entries(entry.models)) {
      const limits = isRecord(details) && isRecord(details.limit) ? details.limit : {};
      rows.push([provider, model, limit(limits.context), limit(limits.input), limit(limits.output)]);
    }
  }
  return rows;
}

// Code-unit order, not locale order, so the file is byte-identical wherever it is regenerated.
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function main(): void {
  const args = process.argv.slice(2);
  const dateFlag = args.indexOf('--date');
  const date = dateFlag >= 0 ? args[dateFlag + 1] : new Date().toISOString().slice(0, 10);
  const sourcePath =
    args.find((arg, index) => !arg.startsWith('--') && index !== dateFlag + 1) ?? defaultSource;
  const parsed: unknown = JSON.parse(readFileSync(sourcePath, 'utf8'));
  if (!isRecord(parsed)) throw new Error(`${sourcePath}: expected a JSON object`);

  const derived = isRecord(parsed.models) && typeof parsed._source === 'string';
  const rows = (derived ? rowsFromDerived(parsed.models as Record<string, unknown>) : rowsFromApi(parsed))
    .filter(([, , context, input]) => context !== null || input !== null)
    .sort((a, b) => compare(a[0], b[0]) || compare(a[1], b[1]));

  const header = {
    source: derived ? parsed._source : 'https://models.dev/api.json',
    licence: 'MIT, models.dev by anomalyco / SST',
    generated: date,
    columns: ['provider', 'model', 'context', 'input', 'output'],
  };
  // One row per line: compact, yet a regeneration shows up as a readable diff.
  const body = rows.map((row) => `    ${JSON.stringify(row)}`).join(',\n');
  const headerJson = JSON.stringify(header, null, 2).replace(/\n}$/, '');
  writeFileSync(target, `${headerJson},\n  "rows": [\n${body}\n  ]\n}\n`);
  console.log(`wrote ${rows.length} rows to ${target} from ${sourcePath}`);
}

main();
