import type { PromptCacheTokens } from '../cache/prompt-cache-tokens.js';
import { archiveLocation } from '../compaction/archive-sink.js';
import { pathOf } from '../compaction/eviction-policy.js';
import { type HistoryItem, itemText } from '../compaction/history-item.js';
import type { EvictionStep } from '../compaction/plan-eviction.js';
import type { ItemSize } from './item-size.js';
import type { LogCall, LogHistory, LogItem } from './log-history.js';
import type { SimulateWhatIfOptions } from './simulate-what-if-options.js';
import type { ArchivedRecord } from './verify-archive.js';

/** Output tokens of the extra call an agent makes to read an evicted file again (one Read tool call). */
export const REREAD_CALL_COMPLETION_TOKENS = 60;

/** The archive task that holds the tool results trimmed at arrival. */
export const ARRIVALS_TASK_ID = 'arrivals';

/** Tools whose call needs the file's current text in context (an exact `old_string`, a patch's context lines). */
const NEEDS_CONTENT = /^(?:edit|multiedit|notebookedit|str_replace_based_edit_tool)$/i;
const READS = /^read/i;
const WRITES = /^write/i;

/** One read back: the address read, the text it gives, its local size, the logged item it holds. */
interface Read {
  path: string;
  content: string;
  local: ItemSize;
  source: number;
  field: ArchivedRecord['field'];
}
type ReadOf = (
  path: string,
  content: string,
  local: ItemSize,
  source: number,
  field: ArchivedRecord['field'],
) => void;

/** Content out of the what-if history whose later use the agent's output shows: it reads it back first. */
interface Pending {
  source: number;
  /** The address the agent would read (the archive record). */
  location: string;
  /** Words of the content no text the history shows holds. */
  marks: string[];
  /** The text read back, and its local size. */
  content: string;
  local: ItemSize;
  field: ArchivedRecord['field'];
}

/**
 * The what-if's honest counting of what its agent would read again: an edit of a file whose text was evicted, a
 * later quote of an evicted result (a distinctive word of it in the agent's output with no other source in the
 * what-if history), the middle of a result trimmed at arrival that the output quotes. Each is an extra call (priced
 * by the cache model: the history as it is, 60 output tokens) and the content back in the history.
 */
/** What the re-reads use of the simulation they run in (simulate-what-if.ts). */
export interface WhatIfRereadHost {
  readonly history: HistoryItem[];
  readonly tokens: number[];
  readonly sources: number[];
  readonly records: ArchivedRecord[];
  archivedBytes: number;
  readonly trimAbove: number;
  localOf(item: HistoryItem): ItemSize;
  push(item: HistoryItem, local: ItemSize, source: number): void;
  priceExtra(call: LogCall, unedited: PromptCacheTokens, time: number, completionTokens: number): void;
}

export class WhatIfRereads {
  /** Per file: the what-if position of its latest full text (a read's result, a write's input). */
  readonly #latestContent = new Map<string, number>();
  readonly #callPositions = new Map<string, number>();
  /** A re-read's result holds a logged text: a read's result, or the text a logged write wrote. */
  readonly #field = new WeakMap<HistoryItem, ArchivedRecord['field']>();
  /** Notices of results trimmed at arrival (archived as the log's text already). */
  readonly #trimmed = new WeakSet<HistoryItem>();
  #pendingTrims: Pending[] = [];
  #pendingQuotes: Pending[] = [];
  trims = 0;
  count = 0;
  quoted = 0;
  tokens = 0;

  constructor(
    private readonly sim: WhatIfRereadHost,
    private readonly options: SimulateWhatIfOptions,
    private readonly log: LogHistory,
    private readonly sizes: readonly ItemSize[],
  ) {}

  clear(): void {
    this.#latestContent.clear();
    this.#callPositions.clear();
    this.#pendingQuotes = [];
  }

