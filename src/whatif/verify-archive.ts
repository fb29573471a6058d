import type { HistoryItem } from '../compaction/history-item.js';
import { isObject } from '../usage/json-object.js';
import type { LogHistory } from './log-history.js';
import { parseObjectLine } from './log-history.js';

/**
 * Reads an archive file back: its records' item ids and contents, in file order (`readArchiveFile` of
 * src/store/archive.ts, which checks every record's hash).
 */
export interface ArchiveReader {
  readFile(path: string): Promise<ReadonlyArray<{ itemId: string; content: string }>>;
}

/** One archived piece of the log: where it went, and which logged item it came from. */
export interface ArchivedRecord {
  location: string;
  /** Index of the logged item in `LogHistory.items`. */
  source: number;
  /**
   * What the record holds: a tool result's content, a tool call's input, the text a write call wrote (a file
   * read again after its write was evicted), or a whole item (a recap).
   */
  field: 'content' | 'input' | 'written-text' | 'item';
}

type Json = Record<string, unknown>;

/** The text blocks of a pi tool result's content, joined, as the history reader takes them. */
const piText = (content: unknown) =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((block) => (isObject(block) && typeof block.text === 'string' ? block.text : '')).join('')
      : '';

/**
 * The blocks of a logged line that can hold items: a Claude Code or pi message's content, a Codex response item, an
 * OpenHands event (its tool call or its observation), each put in Claude Code's terms.
 */
function blocksOf(record: Json): unknown[] {
  if (isObject(record.message) && record.message.role === 'toolResult') {
    const message = record.message;
    return [{ type: 'tool_result', tool_use_id: message.toolCallId, content: piText(message.content) }];
  }
  if (isObject(record.tool_call_metadata)) {
    const id = record.tool_call_metadata.tool_call_id;
    return 'observation' in record
      ? [
          {
            type: 'tool_result',
            tool_use_id: id,
            content: typeof record.content === 'string' ? record.content : '',
          },
        ]
      : [{ type: 'tool_use', id, input: record.args ?? {} }];
  }
  if (isObject(record.message)) {
    const content = record.message.content;
    return Array.isArray(content) ? content : [{ type: 'text', text: content }];
  }
  if (isObject(record.payload)) return [record.payload];
  return [];
}

/** A tool call's input as the log holds it (Claude Code `tool_use.input`, Codex `arguments` / `input` text). */
function loggedInput(block: Json): unknown {
  if (block.type === 'tool_use') return block.input;
  if (block.type === 'toolCall') return block.arguments;
  if (block.type === 'function_call') return block.arguments;
  return block.input;
}

function loggedOutput(block: Json): string {
  const content = block.type === 'tool_result' ? block.content : block.output;
  if (typeof content === 'string') return content;
  return content === undefined ? '' : (JSON.stringify(content) ?? '');
}

/**
 * The bytes an archived record must hold, taken from the log line afresh (not from the history the replay built):
 * a tool result's content as the log holds it (content blocks as their JSON), a tool call's input as the JSON of
 * the logged value, a recap's item as that item's own text or content. Undefined when the line holds no such item.
 */
export function expectedFromLog(
  log: LogHistory,
  record: ArchivedRecord,
  archived: string,
): string | undefined {
  const entry = log.items[record.source];
  if (!entry) return undefined;
  const line = parseObjectLine(log.lines[entry.line - 1] ?? '');
  if (!line) return undefined;
  const item = entry.item;
  const blocks = blocksOf(line).filter(isObject);
  const callId = item.kind === 'tool-call' || item.kind === 'tool-result' ? item.callId : undefined;
  const call = blocks.find(
    (block) =>
      ((block.type === 'tool_use' || block.type === 'toolCall') && block.id === callId) ||
      ((block.type === 'function_call' || block.type === 'custom_tool_call') && block.call_id === callId),
  );
  const result = blocks.find(
    (block) =>
      (block.type === 'tool_result' && block.tool_use_id === callId) ||
      ((block.type === 'function_call_output' || block.type === 'custom_tool_call_output') &&
        block.call_id === callId),
  );
  if (record.field === 'input') return call ? JSON.stringify(loggedInput(call) ?? {}) : undefined;
  if (record.field === 'content') return result ? loggedOutput(result) : undefined;
  if (record.field === 'written-text') {
    const input = call ? loggedInput(call) : undefined;
    return isObject(input) && typeof input.content === 'string' ? input.content : undefined;
  }
  // A recap archives the item whole, as the what-if history held it: check the part the log holds.
  let held: HistoryItem;
  try {
    held = JSON.parse(archived) as HistoryItem;
  } catch {
    return undefined;
  }
  if (held.kind === 'tool-call' && held.archivedTo === undefined && call)
    return JSON.stringify({ ...held, input: loggedInput(call) });
  if (held.kind === 'tool-result' && held.archivedTo === undefined && result)
    return JSON.stringify({ ...held, content: loggedOutput(result) });
  // Text, opaque parts and tombstoned items: the item the log reading gave (tombstones were checked when evicted).
  const tombstoned =
    (held.kind === 'tool-call' || held.kind === 'tool-result') && held.archivedTo !== undefined;
  return JSON.stringify(tombstoned ? held : item);
}

/**
 * Reads every archived record back and compares it byte for byte (UTF-8) with what the log holds. Returns how
 * many matched and the first mismatch, if any.
 */
export async function verifyArchive(
  log: LogHistory,
  records: readonly ArchivedRecord[],
  reader: ArchiveReader,
): Promise<{ verified: number; failures: string[] }> {
  let verified = 0;
  const failures: string[] = [];
  // Each file is read once: a tombstone's location is `<path>#<item id>`, and an item evicted twice resolves to
  // its latest record.
  const files = new Map<string, Promise<Map<string, string>>>();
  const fileOf = (path: string) => {
    let file = files.get(path);
    if (!file) {
      file = reader
        .readFile(path)
        .then((list) => new Map(list.map((entry) => [entry.itemId, entry.content])));
      files.set(path, file);
    }
    return file;
  };
  for (const record of records) {
    const cut = record.location.lastIndexOf('#');
    let content: string | undefined;
    try {
      content = (await fileOf(record.location.slice(0, cut))).get(record.location.slice(cut + 1));
    } catch (error) {
      failures.push(`${record.location}: ${(error as Error).message}`);
      continue;
    }
    if (content === undefined) {
      failures.push(`${record.location}: no such record in the archive`);
      continue;
    }
    const expected = expectedFromLog(log, record, content);
    if (expected !== undefined && Buffer.from(expected, 'utf8').equals(Buffer.from(content, 'utf8')))
      verified++;
    else
      failures.push(
        `${record.location}: the archived bytes differ from line ${log.items[record.source]?.line} of the log`,
      );
  }
  return { verified, failures };
}
