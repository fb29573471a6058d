import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { ArchiveStore } from '../store/archive.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { ArchiveEntry, ArchiveSink } from './archive-sink.js';
import {
  DEFAULT_MIN_FREED_TOKENS,
  EvictionPolicy,
  type EvictionPolicyState,
  initialEvictionState,
} from './eviction-policy.js';
import { DEFAULT_COMMAND_PATTERNS } from './eviction-policy-options.js';
import { type HistoryItem, itemText } from './history-item.js';
import { TOMBSTONE_TOKENS_ESTIMATE } from './plan-batch.js';

let root: string;
let archive: ArchiveStore;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-policy-'));
  archive = new ArchiveStore({ root, durable: false });
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** Every item costs its characters ÷ 4 tokens: the figures below are worked out by hand from that. */
const sizeOf = (item: HistoryItem) => Math.ceil(itemText(item).length / 4);

const fileText = 'x'.repeat(2000); // a Read result: 500 tokens
const written = 'y'.repeat(3000); // a Write: `Write {"file_path":"/r/b.ts","content":"…"}` is 3,042 characters → 761 tokens

function committedHistory(): HistoryItem[] {
  return [
    { kind: 'system', id: 's', text: 'You are a coding agent.' },
    { kind: 'user', id: 'u1', text: 'Fix the bug in a.ts' },
    { kind: 'tool-call', id: 'c1', callId: 'c1', name: 'Read', input: { file_path: '/r/a.ts' } },
    { kind: 'tool-result', id: 'c1:result', callId: 'c1', content: fileText },
    {
      kind: 'tool-call',
      id: 'c2',
      callId: 'c2',
      name: 'Write',
      input: { file_path: '/r/b.ts', content: written },
    },
    { kind: 'tool-result', id: 'c2:result', callId: 'c2', content: 'File written' },
    { kind: 'tool-call', id: 'c3', callId: 'c3', name: 'Bash', input: { command: 'git commit -m "fix a"' } },
    { kind: 'tool-result', id: 'c3:result', callId: 'c3', content: '[main 1a2b3c] fix a' },
  ];
}

const everything = new EvictionPolicy({ minFreedTokens: 0 });