  track(position: number): void {
    const history = this.sim.history;
    const item = history[position] as HistoryItem;
    if (item.kind === 'tool-call') {
      this.#callPositions.set(item.callId, position);
      const path = pathOf(item);
      if (path && WRITES.test(item.name)) this.#latestContent.set(path, position);
    } else if (item.kind === 'tool-result') {
      const call = history[this.#callPositions.get(item.callId) ?? -1];
      const path = call?.kind === 'tool-call' && READS.test(call.name) ? pathOf(call) : undefined;
      if (path) this.#latestContent.set(path, position);
    }
  }

  /** A tool result over the budget enters as a notice: its head and tail, and where the whole is archived. */
  async trimAtArrival(
    entry: LogItem,
    source: number,
  ): Promise<{ item: HistoryItem; local: ItemSize } | undefined> {
    const { item } = entry;
    const local = this.sizes[source] as ItemSize;
    const budget = this.sim.trimAbove;
    if (item.kind !== 'tool-result' || local.tokens <= budget || item.archivedTo !== undefined)
      return undefined;
    // A file's text read whole is what an edit of it needs: it is never trimmed (keep what is being worked on).
    const caller = this.sim.history[this.#callPositions.get(item.callId) ?? -1];
    if (caller?.kind === 'tool-call' && READS.test(caller.name)) return undefined;
    const { path } = await this.options.archive.append(this.options.sessionId, ARRIVALS_TASK_ID, [
      { itemId: item.id, kind: 'tool-result', field: 'content', content: item.content },
    ]);
    this.sim.records.push({ location: archiveLocation(path, item.id), source, field: 'content' });
    this.sim.archivedBytes += Buffer.byteLength(item.content, 'utf8');
    this.trims++;
    const shown = archiveLocation(this.options.tombstonePath?.(ARRIVALS_TASK_ID) ?? path, item.id);
    const notice: HistoryItem = { ...item, content: trimNotice(item.content, local.tokens, budget, shown) };
    this.#trimmed.add(notice);
    const keep = noticeKeep(budget);
    this.#pendingTrims.push({
      source,
      location: shown,
      // What the notice shows, and what the call itself holds (a write's text), is no sign of a use of the middle.
      marks: distinctiveMarks(
        item.content.slice(keep, -keep),
        `${item.content.slice(0, keep)}${item.content.slice(-keep)}${caller ? itemText(caller) : ''}`,
      ),
      content: item.content,
      local,
      field: 'content',
    });
    // A redacted result's notice would show a head and a tail of the real text: sized as half the budget.
    const tokens =
      this.options.counter.count(itemText(notice)) +
      (entry.redactedChars === undefined ? 0 : Math.ceil(budget / 2));
    return { item: notice, local: { tokens, sizeClass: 'tool' } };
  }

  /**
   * An item the batch replaced by its tombstone: archived (checked later), and its later quotes watched. `shown` is
   * the address its tombstone names, which a re-read reads (the archive written may be a temporary folder).
   */
  evicted(
    original: HistoryItem,
    item: HistoryItem,
    source: number,
    field: EvictionStep['field'],
    shown: string,
  ): void {
    const recordField = this.#field.get(original) ?? (field === 'input' ? 'input' : 'content');
    const archivedTo = 'archivedTo' in item ? item.archivedTo : undefined;
    if (source < 0 || this.#trimmed.has(original) || !archivedTo) return;
    this.sim.records.push({ location: archivedTo, source, field: recordField });
    if (original.kind !== 'tool-result') return;
    const caller = this.sim.history[this.#callPositions.get(original.callId) ?? -1];
    const visible = `${itemText(item)}${caller ? itemText(caller) : ''}`;
    const marks = distinctiveMarks(original.content, visible);
    if (marks.length === 0) return;
    this.#pendingQuotes.push({
      source,
      location: shown,
      marks,
      content: original.content,
      local: this.sim.localOf(original),
      field: recordField,
    });
  }

