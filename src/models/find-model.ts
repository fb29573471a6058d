import { canonicalModelId, snapshotRank, splitModelId } from './model-id.js';
import type { ModelPrice, ModelPriceTier } from './model-price.js';
import { familyRows, MODEL_TABLE_INFO } from './model-table.js';
import { type ModelRow, rowBareModel } from './model-table-text.js';

/**
 * How a look-up found its window (or, for a model no listing gives a window, the listing it returns):
 * - `exact`: the registry lists this id (for a bare id, under its first-party provider);
 * - `alias`: a snapshot of the same family under the same provider (`-latest`, a dated snapshot, or the reverse);
 * - `consensus`: the first-party provider lists no window, so the window most providers list is used.
 */
export type ModelMatch = 'exact' | 'alias' | 'consensus';

/** A model's listed limits, price and reasoning flag, as the registry gives them (maxima, not an agent's effective window). */
export interface ModelLimits {
  /** The registry id the figures come from (`provider/model`), or the bare model id for a consensus. */
  readonly id: string;
  readonly provider: string | undefined;
  readonly model: string;
  /** Total context window in tokens (prompt and output together, as the provider lists it). */
  readonly contextLength?: number;
  /** Maximum prompt tokens, where the provider lists one separately (OpenAI's GPT-5 family: 272,000 of 400,000). */
  readonly inputLength?: number;
  readonly maxOutput?: number;
  readonly match: ModelMatch;
  /** For a consensus: how many listings gave the chosen window, out of how many listings had a window. */
  readonly agreement?: { readonly agreeing: number; readonly listings: number };
  /**
   * The price (USD per million tokens) of the listing the id resolves to by an exact or alias match: under the
   * provider the id names, else (for a bare id) under the model's maker. Never from a consensus or another
   * provider's listing: prices are the provider's, not the model's. Absent when that listing gives none.
   */
  readonly price?: ModelPrice;
  /** The registry id the price comes from (may differ from `id` when the window came from a consensus). */
  readonly priceId?: string;
  /**
   * Whether the model reasons (models.dev `reasoning`): from the listing the price comes from, else the listing the
   * window comes from, else (consensus) the value more than half of the agreeing listings that state one give.
   */
  readonly reasoning?: boolean;
}

type MutableLimits = { -readonly [K in keyof ModelLimits]: ModelLimits[K] };

type Usd = number | null;

/** Where the built-in table comes from, for `--version`-style reports and docs. */
export const MODEL_DATA_INFO = MODEL_TABLE_INFO;

// A bare id is looked up under the provider that makes the model before any reseller's listing.
const FIRST_PARTY: ReadonlyArray<readonly [RegExp, string]> = [
  [/^claude-/, 'anthropic'],
  [/^(?:gpt-|chatgpt-|codex-|o\d|text-embedding-)/, 'openai'],
  [/^(?:gemini-|gemma-)/, 'google'],
  [/^grok-/, 'xai'],
  [/^deepseek-/, 'deepseek'],
  [/^(?:mistral-|codestral-|devstral-|magistral-|ministral-|pixtral-)/, 'mistral'],
  [/^kimi-/, 'moonshotai'],
  [/^glm-/, 'zai'],
  [/^minimax-/, 'minimax'],
  [/^command-/, 'cohere'],
];

/** The provider that makes a model, judged by its bare id, or undefined when the id names no known maker. */
export function firstPartyProvider(bareModelId: string): string | undefined {
  const lower = bareModelId.toLowerCase();
  for (const [pattern, provider] of FIRST_PARTY) if (pattern.test(lower)) return provider;
  return undefined;
}

interface Index {
  byKey: Map<string, ModelRow>;
  byProviderFamily: Map<string, ModelRow[]>;
  byBare: Map<string, ModelRow[]>;
  byBareFamily: Map<string, ModelRow[]>;
}

// Two indexes over the same table: the windows are looked up among rows that give one (as before prices were kept,
// so a listing with only a price never hides another listing's window); prices among every listing.
interface Indexes {
  windows: Index;
  listings: Index;
}

function push(map: Map<string, ModelRow[]>, key: string, row: ModelRow): void {
  const list = map.get(key);
  if (list) list.push(row);
  else map.set(key, [row]);
}

const hasWindow = (row: ModelRow) => row[2] !== null || row[3] !== null;

const FAMILY_MEMO_LIMIT = 256;
const familyIndexes = new Map<string, Indexes>();