describe('sub-task boundaries', () => {
  it('ends a sub-task after the result of a git commit run by a tool', () => {
    const decision = everything.decide(committedHistory(), { sizeOf });
    expect(decision.boundary).toEqual({ kind: 'command', end: 8, detail: 'git commit -m "fix a"' });
    expect(decision.state.completedUpTo).toBe(8);
  });

  it('ends a sub-task where a new user request starts, not at text the agent wrapped as the user', () => {
    const history: HistoryItem[] = [
      ...committedHistory().slice(0, 4),
      { kind: 'user', id: 'u0', text: '<system-reminder>files changed</system-reminder>' },
      { kind: 'assistant', id: 'a1', text: 'The bug is on line 3.' },
      { kind: 'user', id: 'u2', text: 'Now add a test' },
    ];
    const decision = everything.decide(history, { sizeOf });
    expect(decision.boundary?.kind).toBe('user-request');
    expect(decision.boundary?.end).toBe(6);
  });

  it('ends a sub-task when a TodoWrite marks an item completed, and keeps the latest plan', () => {
    const plan = (status: string) => ({
      todos: [
        { content: 'Find the bug in a.ts and explain the failing assertion in detail', status },
        { content: 'Write a regression test covering the empty input case', status: 'pending' },
      ],
    });
    const history: HistoryItem[] = [
      { kind: 'user', id: 'u1', text: 'Fix the bug in a.ts' },
      { kind: 'tool-call', id: 't1', callId: 't1', name: 'TodoWrite', input: plan('in_progress') },
      { kind: 'tool-result', id: 't1:result', callId: 't1', content: 'Todos updated' },
      ...committedHistory().slice(2, 4),
      { kind: 'tool-call', id: 't2', callId: 't2', name: 'TodoWrite', input: plan('completed') },
      { kind: 'tool-result', id: 't2:result', callId: 't2', content: 'Todos updated' },
    ];
    const decision = new EvictionPolicy({ minFreedTokens: 0, minArgumentTokens: 10 }).decide(history, {
      sizeOf,
    });
    expect(decision.boundary).toMatchObject({ kind: 'todo-completed', end: 7 });
    const evicted = decision.evict?.steps.map((step) => step.itemId);
    // The first plan (stale) and the read go; the latest plan stays: it is what is left to do.
    expect(evicted).toEqual(['t1', 'c1:result']);
    // A plan item already completed does not end another sub-task.
    const again = everything.decide(history, { sizeOf, state: decision.state });
    expect(again.boundary).toBeNull();
  });

  it("ends a sub-task when Claude Code's TaskUpdate marks a task completed, named by its TaskCreate subject", () => {
    // Claude Code 2.1.328: TodoWrite is disabled; TaskCreate {subject, description} answers "Task #<id> created
    // successfully: …"; TaskUpdate {taskId, status} answers "Updated task #<id> status".
    const update = (id: string, status: string, taskId = '1'): HistoryItem[] => [
      { kind: 'tool-call', id, callId: id, name: 'TaskUpdate', input: { taskId, status } },
      { kind: 'tool-result', id: `${id}:result`, callId: id, content: `Updated task #${taskId} status` },
    ];
    const history: HistoryItem[] = [
      { kind: 'user', id: 'u1', text: 'Fix the bug in a.ts' },
      {
        kind: 'tool-call',
        id: 'k1',
        callId: 'k1',
        name: 'TaskCreate',
        input: { subject: 'Fix a.ts', description: 'Find and fix the bug' },
      },
      {
        kind: 'tool-result',
        id: 'k1:result',
        callId: 'k1',
        content: JSON.stringify([{ type: 'text', text: 'Task #1 created successfully: Fix a.ts' }]),
      },
      ...update('p1', 'in_progress'),
      ...committedHistory().slice(2, 4),
      ...update('p2', 'completed'),
    ];
    const decision = everything.decide(history, { sizeOf });
    expect(decision.boundary).toEqual({ kind: 'todo-completed', end: 9, detail: 'Fix a.ts' });
    // The same task completed again ends nothing more; another task does, by its id when no TaskCreate named it.
    const later = [...history, ...update('p3', 'completed'), ...update('p4', 'completed', '7')];
    const next = everything.decide(later, { sizeOf, state: decision.state });
    expect(next.boundary).toEqual({ kind: 'todo-completed', end: 13, detail: 'task #7' });
  });

  it("ends a sub-task when Codex's update_plan marks a step completed", () => {
    const plan = (status: string) => ({ plan: [{ step: 'Fix the parser', status }] });
    const history: HistoryItem[] = [
      { kind: 'user', id: 'u1', text: 'Fix the parser' },
      { kind: 'tool-call', id: 'q1', callId: 'q1', name: 'update_plan', input: plan('in_progress') },
      { kind: 'tool-result', id: 'q1:result', callId: 'q1', content: 'Plan updated' },
      ...committedHistory().slice(2, 4),
      { kind: 'tool-call', id: 'q2', callId: 'q2', name: 'update_plan', input: plan('completed') },
      { kind: 'tool-result', id: 'q2:result', callId: 'q2', content: 'Plan updated' },
    ];
    expect(everything.decide(history, { sizeOf }).boundary).toEqual({
      kind: 'todo-completed',
      end: 7,
      detail: 'Fix the parser',
    });
  });

  it('recognises git commit after git global options (-C <dir>, -c k=v, --no-pager)', () => {
    for (const command of [
      'git -C /work/repo commit -qm "part one"',
      'git -C "my repo" commit -m x',
      'git -c user.name=Bot -c user.email=bot@example.com commit -m x',
      'git --no-pager commit -m x',
      'cd sub && git --git-dir=.git commit -am x',
    ]) {
      const history = committedHistory();
      history[6] = { kind: 'tool-call', id: 'c3', callId: 'c3', name: 'Bash', input: { command } };
      expect(everything.decide(history, { sizeOf }).boundary, command).toMatchObject({ kind: 'command' });
    }
    const history = committedHistory();
    history[6] = {
      kind: 'tool-call',
      id: 'c3',
      callId: 'c3',
      name: 'Bash',
      input: { command: 'git log -1' },
    };
    expect(everything.decide(history, { sizeOf }).boundary).toBeNull();
  });

  it('ends nothing at a command that failed: is_error, or a non-zero exit code in Codex output', () => {
    const failed = (content: string, isError?: boolean) => {
      const history = committedHistory();
      history[7] = {
        kind: 'tool-result',
        id: 'c3:result',
        callId: 'c3',
        content,
        ...(isError === undefined ? {} : { isError }),
      };
      return everything.decide(history, { sizeOf }).boundary;
    };
    expect(failed('fatal: not a git repository (or any of the parent directories): .git', true)).toBeNull();
    expect(failed('Exit code: 128\nWall time: 0 seconds\nOutput:\nfatal: not a git repository')).toBeNull();
    expect(
      failed('{"output":"nothing to commit","metadata":{"exit_code":1,"duration_seconds":0.1}}'),
    ).toBeNull();
    expect(failed('Exit code: 0\nWall time: 0 seconds\nOutput:\n[main 1a2b3c] fix a')).toMatchObject({
      kind: 'command',
    });
  });

  it('waits for the result of a boundary call before ending the sub-task', () => {
    const history = committedHistory().slice(0, 7);
    const first = everything.decide(history, { sizeOf });
    expect(first.boundary).toBeNull();
    const second = everything.decide(committedHistory(), { sizeOf, state: first.state });
    expect(second.boundary?.end).toBe(8);
  });

  it('takes a boundary the caller signals (Codex task_complete, a task marked done)', () => {
    const history = committedHistory().slice(0, 6);
    expect(everything.decide(history, { sizeOf }).boundary).toBeNull();
    const decision = everything.decide(history, { sizeOf, signals: ['task-complete'] });
    expect(decision.boundary).toMatchObject({ kind: 'task-complete', end: 6 });
  });

  it("ends a sub-task when the agent calls barometer's MCP tool end_subtask, under any server's prefix", () => {
    const ended = (name: string, result: Partial<HistoryItem> = {}): HistoryItem[] => [
      ...committedHistory().slice(0, 6),
      { kind: 'tool-call', id: 'e1', callId: 'e1', name, input: { summary: 'fixed the bug in a.ts' } },
      { kind: 'tool-result', id: 'e1:result', callId: 'e1', content: 'ok', ...result } as HistoryItem,
    ];
    for (const name of ['mcp__barometer__end_subtask', 'mcp__my-tools__end_subtask', 'end_subtask']) {
      const decision = everything.decide(ended(name), { sizeOf });
      expect(decision.boundary, name).toEqual({ kind: 'task-mark', end: 8, detail: 'fixed the bug in a.ts' });
      expect(decision.evict?.steps.map((step) => step.itemId)).toEqual(['c1:result', 'c2']);
    }
    // Not barometer's tool, a call that failed, and a call still waiting for its answer end nothing.
    expect(everything.decide(ended('mcp__x__end_subtasks'), { sizeOf }).boundary).toBeNull();
    expect(everything.decide(ended('end_subtask', { isError: true }), { sizeOf }).boundary).toBeNull();
    expect(everything.decide(ended('end_subtask').slice(0, 7), { sizeOf }).boundary).toBeNull();
    // Off with its kind.
    const commitsOnly = new EvictionPolicy({ boundaries: ['command'], minFreedTokens: 0 });
    expect(commitsOnly.decide(ended('end_subtask'), { sizeOf }).boundary).toBeNull();
  });

  it('counts only the kinds of boundary it is given', () => {
    const policy = new EvictionPolicy({ boundaries: ['user-request'] });
    expect(policy.decide(committedHistory(), { sizeOf }).boundary).toBeNull();
  });
});

