/**
 * Model id handling shared by the registry look-up and the config look-up: one normalization, so that
 * `Claude-Sonnet-4@20250514`, `anthropic/claude-sonnet-4-20250514` and `claude-sonnet-4` meet in one place.
 */

/** A model id split into its provider (when it has one) and the model part. */
export interface ModelIdParts {
  /** The id, trimmed and lower-cased, with client decorations removed. */
  normalized: string;
  /** The first path segment when the id is `provider/model`, else undefined. */
  provider: string | undefined;
  /** Everything after the provider (may itself hold slashes, as `openrouter/google/gemini-2.5-pro` does). */
  model: string;
  /** The last path segment: the bare model id. */
  bare: string;
}

// Claude Code writes the 1M-context opt-in as a suffix, e.g. `claude-opus-4-6[1m]`; it names no other model.
const BRACKET_SUFFIX = /\[[^\]]*\]$/;
// The Gemini API names models as resources: `models/gemini-2.5-pro`.
const RESOURCE_PREFIX = /^models\//;
const SNAPSHOT_SUFFIX = /(?:-latest|@\d{8}|-\d{8}|-\d{4}-\d{2}-\d{2})$/;

/** Lower-cases and trims an id and removes client decorations (`[1m]`, `models/`). */
export function normalizeModelId(id: string): string {
  return id.trim().toLowerCase().replace(BRACKET_SUFFIX, '').replace(RESOURCE_PREFIX, '');
}

/** Splits an id into provider, model part and bare model id, after normalizing it. */
export function splitModelId(id: string): ModelIdParts {
  const normalized = normalizeModelId(id);
  const slash = normalized.indexOf('/');
  const provider = slash > 0 ? normalized.slice(0, slash) : undefined;
  const model = slash > 0 ? normalized.slice(slash + 1) : normalized;
  const bare = model.slice(model.lastIndexOf('/') + 1);
  return { normalized, provider, model, bare };
}

/**
 * The model family a snapshot id belongs to: `-latest`, a dated snapshot suffix (`-20250514`, `-2024-08-06`,
 * Vertex's `@20250514`) removed. Ids without such a suffix are returned as they are.
 * @example canonicalModelId('claude-sonnet-4-20250514') // 'claude-sonnet-4'
 */
export function canonicalModelId(model: string): string {
  return model.replace(SNAPSHOT_SUFFIX, '');
}

/**
 * How recent a registry id is within its family, for choosing among snapshots: the undated id first, then
 * `-latest`, then dated snapshots newest first. Larger is preferred.
 */
export function snapshotRank(model: string): number {
  if (model === canonicalModelId(model)) return Number.MAX_SAFE_INTEGER;
  if (model.endsWith('-latest')) return Number.MAX_SAFE_INTEGER - 1;
  const digits = model.match(/(\d{4})-?(\d{2})-?(\d{2})$/);
  return digits ? Number(`${digits[1]}${digits[2]}${digits[3]}`) : 0;
}

/** Whether the caller opted in to a window beyond the default (Claude Code's `[1m]` suffix). */
export function hasLongContextSuffix(id: string): boolean {
  return /\[1m\]$/i.test(id.trim());
}