/**
 * The indexes of one model family: every look-up of an id (by provider, snapshot, bare id or consensus) stays among
 * the rows whose bare id has the same family (snapshot suffix removed), so only those rows are indexed, on first
 * use. A one-shot process (the status line, a hook) then indexes its family's rows instead of five thousand rows:
 * about 1 ms against 25 ms here; bundled, it parses only those rows (`model-table.ts`, docs/decisions/080).
 */
function indexesFor(bare: string): Indexes {
  const family = canonicalModelId(bare);
  const known = familyIndexes.get(family);
  if (known) return known;
  const empty = (): Index => ({
    byKey: new Map(),
    byProviderFamily: new Map(),
    byBare: new Map(),
    byBareFamily: new Map(),
  });
  const built: Indexes = { windows: empty(), listings: empty() };
  const rank = new Map<ModelRow, number>();
  for (const row of familyRows(family)) {
    const rowBare = rowBareModel(row);
    const provider = row[0].toLowerCase();
    const model = row[1].toLowerCase();
    rank.set(row, snapshotRank(model));
    for (const index of hasWindow(row) ? [built.listings, built.windows] : [built.listings]) {
      index.byKey.set(`${provider}/${model}`, row);
      push(index.byProviderFamily, `${provider}/${canonicalModelId(model)}`, row);
      push(index.byBare, rowBare, row);
      push(index.byBareFamily, family, row);
    }
  }
  for (const index of [built.windows, built.listings]) {
    for (const rows of index.byProviderFamily.values()) {
      if (rows.length > 1) rows.sort((a, b) => rank.get(b)! - rank.get(a)!);
    }
  }
  if (familyIndexes.size >= FAMILY_MEMO_LIMIT) familyIndexes.clear();
  familyIndexes.set(family, built);
  return built;
}

const usd = (value: Usd | undefined) => (value === null || value === undefined ? undefined : value);

function rates(input: number, output: number, cacheRead?: Usd, cacheWrite?: Usd, reasoning?: Usd) {
  const read = usd(cacheRead);
  const write = usd(cacheWrite);
  const think = usd(reasoning);
  return {
    input,
    output,
    ...(read === undefined ? {} : { cacheRead: read }),
    ...(write === undefined ? {} : { cacheWrite: write }),
    ...(think === undefined ? {} : { reasoning: think }),
  };
}

function priceOf(row: ModelRow): ModelPrice | undefined {
  const price = row[6];
  if (!price) return undefined;
  const [input, output, cacheRead, cacheWrite, reasoning, tiers] = price;
  const base: ModelPrice = rates(input, output, cacheRead, cacheWrite, reasoning);
  if (tiers && tiers.length > 0) {
    base.tiers = tiers.map(
      ([aboveTokens, ...tier]): ModelPriceTier => Object.freeze({ aboveTokens, ...rates(...tier) }),
    );
    Object.freeze(base.tiers);
  }
  return Object.freeze(base);
}

function fromRow(row: ModelRow, match: ModelMatch): MutableLimits {
  const limits: MutableLimits = { id: `${row[0]}/${row[1]}`, provider: row[0], model: row[1], match };
  if (row[2] !== null) limits.contextLength = row[2];
  if (row[3] !== null) limits.inputLength = row[3];
  if (row[4] !== null) limits.maxOutput = row[4];
  if (row[5] !== null) limits.reasoning = row[5];
  return limits;
}

// The most frequent value; ties go to the smaller figure, so a disputed window errs towards warning early.
function mostCommon(values: ReadonlyArray<number | null>): { value: number | null; count: number } {
  const counts = new Map<number | null, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best: { value: number | null; count: number } = { value: null, count: 0 };
  for (const [value, count] of counts) {
    const smaller = (value ?? Number.POSITIVE_INFINITY) < (best.value ?? Number.POSITIVE_INFINITY);
    if (count > best.count || (count === best.count && smaller)) best = { value, count };
  }
  return best;
}

function listed(rows: readonly ModelRow[], column: 2 | 3 | 4): number[] {
  const values: number[] = [];
  for (const row of rows) if (row[column] !== null) values.push(row[column]);
  return values;
}

// A flag more than half of the listings that state one agree on; otherwise none (a split vote is no answer).
function majorityFlag(rows: readonly ModelRow[]): boolean | undefined {
  let yes = 0;
  let no = 0;
  for (const row of rows) {
    if (row[5] === true) yes++;
    else if (row[5] === false) no++;
  }
  if (yes > (yes + no) / 2) return true;
  if (no > (yes + no) / 2) return false;
  return undefined;
}