describe('the batch evicted at a boundary', () => {
  it('holds the tool results and the large arguments of the completed sub-task, in history order', () => {
    const decision = everything.decide(committedHistory(), { sizeOf });
    expect(decision.evict?.taskId).toBe('subtask-1');
    expect(decision.evict?.steps.map(({ position, itemId, field }) => ({ position, itemId, field }))).toEqual(
      [
        { position: 3, itemId: 'c1:result', field: 'content' },
        { position: 4, itemId: 'c2', field: 'input' },
      ],
    );
    // 500 + 761 tokens, less the 100 a tombstone takes (the proxy's text, docs/rules.md "Tombstones") for each.
    expect(TOMBSTONE_TOKENS_ESTIMATE).toBe(100);
    expect(decision.evict?.freedTokens).toBe(500 - 100 + 761 - 100);
    expect(decision.evict?.firstChanged).toBe(3);
  });

  it('leaves short results and arguments (a path, a command, "File written") in place', () => {
    const steps = everything.decide(committedHistory(), { sizeOf }).evict?.steps ?? [];
    expect(steps.map((step) => step.itemId)).not.toContain('c1');
    expect(steps.map((step) => step.itemId)).not.toContain('c2:result');
    expect(steps.map((step) => step.itemId)).not.toContain('c3:result');
  });

  it('keeps the latest text of a file the open sub-task already names', () => {
    const history: HistoryItem[] = [
      ...committedHistory(),
      {
        kind: 'tool-call',
        id: 'c4',
        callId: 'c4',
        name: 'Edit',
        input: { file_path: '/r/a.ts', old_string: 'a' },
      },
    ];
    const steps = everything.decide(history, { sizeOf }).evict?.steps ?? [];
    expect(steps.map((step) => step.itemId)).toEqual(['c2']);
    const without = new EvictionPolicy({ minFreedTokens: 0, keepFilesInUse: false }).decide(history, {
      sizeOf,
    });
    expect(without.evict?.steps.map((step) => step.itemId)).toEqual(['c1:result', 'c2']);
  });

  it('waits for the next boundary when the batch frees less than minFreedTokens', () => {
    const policy = new EvictionPolicy();
    expect(policy.options.minFreedTokens).toBe(DEFAULT_MIN_FREED_TOKENS);
    const first = policy.decide(committedHistory(), { sizeOf });
    expect(first.evict).toBeNull();
    expect(first.reasons.join(' ')).toContain('less than minFreedTokens 4000');
    // A second sub-task with a big output: both sub-tasks' items go in one batch.
    const history: HistoryItem[] = [
      ...committedHistory(),
      { kind: 'user', id: 'u2', text: 'Now run the whole suite' },
      { kind: 'tool-call', id: 'c5', callId: 'c5', name: 'Bash', input: { command: 'npm test' } },
      { kind: 'tool-result', id: 'c5:result', callId: 'c5', content: 'z'.repeat(16_000) },
      { kind: 'user', id: 'u3', text: 'Thanks, next' },
    ];
    const second = policy.decide(history, { sizeOf, state: first.state });
    expect(second.evict?.steps.map((step) => step.itemId)).toEqual(['c1:result', 'c2', 'c5:result']);
  });

  it('changes nothing between boundaries: the prompt prefix stays cacheable', () => {
    const first = everything.decide(committedHistory(), { sizeOf });
    const history: HistoryItem[] = [
      ...committedHistory(),
      { kind: 'tool-call', id: 'c6', callId: 'c6', name: 'Read', input: { file_path: '/r/c.ts' } },
      { kind: 'tool-result', id: 'c6:result', callId: 'c6', content: fileText },
    ];
    const state: EvictionPolicyState = { ...first.state, batches: 1 };
    const next = everything.decide(history, { sizeOf, state });
    expect(next.boundary).toBeNull();
    expect(next.evict).toBeNull();
    expect(next.reasons[0]).toContain('no sub-task boundary');
  });
});

