import { isOpenHandsOutputRecord, openHandsEvents } from './read-openhands-log.js';
import type { LogFormat } from './session-log.js';
import { parseLine, withoutByteOrderMark } from './session-log-builder.js';
import { isObject, type JsonObject } from './usage-fields.js';

/** How many JSON lines detection reads before giving up. */
const DETECTION_LINES = 50;

const CODEX_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const CLAUDE_CODE_TYPES = new Set(['file-history-snapshot', 'summary', 'queue-operation']);
/** pi's entry types (its session header is `session` with a `cwd`); Claude Code's lines carry a `uuid` instead. */
const PI_TYPES = new Set([
  'message',
  'model_change',
  'thinking_level_change',
  'compaction',
  'branch_summary',
]);

/** Which agent wrote one JSONL record, when the record says. */
function classifyRecord(record: JsonObject): LogFormat | undefined {
  if (isOpenHandsOutputRecord(record)) return 'openhands';
  if (typeof record.type === 'string' && CODEX_TYPES.has(record.type) && isObject(record.payload))
    return 'codex';
  if ('projectHash' in record || '$set' in record || record.type === 'gemini') return 'gemini-cli';
  if (typeof record.uuid === 'string' && typeof record.type === 'string') return 'claude-code';
  if (typeof record.type === 'string' && CLAUDE_CODE_TYPES.has(record.type)) return 'claude-code';
  if (record.type === 'session' && typeof record.cwd === 'string' && typeof record.id === 'string')
    return 'pi';
  if (typeof record.type === 'string' && PI_TYPES.has(record.type) && typeof record.timestamp === 'string')
    return 'pi';
  return undefined;
}

function classifyEvents(events: readonly unknown[]): LogFormat | undefined {
  const looksLikeEvent = (event: unknown) =>
    isObject(event) && 'source' in event && ('action' in event || 'observation' in event);
  return events.slice(0, DETECTION_LINES).some(looksLikeEvent) ? 'openhands' : undefined;
}

/** What detection learned, for the reader to reuse (a whole-file JSON value is parsed once). */
export interface LogSniff {
  format: LogFormat | undefined;
  /** The whole text as one JSON value, when it is one (OpenHands, Gemini CLI's JSON form). */
  whole?: unknown;
  /** Why nothing matched, naming a line, for the error message. */
  problem?: string;
}

/** Detection with its by-products: the parsed whole-file value, or the reason nothing matched. */
export function sniffLog(text: string): LogSniff {
  const firstLineEnd = text.indexOf('\n');
  const firstLine = (firstLineEnd === -1 ? text : text.slice(0, firstLineEnd)).trim();
  const start = text.trimStart()[0];
  // A single JSON value spanning lines (pretty-printed): its first line does not parse alone.
  if ((start === '[' || start === '{') && (firstLine === '' || parseLine(firstLine) === undefined)) {
    const whole = parseLine(text);
    if (whole !== undefined) {
      const events = openHandsEvents(whole);
      if (events) {
        const format = classifyEvents(events);
        return format
          ? { format, whole }
          : { format, whole, problem: 'the JSON array holds no OpenHands events' };
      }
      if (isObject(whole) && Array.isArray(whole.messages) && 'sessionId' in whole) {
        return { format: 'gemini-cli', whole };
      }
      return { format: undefined, whole, problem: 'the JSON is not a session log of a known agent' };
    }
  }
  let firstBadLine: number | undefined;
  let parsedLines = 0;
  let lineNumber = 0;
  let position = 0;
  while (position <= text.length && parsedLines < DETECTION_LINES) {
    const end = text.indexOf('\n', position);
    const line = text.slice(position, end === -1 ? text.length : end).trim();
    position = end === -1 ? text.length + 1 : end + 1;
    lineNumber++;
    if (line === '') continue;
    const record = parseLine(line);
    if (record === undefined) {
      firstBadLine ??= lineNumber;
      continue;
    }
    parsedLines++;
    if (Array.isArray(record) && parsedLines === 1) {
      const format = classifyEvents(record);
      if (format) return { format, whole: record };
    }
    if (!isObject(record)) continue;
    const format = classifyRecord(record);
    if (format) return { format };
  }
  if (lineNumber === 0 || (parsedLines === 0 && firstBadLine === undefined)) {
    return { format: undefined, problem: 'the log is empty' };
  }
  if (parsedLines === 0) return { format: undefined, problem: `line ${firstBadLine} is not JSON` };
  return {
    format: undefined,
    problem: `${parsedLines} JSON line(s) read, none a record of claude-code, codex, gemini-cli or openhands${
      firstBadLine === undefined ? '' : ` (line ${firstBadLine} is not JSON)`
    }`,
  };
}

/**
 * Which agent wrote a session log, from its first records: Codex rollouts have typed `payload`s,
 * Gemini CLI recordings a `projectHash` header and `gemini` messages, Claude Code transcripts `uuid`s,
 * OpenHands trajectories are a JSON array of `source`/`action`/`observation` events. Undefined when
 * none matches.
 */
export function detectLogFormat(text: string): LogFormat | undefined {
  return sniffLog(withoutByteOrderMark(text)).format;
}