function consensus(bare: string, rows: readonly ModelRow[]): MutableLimits {
  const window = mostCommon(rows.map((row) => row[2] ?? row[3]));
  const agreeing = rows.filter((row) => (row[2] ?? row[3]) === window.value);
  // A listing that omits a figure does not dispute it: only the listings that give one vote on it.
  const context = mostCommon(listed(agreeing, 2)).value;
  const input = mostCommon(listed(agreeing, 3)).value;
  const output = mostCommon(listed(agreeing, 4)).value;
  const limits: MutableLimits = {
    id: bare,
    provider: undefined,
    model: bare,
    match: 'consensus',
    agreement: Object.freeze({ agreeing: agreeing.length, listings: rows.length }),
  };
  if (context !== null) limits.contextLength = context;
  if (input !== null) limits.inputLength = input;
  if (output !== null) limits.maxOutput = output;
  const reasoning = majorityFlag(agreeing);
  if (reasoning !== undefined) limits.reasoning = reasoning;
  return limits;
}

function underProvider(
  index: Index,
  provider: string,
  model: string,
): { row: ModelRow; match: ModelMatch } | undefined {
  const { byKey, byProviderFamily } = index;
  const exact = byKey.get(`${provider}/${model}`);
  if (exact) return { row: exact, match: 'exact' };
  const family = byProviderFamily.get(`${provider}/${canonicalModelId(model)}`);
  return family?.[0] ? { row: family[0], match: 'alias' } : undefined;
}

function windowOf(provider: string | undefined, model: string, bare: string): MutableLimits | undefined {
  const index = indexesFor(bare).windows;
  if (provider) {
    const found = underProvider(index, provider, model);
    if (found) return fromRow(found.row, found.match);
  }
  const maker = firstPartyProvider(bare);
  if (maker) {
    const found = underProvider(index, maker, bare);
    if (found) return fromRow(found.row, found.match);
  }
  const { byBare, byBareFamily } = index;
  const rows = byBare.get(bare) ?? byBareFamily.get(canonicalModelId(bare));
  return rows ? consensus(bare, rows) : undefined;
}

/**
 * The listing a price may come from: under the provider the id names, else under the maker of a bare id. There is no
 * fallback to the maker when a provider is named, nor to other providers: a reseller's price is its own, and the
 * maker's price for a model bought elsewhere would be a guess.
 */
function listingOf(provider: string | undefined, model: string, bare: string) {
  const index = indexesFor(bare).listings;
  if (provider) return underProvider(index, provider, model);
  const maker = firstPartyProvider(bare);
  return maker ? underProvider(index, maker, bare) : undefined;
}

function lookUp(id: string): ModelLimits | undefined {
  const { provider, model, bare } = splitModelId(id);
  if (!bare) return undefined;
  const listing = listingOf(provider, model, bare);
  const limits = windowOf(provider, model, bare) ?? (listing && fromRow(listing.row, listing.match));
  if (!limits) return undefined;
  if (listing) {
    const price = priceOf(listing.row);
    if (price) {
      limits.price = price;
      limits.priceId = `${listing.row[0]}/${listing.row[1]}`;
    }
    // The listing the id resolves to speaks first about its own model; the window's listing or consensus otherwise.
    if (listing.row[5] !== null) limits.reasoning = listing.row[5];
  }
  return Object.freeze(limits);
}

const MEMO_LIMIT = 1024;
const memo = new Map<string, ModelLimits | undefined>();

/**
 * Finds a model's listed limits in the built-in registry (models.dev data).
 *
 * Accepts `provider/model` ids, bare ids (looked up under the maker first: anthropic for `claude-*`, openai for
 * `gpt-*` and `o*`, google for `gemini-*`), dated snapshots and `-latest` ids in either direction, Vertex's
 * `@date` form, Claude Code's `[1m]` suffix and Gemini's `models/` prefix, case-insensitively. When the maker lists
 * no window (models.dev gives none for `google/gemini-2.5-pro`), the window most other listings give is used.
 * The price comes only from the listing the id resolves to by an exact or alias match (see `ModelLimits.price`).
 *
 * @returns the limits, or undefined when no listing matches.
 * @example findModel('claude-sonnet-4-20250514')?.contextLength // 200000
 */
export function findModel(id: string): ModelLimits | undefined {
  if (memo.has(id)) return memo.get(id);
  const found = lookUp(id);
  // Ids come from provider responses; the bound keeps a stream of odd ids from growing the cache forever.
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(id, found);
  return found;
}