describe('the recap fallback', () => {
  it('asks for a recap when the prompt after evicting stays above recapAbovePercent of the window', () => {
    const decision = everything.decide(committedHistory(), {
      sizeOf,
      promptTokens: 150_000,
      contextWindow: 167_000,
    });
    // 150,000 − 1,061 freed = 148,939 > 80% of 167,000 = 133,600.
    expect(decision.recap).toEqual({ promptTokens: 148_939, thresholdTokens: 133_600 });
    const below = everything.decide(committedHistory(), {
      sizeOf,
      promptTokens: 100_000,
      contextWindow: 167_000,
    });
    expect(below.recap).toBeNull();
  });
});

describe('drift', () => {
  it('is the share of the prompt held by completed sub-tasks’ tool items that nothing names since', () => {
    const history: HistoryItem[] = [
      ...committedHistory(),
      {
        kind: 'tool-call',
        id: 'c4',
        callId: 'c4',
        name: 'Edit',
        input: { file_path: '/r/a.ts', old_string: 'a' },
      },
    ];
    const state: EvictionPolicyState = { ...initialEvictionState(), completedUpTo: 8 };
    const total = history.reduce((sum, item) => sum + sizeOf(item), 0);
    // Stale: c2 and its result, c3 and its result (a.ts is named again by c4, so c1 and its result are in use).
    const stale = [4, 5, 6, 7].reduce((sum, position) => sum + sizeOf(history[position] as HistoryItem), 0);
    expect(everything.drift(history, { state, sizeOf })).toBeCloseTo((stale / total) * 100, 10);
    // Against a prompt that also holds a system prompt and tools, the share is smaller.
    expect(everything.drift(history, { state, sizeOf, promptTokens: total * 2 })).toBeCloseTo(
      (stale / total) * 50,
      10,
    );
  });

  it('leaves out what the decision evicts', () => {
    const decision = everything.decide(committedHistory(), { sizeOf });
    const history = committedHistory();
    const stale = [2, 6, 7, 5].reduce((sum, position) => sum + sizeOf(history[position] as HistoryItem), 0);
    const total = history.reduce((sum, item) => sum + sizeOf(item), 0);
    expect(decision.driftPercent).toBeCloseTo((stale / total) * 100, 10);
  });
});

