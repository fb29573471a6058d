import type { HistoryItem } from './history-item.js';
import type { TaskList, TaskRecord } from './task-list.js';

/** The heading that starts every recap's text. */
export const RECAP_HEADING = '[Recap of the session so far]';

export const DEFAULT_RECAP_MAX_FILES = 50;
export const DEFAULT_RECAP_MAX_NOTES = 20;
export const DEFAULT_RECAP_MAX_REQUEST_CHARS = 2000;

export interface RecapOptions {
  /** Files listed at most (the most recent win). @default 50 */
  maxFiles?: number;
  /** Decisions and open questions listed at most, each (the most recent win). @default 20 */
  maxNotes?: number;
  /** The last user request is cut to this many characters. @default 2000 */
  maxRequestChars?: number;
}

/** What a flush carries over, as data, and the same as the text put in front of the model. */
export interface Recap {
  tasks: { id: string; title?: string; status: TaskRecord['status']; summary?: string }[];
  decisions: string[];
  openQuestions: string[];
  filesTouched: string[];
  lastUserRequest?: string;
  text: string;
}

/** Argument names that hold file paths in common agent tools (read_file, write, edit, grep, glob, …). */
const PATH_KEYS =
  /^(path|paths|file|files|filepath|file_path|filename|file_name|target_file|notebook_path|source|destination|dir|directory|cwd)$/i;