  /**
   * The re-reads the call's output shows, priced as one extra call before it (against the unedited request of the same
   * call) that makes every read at once, as an agent reads several files in one turn (Claude Code sends parallel tool
   * calls: the recorded sessions read up to 6 files in one message); answers how many reads.
   */
  readBack(call: LogCall, outputEnd: number, unedited: PromptCacheTokens, time: number): number {
    const reads: Read[] = [];
    const read: ReadOf = (path, content, local, source, field) => {
      // Two edits of one file in the call need one read of it.
      if (source >= 0 && reads.some((other) => other.source === source)) return;
      reads.push({ path, content, local, source, field });
    };
    this.#editRereads(call, outputEnd, read);
    const quoted = this.#quotes(
      call,
      outputEnd,
      reads.map((done) => done.content),
    );
    for (const trim of quoted.trims) read(trim.location, trim.content, trim.local, trim.source, trim.field);
    for (const quote of quoted.evicted)
      read(quote.location, quote.content, quote.local, quote.source, quote.field);
    this.quoted += quoted.evicted.length;
    if (reads.length === 0) return 0;
    this.sim.priceExtra(call, unedited, time, reads.length * REREAD_CALL_COMPLETION_TOKENS);
    for (const [made, done] of reads.entries()) {
      const readId = `reread-${call.index}-${made}`;
      const readCall: HistoryItem = {
        kind: 'tool-call',
        id: readId,
        callId: readId,
        name: 'Read',
        input: { file_path: done.path },
      };
      const readResult: HistoryItem = {
        kind: 'tool-result',
        id: `${readId}:result`,
        callId: readId,
        content: done.content,
      };
      this.#field.set(readResult, done.field);
      this.sim.push(
        readCall,
        { tokens: this.options.counter.count(itemText(readCall)), sizeClass: 'tool' },
        -1,
      );
      this.track(this.sim.history.length - 1);
      this.sim.push(readResult, done.local, done.source);
      this.track(this.sim.history.length - 1);
      this.tokens += Math.round(this.sim.tokens.at(-1) ?? 0);
    }
    this.count += reads.length;
    return reads.length;
  }

  /** An edit of a file whose text barometer evicted, with no read of it since: the agent reads it again first. */
  #editRereads(call: LogCall, outputEnd: number, read: ReadOf): void {
    for (let position = call.itemsBefore; position < outputEnd; position++) {
      const output = this.log.items[position]?.item;
      if (output?.kind !== 'tool-call' || !NEEDS_CONTENT.test(output.name)) continue;
      const path = pathOf(output);
      const held = path === undefined ? undefined : this.#latestContent.get(path);
      const evicted = held === undefined ? undefined : this.sim.history[held];
      const notHeld =
        evicted !== undefined &&
        (this.#trimmed.has(evicted) || ('archivedTo' in evicted && evicted.archivedTo));
      if (!path || held === undefined || !notHeld) continue;
      const source = this.sim.sources[held] ?? -1;
      const original = this.log.items[source];
      if (!original) continue;
      const written = original.item.kind === 'tool-call' ? writtenText(original.item.input) : undefined;
      if (original.item.kind === 'tool-call' && written === undefined) continue;
      const content = written ?? itemText(original.item);
      const size = this.sizes[source] as ItemSize;
      read(
        path,
        content,
        { tokens: size.tokens, sizeClass: 'tool' },
        source,
        written === undefined ? 'content' : 'written-text',
      );
      // The re-read content is held again: no quote of it is a re-read now.
      this.#pendingQuotes = this.#pendingQuotes.filter((pending) => pending.source !== source);
    }
  }

  /**
   * Trimmed middles and evicted results the call's output quotes, taken off the watch lists; `reading` is what the
   * call's extra call reads back already.
   */
  #quotes(
    call: LogCall,
    outputEnd: number,
    reading: readonly string[],
  ): { trims: Pending[]; evicted: Pending[] } {
    if (this.#pendingTrims.length === 0 && this.#pendingQuotes.length === 0)
      return { trims: [], evicted: [] };
    const quoted: string[] = [];
    for (let position = call.itemsBefore; position < outputEnd; position++) {
      const output = this.log.items[position]?.item;
      if (output?.kind === 'tool-call' || output?.kind === 'assistant') quoted.push(itemText(output));
    }
    const text = quoted.join('\n');
    if (text === '') return { trims: [], evicted: [] };
    const trims = this.#pendingTrims.filter((trim) => trim.marks.some((mark) => text.includes(mark)));
    if (trims.length > 0) this.#pendingTrims = this.#pendingTrims.filter((trim) => !trims.includes(trim));
    const candidates = this.#pendingQuotes.filter((pending) =>
      pending.marks.some((mark) => text.includes(mark)),
    );
    if (candidates.length === 0) return { trims, evicted: [] };
    // A word the history shows elsewhere (a path the agent named, a later read, a text the same extra call reads back
    // for an edit: `reading`) has another source: no re-read.
    const held = this.sim.history
      .filter((item) => !('archivedTo' in item && item.archivedTo) && !this.#trimmed.has(item))
      .map((item) => (item.kind === 'opaque' ? '' : itemText(item)))
      .concat(reading)
      .join('\n');
    const evicted = candidates.filter((pending) =>
      pending.marks.some((mark) => text.includes(mark) && !held.includes(mark)),
    );
    if (evicted.length > 0)
      this.#pendingQuotes = this.#pendingQuotes.filter((pending) => !evicted.includes(pending));
    return { trims, evicted };
  }
}

/** Characters of the head and of the tail a notice shows: a quarter of the budget each, at 4 characters a token. */
const noticeKeep = (budget: number) => Math.max(1, budget);

/**
 * What marks a use of a text the history does not show: its words of 16 characters or more (paths, identifiers,
 * hashes) that the shown text does not hold, the 20 longest.
 */
function distinctiveMarks(middle: string, shown: string): string[] {
  const marks = new Set<string>();
  for (const match of middle.matchAll(/[A-Za-z0-9_./:-]{16,}/g))
    if (!shown.includes(match[0])) marks.add(match[0]);
  return [...marks].sort((a, b) => b.length - a.length).slice(0, 20);
}

/**
 * The notice a tool result over the budget enters the history as: its size, where the whole is, and its head and
 * tail, a quarter of the budget each (at about 4 characters a token), so that the notice takes half the budget.
 */
export function trimNotice(content: string, tokens: number, budget: number, location: string): string {
  const keep = noticeKeep(budget);
  return `[Tool result of about ${tokens} tokens trimmed at arrival; the whole is archived at ${location}]\n${content.slice(0, keep)}\n[…]\n${content.slice(-keep)}`;
}

/** The text a write call wrote (its `content` argument), which reading the file again gives back. */
function writtenText(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const content = (input as Record<string, unknown>).content;
  return typeof content === 'string' ? content : undefined;
}