describe('apply', () => {
  it('archives first, then replaces each evicted content by its tombstone, pairs intact', async () => {
    const history = committedHistory();
    const decision = everything.decide(history, { sizeOf });
    const result = await everything.apply(history, decision, { archive, sessionId: 'policy-1' });
    expect(result.history).toHaveLength(history.length);
    expect(result.history.map((item) => item.id)).toEqual(history.map((item) => item.id));
    expect(history[3]).toEqual(committedHistory()[3]); // the caller's history is not changed
    const path = archive.pathFor('policy-1', 'subtask-1');
    expect(result.archive).toBe(path);
    expect(result.history[3]).toEqual({
      kind: 'tool-result',
      id: 'c1:result',
      callId: 'c1',
      content: `[Task subtask-1 completed: output evicted to archive] ${path}#c1:result`,
      archivedTo: `${path}#c1:result`,
    });
    expect(result.history[4]).toMatchObject({
      kind: 'tool-call',
      input: { evicted: `[Task subtask-1 completed: output evicted to archive] ${path}#c2` },
    });
    expect(result.state.batches).toBe(1);
    // Every evicted byte comes back from the archive.
    expect((await archive.readLocation(`${path}#c1:result`)).content).toBe(fileText);
    expect((await archive.readLocation(`${path}#c2`)).content).toBe(
      JSON.stringify(history[4]?.kind === 'tool-call' ? history[4].input : null),
    );
  });

  it('leaves the history as it was when the archive cannot be written', async () => {
    const failing: ArchiveSink = {
      append: async (_session: string, _task: string, _entries: readonly ArchiveEntry[]) => {
        throw new Error('disk full');
      },
    };
    const history = committedHistory();
    const decision = everything.decide(history, { sizeOf });
    await expect(
      everything.apply(history, decision, { archive: failing, sessionId: 'policy-2' }),
    ).rejects.toThrow('disk full');
    expect(history).toEqual(committedHistory());
  });

  it('runs the recap fallback when the decision asks for one', async () => {
    const counter = createTokenCounter();
    const long: HistoryItem[] = [
      { kind: 'system', id: 's', text: 'You are a coding agent.' },
      ...Array.from({ length: 6 }, (_, turn): HistoryItem[] => [
        { kind: 'user', id: `u${turn}`, text: `Step ${turn}: look at file ${turn}` },
        {
          kind: 'tool-call',
          id: `r${turn}`,
          callId: `r${turn}`,
          name: 'Read',
          input: { file_path: `/r/${turn}.ts` },
        },
        {
          kind: 'tool-result',
          id: `r${turn}:result`,
          callId: `r${turn}`,
          content: `line ${turn}\n`.repeat(800),
        },
        { kind: 'assistant', id: `a${turn}`, text: `File ${turn} is fine.` },
      ]).flat(),
    ];
    const policy = new EvictionPolicy({ keepTokens: 500, boundaries: ['task-mark'] });
    const decision = policy.decide(long, { sizeOf, promptTokens: 160_000, contextWindow: 167_000 });
    expect(decision.evict).toBeNull();
    expect(decision.recap).not.toBeNull();
    const result = await policy.apply(long, decision, { archive, sessionId: 'policy-3', counter });
    expect(result.recap?.ok).toBe(true);
    expect(result.history.length).toBeLessThan(long.length);
    expect(result.history.some((item) => item.kind === 'user' && item.recap === true)).toBe(true);
    expect(result.state.scanned).toBe(result.history.length);
  });
});

