import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import type { HistoryItem } from './history-item.js';
import { completeTask, createTaskList, startTask, tagToolItems } from './task-list.js';

function issueOf(call: () => unknown): { field: string; message: string } | undefined {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(BarometerValidationError);
    return (error as BarometerValidationError).issues[0];
  }
  return undefined;
}

describe('startTask', () => {
  it('adds an in-progress task and makes it active', () => {
    const list = startTask(createTaskList(), { taskId: 'fix-parser', title: 'Fix the parser', now: 1000 });
    expect(list.activeTaskId).toBe('fix-parser');
    expect(list.tasks).toEqual([
      {
        id: 'fix-parser',
        title: 'Fix the parser',
        status: 'in_progress',
        decisions: [],
        openQuestions: [],
        startedAt: 1000,
      },
    ]);
  });
  it('rejects a task id that could escape the archive directory', () => {
    expect(issueOf(() => startTask(createTaskList(), { taskId: '../etc', now: 0 }))?.field).toBe('taskId');
    expect(issueOf(() => startTask(createTaskList(), { taskId: 'a..b', now: 0 }))?.field).toBe('taskId');
    expect(issueOf(() => startTask(createTaskList(), { taskId: 'a/b', now: 0 }))?.field).toBe('taskId');
  });
  it('rejects an id already used', () => {
    const list = startTask(createTaskList(), { taskId: 't1', now: 0 });
    expect(issueOf(() => startTask(list, { taskId: 't1', now: 1 }))?.message).toMatch(/already exists/);
  });
});

describe('completeTask', () => {
  const started = startTask(createTaskList(), { taskId: 't1', now: 0 });

  it('requires a result summary of at least 15 characters, naming the field', () => {
    const issue = issueOf(() => completeTask(started, { taskId: 't1', summary: 'done', now: 5 }));
    expect(issue?.field).toBe('summary');
    expect(issue?.message).toMatch(/15 characters/);
  });
  it('does not count surrounding spaces towards the 15 characters', () => {
    // "fourteen chars" is 14 characters; the padding must not make it pass.
    expect(
      issueOf(() => completeTask(started, { taskId: 't1', summary: '   fourteen chars   ', now: 5 }))?.field,
    ).toBe('summary');
  });
  it('accepts exactly 15 characters and records the completion', () => {
    const list = completeTask(started, {
      taskId: 't1',
      summary: 'fifteen chars!!',
      decisions: ['keep zod'],
      openQuestions: ['bump Node?'],
      now: 5,
    });
    expect(list.activeTaskId).toBeUndefined();
    expect(list.tasks[0]).toMatchObject({
      status: 'completed',
      summary: 'fifteen chars!!',
      decisions: ['keep zod'],
      openQuestions: ['bump Node?'],
      completedAt: 5,
    });
    expect(started.tasks[0]?.status).toBe('in_progress');
  });
  it('rejects an unknown task and a second completion', () => {
    expect(
      issueOf(() => completeTask(started, { taskId: 'nope', summary: 'a long enough summary', now: 1 }))
        ?.field,
    ).toBe('taskId');
    const done = completeTask(started, { taskId: 't1', summary: 'a long enough summary', now: 1 });
    expect(
      issueOf(() => completeTask(done, { taskId: 't1', summary: 'a long enough summary', now: 2 }))?.message,
    ).toMatch(/already completed/);
  });
});

describe('tagToolItems', () => {
  const items: HistoryItem[] = [
    { kind: 'user', id: 'u', text: 'go' },
    { kind: 'tool-call', id: 'c', callId: 'c', name: 'bash', input: {} },
    { kind: 'tool-result', id: 'c:result', callId: 'c', content: 'out' },
    { kind: 'tool-result', id: 'd:result', callId: 'd', content: 'out', taskId: 'older' },
  ];

  it('tags untagged tool calls and results with the task and leaves other items alone', () => {
    const tagged = tagToolItems(items, 't1');
    expect(tagged.map((item) => ('taskId' in item ? item.taskId : undefined))).toEqual([
      undefined,
      't1',
      't1',
      'older',
    ]);
    expect(tagged[0]).toBe(items[0]);
    expect(items[1]).not.toHaveProperty('taskId');
  });
  it('tags nothing without an active task', () => {
    expect(tagToolItems(items, undefined)).toEqual(items);
  });
});
