/**
 * Regenerates src/models/data/models.json, the built-in table of model limits and prices, from models.dev data.
 *
 *   curl -sO https://models.dev/api.json && npx tsx scripts/generate-models.ts api.json [--date YYYY-MM-DD]
 *
 * The source file (required: the repository does not keep one) may be either of two shapes:
 * - a derived listing (`{ _source, models: { "provider/model": { context, input, output, cost, reasoning } } }`);
 * - models.dev's own https://models.dev/api.json
 *   (`{ provider: { models: { model: { limit: { context, input, output }, cost, reasoning } } } }`).
 *
 * One row per provider/model: `[provider, model, context, input, output, reasoning, price]`.
 * - Limits are token counts, `null` where models.dev gives no figure (a 0 counts as no figure: models.dev uses it
 *   for image models without a window).
 * - `reasoning` is models.dev's flag (`true`/`false`), `null` when the listing does not state it.
 * - `price` is `null` or `[input, output, cacheRead, cacheWrite, reasoning, tiers]` in USD per million tokens, trailing
 *   `null`s left out; `tiers` is `[[aboveTokens, input, output, cacheRead, cacheWrite, reasoning], …]` (trailing
 *   `null`s left out), ascending. A tier's prices apply to a whole request whose prompt exceeds `aboveTokens`
 *   (models.dev `tier.size`; see docs/rules.md "Cost"). Other cost fields (audio, per-request) are not kept.
 * Rows with neither a window, a price nor a reasoning flag are dropped: they say nothing barometer uses.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

type Limit = number | null;
type Usd = number | null;
type Tier = [
  aboveTokens: number,
  input: number,
  output: number,
  cacheRead?: Usd,
  cacheWrite?: Usd,
  reasoning?: Usd,
];
type Price = [
  input: number,
  output: number,
  cacheRead?: Usd,
  cacheWrite?: Usd,
  reasoning?: Usd,
  tiers?: Tier[],
];
type Row = [
  provider: string,
  model: string,
  context: Limit,
  input: Limit,
  output: Limit,
  reasoning: boolean | null,
  price: Price | null,
];

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = resolve(repositoryRoot, 'src/models/data/models.json');

/** Prices dropped because they could not be read without guessing, by reason (reported at the end). */
const droppedPrices = new Map<string, number>();

function drop(reason: string): null {
  droppedPrices.set(reason, (droppedPrices.get(reason) ?? 0) + 1);
  return null;
}

function limit(value: unknown): Limit {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function usd(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function withoutTrailingNulls<T extends unknown[]>(values: T): T {
  let end = values.length;
  while (end > 0 && (values[end - 1] === null || values[end - 1] === undefined)) end--;
  return values.slice(0, end) as T;
}

/** One models.dev tier as a row, or undefined when it cannot be read as documented. */
function tier(entry: unknown): Tier | undefined {
  if (!isRecord(entry) || !isRecord(entry.tier)) return undefined;
  const { type, size } = entry.tier;
  // models.dev's schema knows one tier type, 'context' (its default); any other would have unknown semantics.
  if (type !== undefined && type !== 'context') return undefined;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) return undefined;
  const input = usd(entry.input);
  const output = usd(entry.output);
  if (input === undefined || output === undefined) return undefined;
  return withoutTrailingNulls<Tier>([
    size,
    input,
    output,
    usd(entry.cache_read) ?? null,
    usd(entry.cache_write) ?? null,
    usd(entry.reasoning) ?? null,
  ]);
}

/**
 * A models.dev `cost` as a row's price, or null. A price that cannot be read whole is dropped, never half-kept:
 * without a tier, a long prompt would be priced at the base rate, which is a guess.
 */
function price(cost: unknown): Price | null {
  if (cost === undefined) return null;
  if (!isRecord(cost)) return drop('cost is not an object');
  const input = usd(cost.input);
  const output = usd(cost.output);
  if (input === undefined || output === undefined) return drop('input or output price missing');
  let tiers: Tier[] | undefined;
  if (cost.tiers !== undefined) {
    if (!Array.isArray(cost.tiers)) return drop('tiers is not an array');
    tiers = [];
    for (const entry of cost.tiers) {
      const read = tier(entry);
      if (!read) return drop('a tier cannot be read');
      tiers.push(read);
    }
    tiers.sort((a, b) => a[0] - b[0]);
    if (new Set(tiers.map((entry) => entry[0])).size !== tiers.length) return drop('two tiers share a size');
    if (tiers.length === 0) tiers = undefined;
  } else if (cost.context_over_200k !== undefined) {
    // The legacy field of older api.json files: its threshold may be above 200K (models.dev's generate.ts says
    // so), and only `tiers` carries the exact one.
    return drop('only the legacy context_over_200k, no tiers');
  }
  return withoutTrailingNulls<Price>([
    input,
    output,
    usd(cost.cache_read) ?? null,
    usd(cost.cache_write) ?? null,
    usd(cost.reasoning) ?? null,
    ...(tiers ? [tiers] : []),
  ] as Price);
}

function reasoning(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
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
      reasoning(entry.reasoning),
      price(entry.cost),
    ]);
  }
  return rows;
}

