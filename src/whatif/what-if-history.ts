import { type HistoryItem, itemText } from '../compaction/history-item.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { type Calibration, calibratedTokens } from './calibrate.js';
import type { ItemSize } from './item-size.js';

/** What sizes an item in provider tokens: a calibration's scales (a segment's fit, or the session's). */
export type ItemFit = Pick<Calibration, 'toolScale' | 'textScale' | 'reasoningScale' | 'itemTokens'>;

/**
 * The history barometer's agent would have sent, with each item's provider tokens under the current fit and the
 * logged item it came from (its source, -1 for none: a re-read, a tombstone's own text). Its parts are read in
 * place by the what-if's steps (`tokens[position]` is the size of `items[position]`); they change only through
 * these methods, so that `total` stays the sum of `tokens`.
 */
export class WhatIfHistory {
  items: HistoryItem[] = [];
  tokens: number[] = [];
  sources: number[] = [];
  /** The sum of `tokens`, kept as items come and go (a resize adds it up again). */
  total = 0;
  readonly #counter: TokenCounter;
  #fit: ItemFit;
  /** Local sizes by item object: a logged item's from the log, any other counted when first sized. */
  readonly #local = new WeakMap<HistoryItem, ItemSize>();
  readonly #sourceByItem = new WeakMap<HistoryItem, number>();

  constructor(counter: TokenCounter, fit: ItemFit) {
    this.#counter = counter;
    this.#fit = fit;
  }

  get fit(): ItemFit {
    return this.#fit;
  }

  /** An item's local size: as set, else counted from its text (an opaque part counts nothing). */
  localOf(item: HistoryItem): ItemSize {
    let local = this.#local.get(item);
    if (!local) {
      local = {
        tokens: item.kind === 'opaque' ? 0 : this.#counter.count(itemText(item)),
        sizeClass: item.kind === 'tool-call' || item.kind === 'tool-result' ? 'tool' : 'text',
      };
      this.#local.set(item, local);
    }
    return local;
  }

  setLocal(item: HistoryItem, local: ItemSize): void {
    this.#local.set(item, local);
  }

  /** An item's provider tokens by the current fit (bound: the policy is handed it as its `sizeOf`). */
  sizeOf = (item: HistoryItem): number => {
    const local = this.localOf(item);
    return calibratedTokens(this.#fit, local.sizeClass, local.tokens);
  };

  /** The logged item an item came from, -1 when none. */
  sourceOf(item: HistoryItem): number {
    return this.#sourceByItem.get(item) ?? -1;
  }

  push(item: HistoryItem, local: ItemSize, source: number): void {
    this.#local.set(item, local);
    this.#sourceByItem.set(item, source);
    const size = this.sizeOf(item);
    this.items.push(item);
    this.tokens.push(size);
    this.sources.push(source);
    this.total += size;
  }

  /** A new fit (a new stretch of the log): every item sized again by it. */
  refit(fit: ItemFit): void {
    this.#fit = fit;
    this.#resize();
  }

  /**
   * Sizes `item` as the new occupant of `position` (its local size given, its source the position's): the item
   * itself goes in with the history it belongs to (`replaceItems`), the batch reading the old items meanwhile.
   * Answers the tokens freed.
   */
  resizeAt(position: number, item: HistoryItem, local: ItemSize): number {
    const before = this.tokens[position] ?? 0;
    this.#local.set(item, local);
    const after = this.sizeOf(item);
    this.tokens[position] = after;
    this.#sourceByItem.set(item, this.sources[position] ?? -1);
    this.total += after - before;
    return before - after;
  }

  /** The same positions with other items (a batch's tombstones, sized by `resizeAt` already). */
  replaceItems(items: HistoryItem[]): void {
    this.items = items;
  }

  /** Another history (a recap's): each item keeps the source it had, and every item is sized again. */
  adopt(items: HistoryItem[]): void {
    this.items = items;
    this.sources = items.map((item) => this.sourceOf(item));
    this.#resize();
  }

  /** Nothing left (a compaction the user asked for: the recorded summary follows). */
  clear(): void {
    this.items = [];
    this.sources = [];
    this.#resize();
  }

  #resize(): void {
    this.tokens = this.items.map((item) => this.sizeOf(item));
    this.total = this.tokens.reduce((sum, value) => sum + value, 0);
  }
}
