import * as z from 'zod';
import { BarometerValidationError } from '../errors/validation.js';
import { ArchiveIdSchema } from './archive-sink.js';
import type { HistoryItem } from './history-item.js';
import { parseOrThrow } from './parse-or-throw.js';

/** Task ids name archive files (`<session>/<task>.log`), so they follow the archive's id rule. */
export const TaskIdSchema = ArchiveIdSchema;

/** A result summary must say something: the seed evicts a task's outputs only against a summary. */
export const MIN_SUMMARY_LENGTH = 15;

export const TaskStatusSchema = z.enum(['in_progress', 'completed']);

/** One unit of work whose tool outputs are tagged with its id. Times are milliseconds since the epoch. */
export const TaskRecordSchema = z.strictObject({
  id: TaskIdSchema,
  title: z.string().optional(),
  status: TaskStatusSchema,
  summary: z.string().optional(),
  decisions: z.array(z.string()),
  openQuestions: z.array(z.string()),
  startedAt: z.number(),
  completedAt: z.number().optional(),
});
export type TaskRecord = z.infer<typeof TaskRecordSchema>;

/** The session's tasks, in the order they started; `activeTaskId` is the one new tool outputs belong to. */
export interface TaskList {
  readonly tasks: readonly TaskRecord[];
  readonly activeTaskId?: string;
}

export const StartTaskSchema = z.strictObject({
  taskId: TaskIdSchema,
  title: z.string().optional(),
  now: z.number(),
});
export type StartTask = z.infer<typeof StartTaskSchema>;

export const CompleteTaskSchema = z.strictObject({
  taskId: TaskIdSchema,
  summary: z
    .string()
    .refine(
      (value) => [...value.trim()].length >= MIN_SUMMARY_LENGTH,
      `must be a result summary of at least ${MIN_SUMMARY_LENGTH} characters`,
    ),
  decisions: z.array(z.string()).optional(),
  openQuestions: z.array(z.string()).optional(),
  now: z.number(),
});
export type CompleteTask = z.infer<typeof CompleteTaskSchema>;

export function createTaskList(): TaskList {
  return { tasks: [] };
}

function taskIssue(taskId: string, message: string): BarometerValidationError {
  return new BarometerValidationError([{ field: 'taskId', value: taskId, message }], 'task');
}

/**
 * Starts a task and makes it the active one: tool outputs from now on belong to it (see {@link tagToolItems}).
 * @throws BarometerValidationError when the id is invalid or already used
 */
export function startTask(list: TaskList, input: StartTask): TaskList {
  const { taskId, title, now } = parseOrThrow(StartTaskSchema, input, 'task');
  if (list.tasks.some((task) => task.id === taskId))
    throw taskIssue(taskId, 'a task with this id already exists');
  const task: TaskRecord = {
    id: taskId,
    ...(title !== undefined ? { title } : {}),
    status: 'in_progress',
    decisions: [],
    openQuestions: [],
    startedAt: now,
  };
  return { tasks: [...list.tasks, task], activeTaskId: taskId };
}

/**
 * Completes a task with its result summary (≥ 15 characters, surrounding spaces not counted). The caller then
 * evicts the task's outputs with `evictTask`. The active task is cleared if it was this one.
 * @throws BarometerValidationError naming `summary` when it is too short, or `taskId` when there is no such
 *   task in progress
 */
export function completeTask(list: TaskList, input: CompleteTask): TaskList {
  const { taskId, summary, decisions, openQuestions, now } = parseOrThrow(
    CompleteTaskSchema,
    input,
    'task completion',
  );
  const current = list.tasks.find((task) => task.id === taskId);
  if (!current) throw taskIssue(taskId, 'no task with this id');
  if (current.status === 'completed') throw taskIssue(taskId, 'the task is already completed');
  const completed: TaskRecord = {
    ...current,
    status: 'completed',
    summary: summary.trim(),
    decisions: [...current.decisions, ...(decisions ?? [])],
    openQuestions: [...current.openQuestions, ...(openQuestions ?? [])],
    completedAt: now,
  };
  const tasks = list.tasks.map((task) => (task === current ? completed : task));
  return list.activeTaskId === taskId ? { tasks } : { tasks, activeTaskId: list.activeTaskId };
}

/**
 * Tags the tool calls and tool results that carry no task yet with `taskId` (the seed's hidden
 * `sigma-task` marker, as a field instead of text in the output). Items already tagged keep their task;
 * untouched items are the same objects, so tagging each new turn costs only the new items.
 */
export function tagToolItems(items: readonly HistoryItem[], taskId: string | undefined): HistoryItem[] {
  if (taskId === undefined) return [...items];
  return items.map((item) =>
    (item.kind === 'tool-call' || item.kind === 'tool-result') && item.taskId === undefined
      ? { ...item, taskId }
      : item,
  );
}