describe('options', () => {
  it('rejects an unknown key and a value out of range, naming the field', () => {
    expect(() => new EvictionPolicy({ minFreedToken: 3 } as never)).toThrow(BarometerValidationError);
    let fields: string[] = [];
    try {
      new EvictionPolicy({ recapAbovePercent: 120, commandPatterns: ['(unclosed'] });
    } catch (error) {
      fields = (error as BarometerValidationError).issues.map((issue) => issue.field);
    }
    expect(fields.sort()).toEqual(['commandPatterns[0]', 'recapAbovePercent']);
  });

  it('fills every default and does not keep the caller’s object', () => {
    const options = { minFreedTokens: 10 };
    const policy = new EvictionPolicy(options);
    options.minFreedTokens = 99;
    expect(policy.options).toMatchObject({
      minFreedTokens: 10,
      minResultTokens: 200,
      minArgumentTokens: 200,
      keepFilesInUse: true,
      recapAbovePercent: 80,
      keepTokens: 20_000,
      minGainPercent: 5,
    });
    expect(policy.options.commandPatterns).toEqual(DEFAULT_COMMAND_PATTERNS);
  });

  it('turns evictOnColdArrival on by default (the proxy reads a cold request before sending it) and takes only a boolean', () => {
    expect(new EvictionPolicy().options.evictOnColdArrival).toBe(true);
    expect(new EvictionPolicy({ evictOnColdArrival: false }).options.evictOnColdArrival).toBe(false);
    expect(() => new EvictionPolicy({ evictOnColdArrival: 'yes' } as never)).toThrow(
      BarometerValidationError,
    );
  });
});

