import { BarometerValidationError } from '../errors/validation.js';
import { type ContextPressure, type ContextPressureInput, contextPressure } from './context-pressure.js';

/**
 * How an engine lays out its KV cache (docs/rules.md, KV budget):
 * - `unified`: one pool of `nCtx` cells shared by every sequence; a fork shares its parent's prefix, counted once
 *   (lloyal's native context, a llama.cpp context created with `kv_unified`);
 * - `perSequence`: each sequence has its own `nCtx` cells; a fork copies its parent's prefix into its own cells
 *   (node-llama-cpp, whose contexts are created with `kv_unified = false`).
 */
export type KvLayout = 'unified' | 'perSequence';

/** The ledger's limits (as for `contextPressure`, without `cellsUsed`) and how it names branches. */
export interface CellLedgerOptions extends Omit<ContextPressureInput, 'cellsUsed'> {
  /** Names a branch when `open` or `fork` is not given an id. @default a counter: `branch-1`, `branch-2`, … */
  generateId?: () => string;
  /** The engine's cache layout; with `perSequence`, `nCtx` is the cells of one sequence. @default 'unified' */
  layout?: KvLayout;
}

interface Branch {
  parent: string | undefined;
  /** The parent's position when this branch forked: the cells below it are shared, not this branch's own. */
  forkPoint: number;
  position: number;
  children: Set<string>;
}

function invalid(field: string, value: unknown, message: string): never {
  throw new BarometerValidationError([{ field, value, message }], 'KV ledger operation');
}

/**
 * Counts unique KV cells per branch, the way lloyal-agents' SessionContext does: decoding adds cells to a branch,
 * a fork shares its parent's cells up to the fork point, releasing a fork frees only the cells above its fork point,
 * and `retainOnly` / `drain` reset the count. `pressure()` turns the count into a `ContextPressure` snapshot.
 * With `layout: 'perSequence'` a fork copies its parent's prefix instead (its cells count again) and each sequence
 * has its own `nCtx`.
 *
 * @example
 * const ledger = new CellLedger({ nCtx: 16384 });
 * const root = ledger.open();
 * ledger.decode(root, 4000);
 * const child = ledger.fork(root);
 * ledger.decode(child, 500);
 * ledger.release(child); // frees 500; the 4,000 shared cells stay
 */
export class CellLedger {
  readonly #limits: Omit<ContextPressureInput, 'cellsUsed'>;
  readonly #generateId: () => string;
  readonly layout: KvLayout;
  readonly #branches = new Map<string, Branch>();
  #cellsUsed = 0;
  #counter = 0;

  constructor(options: CellLedgerOptions) {
    const { generateId, layout, ...limits } = options;
    if (layout !== undefined && layout !== 'unified' && layout !== 'perSequence')
      invalid('layout', layout, "must be 'unified' or 'perSequence'");
    this.layout = layout ?? 'unified';
    // Validate the limits now, so a bad nCtx or hardLimit fails at construction rather than at the first snapshot.
    contextPressure({ ...limits, cellsUsed: 0 });
    this.#limits = limits;
    this.#generateId = generateId ?? (() => `branch-${++this.#counter}`);
  }

  /** Cells in use across all branches, each shared prefix counted once. */
  get cellsUsed(): number {
    return this.#cellsUsed;
  }

  /** The ids of the live branches, in the order they were created. */
  get branches(): string[] {
    return [...this.#branches.keys()];
  }

  /** A branch's position: the number of cells in its sequence, shared prefix included. */
  position(branch: string): number {
    return this.#get(branch).position;
  }

  /** Opens a root branch with no cells (a sequence that shares nothing). @returns its id */
  open(id?: string): string {
    const branchId = this.#newId(id);
    this.#branches.set(branchId, { parent: undefined, forkPoint: 0, position: 0, children: new Set() });
    return branchId;
  }

  /**
   * Forks a branch from `parent` at the parent's current position. In a unified cache the prefix is shared and no
   * cells are added; per sequence the fork holds its own copy of the prefix (the parent's position in cells).
   */
  fork(parent: string, id?: string): string {
    const source = this.#get(parent);
    const branchId = this.#newId(id);
    const copied = this.layout === 'perSequence';
    this.#branches.set(branchId, {
      parent: copied ? undefined : parent,
      forkPoint: copied ? 0 : source.position,
      position: source.position,
      children: new Set(),
    });
    if (copied) this.#cellsUsed += source.position;
    else source.children.add(branchId);
    return branchId;
  }

  /** Records `cells` decoded on a branch (tokens of a prompt, a tool result or a generation). */
  decode(branch: string, cells: number): void {
    const target = this.#get(branch);
    if (!Number.isInteger(cells) || cells < 0) invalid('cells', cells, 'must be a whole number, at least 0');
    target.position += cells;
    this.#cellsUsed += cells;
  }

  /**
   * Releases a branch, freeing the cells above its fork point (for a root, all of them).
   * A branch with live forks cannot be released: their shared prefix still occupies its cells.
   * @returns the number of cells freed
   */
  release(branch: string): number {
    const target = this.#get(branch);
    if (target.children.size > 0) {
      invalid('branch', branch, `has live forks (${[...target.children].join(', ')}); release them first`);
    }
    const freed = target.position - target.forkPoint;
    this.#cellsUsed -= freed;
    if (target.parent !== undefined) this.#branches.get(target.parent)?.children.delete(branch);
    this.#branches.delete(branch);
    return freed;
  }

  /** Keeps only `branch`, which becomes a root owning all its cells; every other branch is gone. */
  retainOnly(branch: string): void {
    const kept = this.#get(branch);
    this.#branches.clear();
    this.#branches.set(branch, {
      parent: undefined,
      forkPoint: 0,
      position: kept.position,
      children: new Set(),
    });
    this.#cellsUsed = kept.position;
  }

  /** Removes every branch and frees every cell. */
  drain(): void {
    this.#branches.clear();
    this.#cellsUsed = 0;
  }

  /**
   * The KV budget snapshot for the cells in use now. In a unified cache every branch draws on one pool, so
   * `branch` changes nothing; per sequence the snapshot is that branch's own sequence, and without a branch the
   * fullest sequence's (the one that runs out first).
   */
  pressure(branch?: string): ContextPressure {
    if (this.layout === 'unified') {
      if (branch !== undefined) this.#get(branch);
      return contextPressure({ ...this.#limits, cellsUsed: this.#cellsUsed });
    }
    let cellsUsed = 0;
    if (branch !== undefined) cellsUsed = this.#get(branch).position;
    else for (const { position } of this.#branches.values()) cellsUsed = Math.max(cellsUsed, position);
    return contextPressure({ ...this.#limits, cellsUsed });
  }

  #get(branch: string): Branch {
    const found = this.#branches.get(branch);
    if (!found) invalid('branch', branch, 'no such branch');
    return found;
  }

  #newId(id: string | undefined): string {
    let branchId = id ?? this.#generateId();
    // Generated ids skip names the caller already took (bounded, in case a custom generator repeats itself);
    // an id the caller chose must be new.
    for (
      let tries = 0;
      id === undefined && this.#branches.has(branchId) && tries < this.#branches.size;
      tries++
    ) {
      branchId = this.#generateId();
    }
    if (typeof branchId !== 'string' || branchId === '')
      invalid('id', branchId, 'must be a non-empty string');
    if (this.#branches.has(branchId)) invalid('id', branchId, 'a branch with this id already exists');
    return branchId;
  }
}
