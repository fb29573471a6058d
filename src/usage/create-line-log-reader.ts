import type { LineLogReader } from './line-log-reader.js';
import { ClaudeCodeLineReader } from './read-claude-code-log.js';
import { CodexLineReader } from './read-codex-log.js';
import { GeminiCliLineReader } from './read-gemini-cli-log.js';
import { PiLineReader } from './read-pi-log.js';

/** The agents whose logs are JSON lines, appended as the agent runs (OpenHands writes one JSON array). */
export const LINE_LOG_FORMATS = ['claude-code', 'codex', 'gemini-cli', 'pi'] as const;
export type LineLogFormat = (typeof LINE_LOG_FORMATS)[number];

/** A fresh line-by-line reader of one agent's log format. */
export function createLineLogReader(format: LineLogFormat): LineLogReader {
  switch (format) {
    case 'claude-code':
      return new ClaudeCodeLineReader();
    case 'codex':
      return new CodexLineReader();
    case 'gemini-cli':
      return new GeminiCliLineReader();
    case 'pi':
      return new PiLineReader();
  }
}