describe('the levers of docs/decisions/035', () => {
  it('(a) evicts a superseded result with the batch, and (b) keeps the latest read of a file the open sub-task edits', () => {
    const history: HistoryItem[] = [
      ...committedHistory(),
      { kind: 'user', id: 'u2', text: 'Now fix b.ts and look at c.ts' },
      { kind: 'tool-call', id: 'c4', callId: 'c4', name: 'Read', input: { file_path: '/r/b.ts' } },
      { kind: 'tool-result', id: 'c4:result', callId: 'c4', content: written },
      {
        kind: 'tool-call',
        id: 'c5',
        callId: 'c5',
        name: 'Edit',
        input: { file_path: '/r/b.ts', old_string: 'y' },
      },
      { kind: 'tool-result', id: 'c5:result', callId: 'c5', content: 'The file has been updated.' },
      { kind: 'tool-call', id: 'c6', callId: 'c6', name: 'Read', input: { file_path: '/r/c.ts' } },
      { kind: 'tool-result', id: 'c6:result', callId: 'c6', content: fileText },
      { kind: 'tool-call', id: 'c7', callId: 'c7', name: 'Read', input: { file_path: '/r/c.ts' } },
      { kind: 'tool-result', id: 'c7:result', callId: 'c7', content: fileText },
    ];
    const policy = new EvictionPolicy({ minFreedTokens: 0, evictSuperseded: true });
    const decision = policy.decide(history, { sizeOf, signals: ['task-mark'] });
    // The boundary is the end of the history (the caller marked the task done): everything is completed. Of the
    // completed tool items: c1:result (a.ts, 500 tokens) and c2's input (b.ts's whole text, 761 tokens) go;
    // c4:result is b.ts read again, superseded by the edit, and c6:result is c.ts, read again whole by c7.
    expect(decision.evict?.steps.map((step) => step.itemId)).toEqual([
      'c1:result',
      'c2',
      'c4:result',
      'c6:result',
      'c7:result',
    ]);
    // Before the boundary, the sub-task that edits b.ts is open: the latest read of b.ts (c4) stays, the superseded
    // read of c.ts (c6) goes with the batch of the completed sub-task; c7 is the latest read of c.ts and stays.
    const open = policy.decide(history, { sizeOf });
    expect(open.evict?.steps.map((step) => step.itemId)).toEqual(['c1:result', 'c6:result']);
    // Without the lever, the batch is the completed sub-task's only (b.ts, named since, keeps its written text).
    const without = new EvictionPolicy({ minFreedTokens: 0 }).decide(history, { sizeOf });
    expect(without.evict?.steps.map((step) => step.itemId)).toEqual(['c1:result']);
  });

  it('(d) evicts a small batch when the cache is cold anyway, and holds a warm one until it pays back', () => {
    const cold = new EvictionPolicy({ evictWhenCold: true });
    // 1,061 tokens freed, under minFreedTokens (4,000): a warm cache keeps them, a cold one lets them go.
    expect(cold.decide(committedHistory(), { sizeOf }).evict).toBeNull();
    const free = cold.decide(committedHistory(), { sizeOf, cacheCold: true });
    expect(free.evict?.steps.map((step) => step.itemId)).toEqual(['c1:result', 'c2']);
    // Warm, with minFreedTokens 0 and no cache breakpoint in the history (Claude Code's: the system prompt and the
    // last message block): the next request writes the whole history less what it frees at 1.25 × input where it
    // would have read it all at 0.1 ×; each later request reads the freed tokens fewer (each item less a 100-token
    // tombstone), at 0.1 ×.
    const history = committedHistory();
    const freed = sizeOf(history[3]!) - 100 + (sizeOf(history[4]!) - 100);
    const whole = history.reduce((sum, item) => sum + sizeOf(item), 0);
    const payback = ((whole - freed) * 1.25 - whole * 0.1) / (freed * 0.1);
    const warm = new EvictionPolicy({ minFreedTokens: 0, evictWhenCold: true });
    const early = warm.decide(history, { sizeOf, callsSoFar: Math.floor(payback) });
    expect(early.evict).toBeNull();
    expect(early.reasons.join(' ')).toContain('wait for a cold cache');
    expect(warm.decide(history, { sizeOf, callsSoFar: Math.ceil(payback) }).evict).not.toBeNull();
    // With a cache entry at the end of item 2 (the proxy's breakpoint after its last batch), only what follows it is
    // rewritten: it pays back sooner. A breakpoint after the first change does not help.
    const after = history.slice(3).reduce((sum, item) => sum + sizeOf(item), 0);
    const sooner = ((after - freed) * 1.25 - after * 0.1) / (freed * 0.1);
    expect(sooner).toBeLessThan(payback);
    expect(
      warm.decide(history, { sizeOf, callsSoFar: Math.ceil(sooner), cacheBreakpoints: [3] }).evict,
    ).not.toBeNull();
    expect(
      warm.decide(history, { sizeOf, callsSoFar: Math.floor(sooner), cacheBreakpoints: [3] }).evict,
    ).toBeNull();
    // Between the two paybacks (the calls so far need not be whole here: the rule compares them with the payback),
    // the breakpoint at the first change lets the batch go and one past it does not.
    const between = (sooner + payback) / 2;
    expect(warm.decide(history, { sizeOf, callsSoFar: between, cacheBreakpoints: [3] }).evict).not.toBeNull();
    expect(warm.decide(history, { sizeOf, callsSoFar: between, cacheBreakpoints: [4] }).evict).toBeNull();
    // Above half the window the batch goes at once: the agent's compaction must stay out of reach.
    const pressed = warm.decide(history, {
      sizeOf,
      callsSoFar: 1,
      promptTokens: 90_000,
      contextWindow: 167_000,
    });
    expect(pressed.evict).not.toBeNull();
  });
});