/** A path in prose: with a directory part, or a file name with a known extension. */
const PATH_IN_TEXT =
  /(?<=^|[\s"'`(<[])(?:~|\.{1,2})?\/?(?:[\w@+-][\w@.+-]*\/)+[\w@+-][\w@.+-]*|(?<=^|[\s"'`(<[])[\w@+-][\w@+-]*(?:\.[\w-]+)*\.(?:ts|tsx|js|jsx|mjs|cjs|json|md|py|rs|go|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|yaml|yml|toml|ini|txt|sh|css|scss|html|sql|lock|log|csv|xml)\b/g;
const FILES_HEADING = 'Files touched:';
const REQUEST_LABEL = 'Last user request: ';
const DECISION_LINE = /^\s*(?:[-*]\s*)?(?:decision|decided)\s*:\s*(.+?)\s*$/gim;
const QUESTION_LINE = /^\s*(?:[-*]\s*)?(?:open question|question)\s*:\s*(.+?)\s*$/gim;

function pathsInValue(value: unknown, key: string | undefined, out: string[], depth: number): void {
  if (depth > 4 || value === null || value === undefined) return;
  if (typeof value === 'string') {
    if (
      key !== undefined &&
      PATH_KEYS.test(key) &&
      value.length > 0 &&
      value.length < 512 &&
      !value.includes('\n')
    )
      out.push(value);
    return;
  }
  if (Array.isArray(value)) {
    for (const element of value) pathsInValue(element, key, out, depth + 1);
    return;
  }
  if (typeof value === 'object') {
    for (const [name, element] of Object.entries(value)) pathsInValue(element, name, out, depth + 1);
  }
}

function pathsInText(text: string, out: string[]): void {
  for (const match of text.matchAll(PATH_IN_TEXT)) {
    const path = match[0].replace(/[.,:;!?]+$/, '');
    // Dates (2026/11/03) and fractions match the shape of a path; a path names something, so it has a letter.
    if (/[A-Za-z]/.test(path) && path !== '/' && !path.startsWith('//')) out.push(path);
  }
}

/** What an earlier recap carried that the patterns alone would not find again: its files and its request. */
function fromEarlierRecap(text: string, files: string[]): string | undefined {
  const lines = text.split('\n');
  const heading = lines.indexOf(FILES_HEADING);
  if (heading !== -1) {
    for (const line of lines.slice(heading + 1)) {
      if (!line.startsWith('- ')) break;
      files.push(line.slice(2));
    }
  }
  const request = text.indexOf(`\n${REQUEST_LABEL}`);
  return request === -1 ? undefined : text.slice(request + 1 + REQUEST_LABEL.length);
}

function linesMatching(text: string, pattern: RegExp, out: string[]): void {
  for (const match of text.matchAll(pattern)) if (match[1]) out.push(match[1]);
}

/** Unique values, keeping each at its last occurrence, then the last `max` of them. */
function lastUnique(values: readonly string[], max: number): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (let index = values.length - 1; index >= 0; index -= 1) {
    const value = values[index] as string;
    if (seen.has(value)) continue;
    seen.add(value);
    kept.push(value);
  }
  return kept.slice(0, max).reverse();
}

function render(recap: Omit<Recap, 'text'>): string {
  const lines = [RECAP_HEADING];
  if (recap.tasks.length > 0) {
    lines.push('Tasks:');
    for (const task of recap.tasks) {
      const status = task.status === 'completed' ? 'completed' : 'in progress';
      const title = task.title ? ` ${task.title}` : '';
      lines.push(`- ${task.id} (${status})${title}${task.summary ? `: ${task.summary}` : ''}`);
    }
  }
  // Decisions and questions are written as "Decision: …" lines, the form they are read from, so a later
  // recap built over this one carries them forward.
  for (const decision of recap.decisions) lines.push(`Decision: ${decision}`);
  for (const question of recap.openQuestions) lines.push(`Open question: ${question}`);
  if (recap.filesTouched.length > 0)
    lines.push(FILES_HEADING, ...recap.filesTouched.map((file) => `- ${file}`));
  // Last, because a request may span lines: an earlier recap's request is everything after its label.
  if (recap.lastUserRequest !== undefined) lines.push(`${REQUEST_LABEL}${recap.lastUserRequest}`);
  return lines.join('\n');
}

/**
 * A deterministic recap of a history: the tasks and their summaries, decisions and open questions (from the
 * tasks and from `Decision:` / `Open question:` lines in user and assistant text, earlier recaps included),
 * files touched (path-like arguments of tool calls, paths in user and assistant text) and the last user
 * request. Same history and tasks, same recap: no LLM, no clock.
 */
export function buildRecap(
  history: readonly HistoryItem[],
  tasks: TaskList | readonly TaskRecord[] = [],
  options: RecapOptions = {},
): Recap {
  const taskRecords = 'tasks' in tasks ? tasks.tasks : tasks;
  const decisions: string[] = [];
  const openQuestions: string[] = [];
  const files: string[] = [];
  let lastUserRequest: string | undefined;
  for (const task of taskRecords) {
    decisions.push(...task.decisions);
    openQuestions.push(...task.openQuestions);
  }
  for (const item of history) {
    if (item.kind === 'tool-call' && item.archivedTo === undefined)
      pathsInValue(item.input, undefined, files, 0);
    if (item.kind !== 'user' && item.kind !== 'assistant') continue;
    linesMatching(item.text, DECISION_LINE, decisions);
    linesMatching(item.text, QUESTION_LINE, openQuestions);
    if (item.kind === 'user' && item.recap === true) {
      lastUserRequest = fromEarlierRecap(item.text, files) ?? lastUserRequest;
      continue;
    }
    pathsInText(item.text, files);
    if (item.kind === 'user') lastUserRequest = item.text;
  }
  const maxNotes = options.maxNotes ?? DEFAULT_RECAP_MAX_NOTES;
  const maxRequest = options.maxRequestChars ?? DEFAULT_RECAP_MAX_REQUEST_CHARS;
  const recap: Omit<Recap, 'text'> = {
    tasks: taskRecords.map((task) => ({
      id: task.id,
      ...(task.title !== undefined ? { title: task.title } : {}),
      status: task.status,
      ...(task.summary !== undefined ? { summary: task.summary } : {}),
    })),
    decisions: lastUnique(decisions, maxNotes),
    openQuestions: lastUnique(openQuestions, maxNotes),
    filesTouched: lastUnique(files, options.maxFiles ?? DEFAULT_RECAP_MAX_FILES),
    ...(lastUserRequest !== undefined
      ? {
          lastUserRequest:
            lastUserRequest.length > maxRequest
              ? `${lastUserRequest.slice(0, maxRequest)}…`
              : lastUserRequest,
        }
      : {}),
  };
  return { ...recap, text: render(recap) };
}
