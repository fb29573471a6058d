import { itemText } from '../compaction/history-item.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { LogItem } from './log-history.js';

/**
 * Characters per token assumed for text the log redacts (only its length is known). The figure only puts
 * redacted and counted text on one scale: the calibration against the recorded usage fits the real ratio.
 */
export const REDACTED_CHARS_PER_TOKEN = 4;

/** Which calibration scale an item's tokens take. */
export type SizeClass = 'tool' | 'text' | 'reasoning';

export interface ItemSize {
  /** Local tokens: o200k for text the log holds, the stated length ÷ 4 where it redacts the text. */
  tokens: number;
  sizeClass: SizeClass;
}

function reasoningText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return '';
  const block = value as Record<string, unknown>;
  return typeof block.thinking === 'string' ? block.thinking : '';
}

/**
 * The local size of one logged item. Tool calls count their name and input (the JSON of the arguments), tool
 * results their content; thinking counts its text; other opaque parts (images, web searches) count nothing:
 * their real cost is in the calibration's residual.
 */
export function itemSize(entry: LogItem, counter: TokenCounter): ItemSize {
  const { item } = entry;
  const sizeClass: SizeClass =
    entry.reasoning === true
      ? 'reasoning'
      : item.kind === 'tool-call' || item.kind === 'tool-result'
        ? 'tool'
        : 'text';
  if (entry.redactedChars !== undefined) {
    const extra = item.kind === 'tool-call' ? counter.count(item.name) : 0;
    return { tokens: Math.ceil(entry.redactedChars / REDACTED_CHARS_PER_TOKEN) + extra, sizeClass };
  }
  if (item.kind === 'opaque') {
    return { tokens: entry.reasoning === true ? counter.count(reasoningText(item.value)) : 0, sizeClass };
  }
  return { tokens: counter.count(itemText(item)), sizeClass };
}
