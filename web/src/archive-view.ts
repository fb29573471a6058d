import type { ArchiveAnswer, ArchiveRecord } from '../../src/contract/index.js';

/** One archived original, as the archive page shows it. */
export interface ArchiveRow {
  itemId: string;
  /** `Tool result`, `Tool input`, … */
  label: string;
  content: string;
  /** JSON text shown indented (a tool call's input). */
  pretty: string;
  lines: number;
  archivedAt: string;
}

const LABELS: Readonly<Record<ArchiveRecord['kind'], string>> = {
  'tool-result': 'Tool result',
  'tool-call': 'Tool input',
  system: 'System prompt',
  user: 'User turn',
  assistant: 'Assistant turn',
  opaque: 'Item',
  message: 'Message',
};

function pretty(record: ArchiveRecord): string {
  if (!record.json && record.kind !== 'tool-call') return record.content;
  try {
    return JSON.stringify(JSON.parse(record.content), null, 2);
  } catch {
    return record.content;
  }
}

/** The archive's records in the order they were written, and how many bytes were unreadable. */
export function archiveRows(answer: ArchiveAnswer): { rows: ArchiveRow[]; skippedBytes: number } {
  return {
    rows: answer.records.map((record) => ({
      itemId: record.itemId,
      label: LABELS[record.kind] ?? record.kind,
      content: record.content,
      pretty: pretty(record),
      lines: record.content === '' ? 0 : record.content.split('\n').length,
      archivedAt: record.archivedAt,
    })),
    skippedBytes: answer.skipped.reduce((sum, region) => sum + Math.max(0, region.bytes), 0),
  };
}