function rowsFromApi(providers: Record<string, unknown>): Row[] {
  const rows: Row[] = [];
  for (const [provider, entry] of Object.entries(providers)) {
    if (!isRecord(entry) || !isRecord(entry.models)) continue;
    for (const [model, details] of Object.entries(entry.models)) {
      if (!isRecord(details)) continue;
      const limits = isRecord(details.limit) ? details.limit : {};
      rows.push([
        provider,
        model,
        limit(limits.context),
        limit(limits.input),
        limit(limits.output),
        reasoning(details.reasoning),
        price(details.cost),
      ]);
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
  const sourcePath = args.find((arg, index) => !arg.startsWith('--') && index !== dateFlag + 1);
  if (sourcePath === undefined) {
    process.stderr.write(
      'usage: npx tsx scripts/generate-models.ts SOURCE.json [--date YYYY-MM-DD]\n' +
        '  SOURCE.json: models.dev data, e.g. curl -sO https://models.dev/api.json\n',
    );
    process.exit(2);
  }
  const parsed: unknown = JSON.parse(readFileSync(sourcePath, 'utf8'));
  if (!isRecord(parsed)) throw new Error(`${sourcePath}: expected a JSON object`);

  const derived = isRecord(parsed.models) && typeof parsed._source === 'string';
  const all = derived ? rowsFromDerived(parsed.models as Record<string, unknown>) : rowsFromApi(parsed);
  const rows = all
    .filter(
      ([, , context, input, , flag, cost]) =>
        context !== null || input !== null || flag !== null || cost !== null,
    )
    .sort((a, b) => compare(a[0], b[0]) || compare(a[1], b[1]));

  const header = {
    source: derived ? parsed._source : 'https://models.dev/api.json',
    licence: 'MIT, models.dev by anomalyco / SST',
    generated: date,
    columns: ['provider', 'model', 'context', 'input', 'output', 'reasoning', 'price'],
    price: {
      unit: 'USD per million tokens',
      columns: ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning', 'tiers'],
      tierColumns: ['aboveTokens', 'input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'],
      note: 'trailing nulls left out; a tier prices a whole request whose prompt exceeds aboveTokens',
    },
  };
  // One row per line: compact, yet a regeneration shows up as a readable diff.
  const body = rows.map((row) => `    ${JSON.stringify(row)}`).join(',\n');
  const headerJson = JSON.stringify(header, null, 2).replace(/\n}$/, '');
  writeFileSync(target, `${headerJson},\n  "rows": [\n${body}\n  ]\n}\n`);
  const priced = rows.filter((row) => row[6] !== null).length;
  const windowless = rows.filter((row) => row[2] === null && row[3] === null).length;
  console.log(
    `wrote ${rows.length} rows (${priced} with a price, ${windowless} without a window) of ${all.length} to ${target} from ${sourcePath}`,
  );
  for (const [reason, count] of droppedPrices) console.log(`  price dropped (${reason}): ${count}`);
}

main();
