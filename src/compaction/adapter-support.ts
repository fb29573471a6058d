import { BarometerValidationError } from '../errors/validation.js';
import type { HistoryItem, HistoryProvider, ItemRole, ToolResultItem } from './history-item.js';

/** Options shared by the `from…` adapters. */
export interface FromMessagesOptions {
  /**
   * Prefix of the ids given to items that carry no provider id (text, opaque parts): `<prefix><message>.<part>`.
   * Tool calls keep their call id; a tool result is `<call id>:result`.
   * @default 'm'
   */
  idPrefix?: string;
}

export const DEFAULT_ID_PREFIX = 'm';

export function generatedId(prefix: string | undefined, message: number | string, part: number): string {
  return `${prefix ?? DEFAULT_ID_PREFIX}${message}.${part}`;
}

export function resultId(callId: string): string {
  return `${callId}:result`;
}

/** Consecutive items that become one provider message; `start` is the first item's index in the history. */
export interface MessageRun<Role extends string = ItemRole> {
  role: Role;
  items: HistoryItem[];
  start: number;
}

/**
 * Consecutive items of the same role form one provider message: this is how every adapter groups items, so
 * a provider → history → provider round trip gives back messages in that canonical form.
 */
export function runsByRole<Role extends string>(
  items: readonly HistoryItem[],
  roleOf: (item: HistoryItem) => Role,
): MessageRun<Role>[] {
  const runs: MessageRun<Role>[] = [];
  items.forEach((item, index) => {
    const role = roleOf(item);
    const last = runs[runs.length - 1];
    if (last && last.role === role) last.items.push(item);
    else runs.push({ role, items: [item], start: index });
  });
  return runs;
}

/** An opaque part can only go back to the provider it came from: anything else would send a foreign shape. */
export function assertSameProvider(items: readonly HistoryItem[], provider: HistoryProvider): void {
  const index = items.findIndex((item) => item.kind === 'opaque' && item.provider !== provider);
  const item = items[index];
  if (item?.kind === 'opaque') {
    throw new BarometerValidationError(
      [
        {
          field: `[${index}].provider`,
          value: item.provider,
          message: `an opaque ${item.provider} part cannot be sent to ${provider}`,
          allowed: { values: [provider] },
        },
      ],
      'history',
    );
  }
}

/** The tool name of each call id, for providers whose results must name their tool. */
export function toolNamesByCallId(items: readonly HistoryItem[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const item of items) if (item.kind === 'tool-call') names.set(item.callId, item.name);
  return names;
}

/** Parses a `blocks`/`json` result's content; falls back to the text when it is not JSON. */
export function structuredContent(item: ToolResultItem): unknown {
  try {
    return JSON.parse(item.content);
  } catch {
    return item.content;
  }
}
