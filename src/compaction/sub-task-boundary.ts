import type { HistoryItem, ToolCallItem } from './history-item.js';

/** What ended a piece of work. */
export const BOUNDARY_KINDS = [
  'todo-completed',
  'task-complete',
  'command',
  'user-request',
  'task-mark',
] as const;
export type BoundaryKind = (typeof BOUNDARY_KINDS)[number];

/** Where a sub-task ended: the items before `end` belong to work that is done. */
export interface SubTaskBoundary {
  kind: BoundaryKind;
  /** Items before this position are complete (for a tool call, its result included). */
  end: number;
  /** What the boundary was: the completed plan item, the command, the first words of the request. */
  detail: string;
}

/**
 * User text an agent writes on the user's behalf, not a request: Claude Code's command wrappers
 * (`<command-name>`, `<local-command-stdout>`, `<task-notification>`, `<system-reminder>`), its "Caveat: The
 * messages below were generated…" preamble and its "[Request interrupted by user…]" marker; Codex's
 * `<environment_context>` and `<user_instructions>` blocks.
 */
const NOT_A_REQUEST =
  /^\s*(?:<[a-z][\w-]*>|\[Request interrupted by user|Caveat: The messages below were generated|# AGENTS\.md instructions)/;

/** Whether a user item is a request of the user (not a recap, not text the agent wrapped as the user's). */
export function isUserRequest(item: HistoryItem): boolean {
  return (
    item.kind === 'user' && item.recap !== true && !NOT_A_REQUEST.test(item.text) && item.text.trim() !== ''
  );
}

/**
 * A tool call's arguments as an object: the input itself, or the raw arguments text parsed when it is JSON (a
 * log may keep the arguments as the text the model wrote, e.g. Codex's `function_call.arguments`).
 */
export function inputObjectOf(item: ToolCallItem): Record<string, unknown> | undefined {
  let input = item.input;
  if (typeof input === 'string' && input.startsWith('{')) {
    try {
      input = JSON.parse(input);
    } catch {
      return undefined;
    }
  }
  return typeof input === 'object' && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : undefined;
}

/** The plan a TodoWrite (`todos[].content/status`) or update_plan (`plan[].step/status`) call writes. */
export function planOf(item: ToolCallItem): Array<{ text: string; status: string }> | undefined {
  const record = inputObjectOf(item);
  if (!record) return undefined;
  const list = Array.isArray(record.todos)
    ? record.todos
    : Array.isArray(record.plan)
      ? record.plan
      : undefined;
  if (!list) return undefined;
  const steps: Array<{ text: string; status: string }> = [];
  for (const entry of list) {
    if (typeof entry !== 'object' || entry === null) continue;
    const step = entry as Record<string, unknown>;
    const text =
      typeof step.content === 'string' ? step.content : typeof step.step === 'string' ? step.step : '';
    steps.push({ text, status: typeof step.status === 'string' ? step.status : '' });
  }
  return steps;
}

/** The command a shell tool ran (`command`, `cmd`, or `argv`-style arrays), or the input's JSON text. */
export function commandOf(item: ToolCallItem): string {
  const record = inputObjectOf(item);
  if (record) {
    for (const key of ['command', 'cmd']) {
      const value = record[key];
      if (typeof value === 'string') return value;
      if (Array.isArray(value)) return value.filter((part) => typeof part === 'string').join(' ');
    }
  }
  return typeof item.input === 'string' ? item.input : (JSON.stringify(item.input ?? {}) ?? '');
}

/**
 * Claude Code's task list (2.1.x: `TodoWrite` disabled, deferred tools `TaskCreate` / `TaskUpdate` loaded through
 * `ToolSearch`): `TaskUpdate { taskId, status: "completed" }` marks a task done; its subject is the `subject` of the
 * `TaskCreate` whose result named that id ("Task #<id> created successfully…"). docs/rules.md, "Sub-task boundaries".
 */
export function taskUpdateOf(item: ToolCallItem): { taskId: string; status: string } | undefined {
  if (item.name !== 'TaskUpdate') return undefined;
  const record = inputObjectOf(item);
  if (!record || (typeof record.taskId !== 'string' && typeof record.taskId !== 'number')) return undefined;
  return { taskId: String(record.taskId), status: typeof record.status === 'string' ? record.status : '' };
}

const TASK_CREATED = /Task #([^\s"\\]+) created successfully/;
/**
 * barometer's own MCP tool `end_subtask` as an agent names it: bare, or with its server's prefix (Claude Code names an
 * MCP tool `mcp__<server>__<tool>`; docs/rules.md, "The agent ends a sub-task"), whatever the server is called.
 */
const END_SUBTASK = /(?:^|__)end_subtask$/;

/** What the agent said of the sub-task it ended (`end_subtask`'s `summary`), in a few words. */
function endedSubtask(item: ToolCallItem): string {
  const summary = inputObjectOf(item)?.summary;
  return typeof summary === 'string' && summary.trim() !== '' ? summary.trim().slice(0, 80) : 'end_subtask';
}
/** A Codex shell result that names a non-zero exit: "Exit code: N" (its text format) or JSON `metadata.exit_code`. */
const EXIT_CODE_TEXT = /^(?:Exit code: |Process exited with code )(\d+)/m;
const EXIT_CODE_JSON = /"exit_code"\s*:\s*(\d+)/;

/**
 * Whether a tool result says its command failed: the provider's error flag (Anthropic `is_error`, what Claude Code
 * sets for a command that exited non-zero), or a non-zero exit code in Codex's shell output. A failed commit
 * recorded nothing: it ends no sub-task, and its error message is what the agent needs next.
 */
export function resultFailed(item: HistoryItem | undefined): boolean {
  if (item?.kind !== 'tool-result') return false;
  if (item.isError === true) return true;
  const head = item.content.slice(0, 4096);
  const code = EXIT_CODE_TEXT.exec(head)?.[1] ?? EXIT_CODE_JSON.exec(head)?.[1];
  return code !== undefined && code !== '0';
}

/** The state boundary detection carries between scans (plain JSON). */
export interface BoundaryScan {
  /** Texts of the plan items already seen completed. */
  completedPlanItems: string[];
}

export interface DetectBoundariesOptions {
  /** Regular expressions (source text) of commands that record finished work, matched against a tool's command. */
  commandPatterns: readonly RegExp[];
  /** Which kinds of boundary count. */
  kinds: ReadonlySet<BoundaryKind>;
}

/**
 * The sub-task boundaries among the items from `from` on: a plan item newly marked completed (TodoWrite,
 * update_plan), a command that records finished work (`git commit` by default), a new user request. A tool
 * call's boundary ends after its result; a request's boundary ends where the request starts (the work before it is
 * done). `scan.completedPlanItems` is updated in place. Pure: no clock, no I/O.
 */
export function detectBoundaries(
  history: readonly HistoryItem[],
  from: number,
  scan: BoundaryScan,
  options: DetectBoundariesOptions,
): { boundaries: SubTaskBoundary[]; resumeAt: number } {
  const found: SubTaskBoundary[] = [];
  // A tool call whose result has not come yet is looked at again on the next scan.
  let resumeAt = history.length;
  const resultAt = (callId: string, after: number) => {
    for (let position = after + 1; position < history.length; position++) {
      const item = history[position];
      if (item?.kind === 'tool-result' && item.callId === callId) return position + 1;
    }
    return undefined;
  };
  /** Where a boundary call's sub-task ends: after its result; undefined while it has none or when it failed. */
  const endOf = (callId: string, position: number): number | 'pending' | 'failed' => {
    const end = resultAt(callId, position);
    if (end === undefined) return 'pending';
    return resultFailed(history[end - 1]) ? 'failed' : end;
  };
  let subjects: Map<string, string> | undefined;
  const subjectOf = (taskId: string) => {
    subjects ??= taskSubjects(history);
    return subjects.get(taskId);
  };
  const completed = new Set(scan.completedPlanItems);
  let seenContent = from > 0;
  for (let position = from; position < history.length; position++) {
    const item = history[position] as HistoryItem;
    if (item.kind === 'user') {
      if (seenContent && options.kinds.has('user-request') && isUserRequest(item))
        found.push({ kind: 'user-request', end: position, detail: item.text.slice(0, 80) });
      continue;
    }
    if (item.kind !== 'system') seenContent = true;
    if (item.kind !== 'tool-call' || item.archivedTo !== undefined) continue;
    if (END_SUBTASK.test(item.name)) {
      // The agent says its sub-task is done: everything before the tool's answer is finished work.
      const end = endOf(item.callId, position);
      if (end === 'pending') resumeAt = Math.min(resumeAt, position);
      else if (end !== 'failed' && options.kinds.has('task-mark'))
        found.push({ kind: 'task-mark', end, detail: endedSubtask(item) });
      continue;
    }
    const update = taskUpdateOf(item);
    if (update) {
      const end = endOf(item.callId, position);
      if (end === 'pending') resumeAt = Math.min(resumeAt, position);
      const key = `task #${update.taskId}`;
      if (typeof end !== 'number' || update.status !== 'completed' || completed.has(key)) continue;
      completed.add(key);
      if (options.kinds.has('todo-completed'))
        found.push({
          kind: 'todo-completed',
          end,
          detail: subjectOf(update.taskId) ?? key,
        });
      continue;
    }
    const plan = planOf(item);
    if (plan) {
      const end = endOf(item.callId, position);
      if (end === 'pending') resumeAt = Math.min(resumeAt, position);
      if (typeof end !== 'number') continue;
      const fresh = plan.filter((step) => step.status === 'completed' && !completed.has(step.text));
      for (const step of fresh) completed.add(step.text);
      if (fresh.length > 0 && options.kinds.has('todo-completed'))
        found.push({ kind: 'todo-completed', end, detail: fresh.map((step) => step.text).join('; ') });
      continue;
    }
    if (!options.kinds.has('command') || options.commandPatterns.length === 0) continue;
    const command = commandOf(item);
    if (!options.commandPatterns.some((candidate) => candidate.test(command))) continue;
    const end = endOf(item.callId, position);
    if (end === 'pending') resumeAt = Math.min(resumeAt, position);
    else if (end !== 'failed') found.push({ kind: 'command', end, detail: command.slice(0, 80) });
  }
  scan.completedPlanItems = [...completed];
  return { boundaries: found, resumeAt };
}

/** The subjects of the tasks a `TaskCreate` made, by the id its result gave them. */
function taskSubjects(history: readonly HistoryItem[]): Map<string, string> {
  const subjects = new Map<string, string>();
  const pending = new Map<string, string>();
  for (const item of history) {
    if (item.kind === 'tool-call' && item.name === 'TaskCreate') {
      const subject = inputObjectOf(item)?.subject;
      if (typeof subject === 'string') pending.set(item.callId, subject);
    } else if (item.kind === 'tool-result' && pending.has(item.callId)) {
      const id = TASK_CREATED.exec(item.content)?.[1];
      if (id !== undefined) subjects.set(id, pending.get(item.callId) as string);
    }
  }
  return subjects;
}
