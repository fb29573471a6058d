import { BarometerValidationError, parseWith } from '../errors/validation.js';
import { sniffLog } from './detect-log-format.js';
import { readClaudeCodeLog } from './read-claude-code-log.js';
import { readCodexLog } from './read-codex-log.js';
import { readGeminiCliLog } from './read-gemini-cli-log.js';
import {
  isOpenHandsOutputRecord,
  openHandsEvents,
  readOpenHandsLog,
  readOpenHandsOutput,
} from './read-openhands-log.js';
import { readPiLog } from './read-pi-log.js';
import {
  LOG_FORMATS,
  type LogFormat,
  type ProgressCallback,
  type ReadSessionLogOptions,
  ReadSessionLogOptionsSchema,
  type SessionLog,
} from './session-log.js';
import { parseLine, withoutByteOrderMark } from './session-log-builder.js';
import { isObject } from './usage-fields.js';

function invalid(message: string, value: unknown): BarometerValidationError {
  return new BarometerValidationError([{ field: 'text', value, message }], 'session log');
}

/** The start of a text, to show in an error without copying a whole log into it. */
const excerpt = (text: string) => (text.length > 80 ? `${text.slice(0, 80)}…` : text);

function readAs(format: LogFormat, text: string, whole: unknown, onProgress?: ProgressCallback): SessionLog {
  switch (format) {
    case 'claude-code':
      return readClaudeCodeLog(text, onProgress);
    case 'codex':
      return readCodexLog(text, onProgress);
    case 'gemini-cli':
      return readGeminiCliLog(text, onProgress);
    case 'pi':
      return readPiLog(text, onProgress);
    case 'openhands': {
      // An evaluation output is JSON lines, one trajectory each; a saved trajectory is one JSON value.
      if (whole === undefined && sniffOpenHandsOutput(text)) return readOpenHandsOutput(text, onProgress);
      const events = openHandsEvents(whole ?? safeParse(text));
      if (!events) throw invalid('an OpenHands trajectory is a JSON array of events', excerpt(text));
      return readOpenHandsLog(events, onProgress);
    }
  }
}

/** Whether the text's first line is a whole trajectory of an evaluation output (JSON lines). */
function sniffOpenHandsOutput(text: string): boolean {
  const end = text.indexOf('\n');
  const first = parseLine(end === -1 ? text : text.slice(0, end));
  return isObject(first) && isOpenHandsOutputRecord(first);
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Reads a recorded agent session (Claude Code, Codex CLI, Gemini CLI or OpenHands) into its API
 * calls, each with normalized usage, and the compactions the agent recorded.
 *
 * Lines that are not JSON are skipped and listed in `skippedLines`; lines that are JSON but carry no
 * usage are ignored. A text that is not a session log at all — nothing in its first lines is a record
 * of a known agent, or the chosen format finds nothing in it — throws a `BarometerValidationError`
 * saying why (e.g. "line 1 is not JSON"), as do invalid options.
 *
 * @example
 * const log = readSessionLog(await readFile(path, 'utf8'));
 * log.calls.length; // 139 for the reference Claude Code session
 * log.compactions[0]; // { trigger: 'auto', preTokens: 170251, postTokens: 36081, beforeCallIndex: 61, … }
 */
export function readSessionLog(input: string, options?: ReadSessionLogOptions): SessionLog {
  const parsed = parseWith(ReadSessionLogOptionsSchema, options ?? {});
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'readSessionLog options');
  if (typeof input !== 'string') throw invalid('must be the text of a log file', typeof input);
  const text = withoutByteOrderMark(input);
  const { format: requested = 'auto', onProgress } = parsed.value;
  const sniff = sniffLog(text);
  const format = requested === 'auto' ? sniff.format : requested;
  if (format === undefined) {
    throw invalid(
      `not a session log of ${LOG_FORMATS.join(', ')}: ${sniff.problem ?? 'no known record found'}`,
      excerpt(text),
    );
  }
  const log = readAs(format, text, sniff.format === format ? sniff.whole : undefined, onProgress);
  // A log read with a format it was not written in yields nothing; say so instead of "0 calls".
  if (log.calls.length === 0 && log.compactions.length === 0 && sniff.format !== format) {
    const seen = sniff.format
      ? `it looks like a ${sniff.format} log`
      : (sniff.problem ?? 'no known record found');
    throw invalid(`no ${format} calls or compactions found: ${seen}`, excerpt(text));
  }
  return log;
}
