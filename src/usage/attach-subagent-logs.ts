import { readClaudeCodeLog } from './read-claude-code-log.js';
import type { SessionLog } from './session-log.js';

/** One sub-agent transcript beside a Claude Code session: its file name and text. */
export interface SubagentFile {
  /** The file's name (`agent-<id>.jsonl`), as the session's `subagents/` folder holds it. */
  name: string;
  text: string;
}

/**
 * A Claude Code session with the sub-agents newer versions write beside it (`<session>/subagents/agent-<id>.jsonl`)
 * as children: each file is read as its sub-agent's own session (`readClaudeCodeLog` reads an all-sidechain file
 * whole), named by its `agentId` (else the file name), with the session as its parent. Files that hold no call are
 * left out. The log given is not changed.
 */
export function attachSubagentLogs(log: SessionLog, files: readonly SubagentFile[]): SessionLog {
  const children = [...(log.children ?? [])];
  for (const file of files) {
    const child = readClaudeCodeLog(file.text);
    if (child.calls.length === 0 && child.skippedLines.length === 0) continue;
    child.id ??= file.name.replace(/\.jsonl$/, '');
    if (log.id !== undefined) child.parentId = log.id;
    child.file = file.name;
    children.push(child);
  }
  return children.length > 0 ? { ...log, children } : log;
}
