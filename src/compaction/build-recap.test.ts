import { describe, expect, it } from 'vitest';
import { buildRecap } from './build-recap.js';
import { flush } from './flush.js';
import type { HistoryItem } from './history-item.js';
import { completeTask, createTaskList, startTask } from './task-list.js';

const tasks = completeTask(
  startTask(startTask(createTaskList(), { taskId: 't1', title: 'Fix the parser', now: 0 }), {
    taskId: 't2',
    now: 1,
  }),
  {
    taskId: 't1',
    summary: 'Parser handles empty input now',
    decisions: ['keep the hand-written lexer'],
    now: 2,
  },
);

const history: HistoryItem[] = [
  { kind: 'system', id: 's', text: 'You are a coding agent.' },
  {
    kind: 'user',
    id: 'u1',
    text: 'The parser in src/parser/index.ts crashes on empty input; see https://example.com/issue/12 from 2026/11/03.',
  },
  {
    kind: 'tool-call',
    id: 'c1',
    callId: 'c1',
    name: 'read_file',
    input: { file_path: 'src/parser/index.ts' },
  },
  {
    kind: 'tool-result',
    id: 'c1:result',
    callId: 'c1',
    content: 'mentions other/file.ts but that is output, not a touched file',
  },
  {
    kind: 'tool-call',
    id: 'c2',
    callId: 'c2',
    name: 'multi_edit',
    input: { edits: [{ path: 'src/lexer.ts' }], paths: ['test/parser.test.ts'] },
  },
  {
    kind: 'assistant',
    id: 'a1',
    text: 'Fixed.\nDecision: return an empty AST for empty input\nOpen question: should whitespace-only input warn?',
  },
  { kind: 'user', id: 'u2', text: 'Now update README.md, please.' },
];

describe('buildRecap', () => {
  it('gathers tasks, decisions, open questions, files touched and the last request', () => {
    const recap = buildRecap(history, tasks);
    expect(recap).toMatchObject({
      tasks: [
        { id: 't1', title: 'Fix the parser', status: 'completed', summary: 'Parser handles empty input now' },
        { id: 't2', status: 'in_progress' },
      ],
      decisions: ['keep the hand-written lexer', 'return an empty AST for empty input'],
      openQuestions: ['should whitespace-only input warn?'],
      filesTouched: ['src/parser/index.ts', 'src/lexer.ts', 'test/parser.test.ts', 'README.md'],
      lastUserRequest: 'Now update README.md, please.',
    });
  });

  it('renders the recap as text in a fixed order', () => {
    expect(buildRecap(history, tasks).text).toBe(
      [
        '[Recap of the session so far]',
        'Tasks:',
        '- t1 (completed) Fix the parser: Parser handles empty input now',
        '- t2 (in progress)',
        'Decision: keep the hand-written lexer',
        'Decision: return an empty AST for empty input',
        'Open question: should whitespace-only input warn?',
        'Files touched:',
        '- src/parser/index.ts',
        '- src/lexer.ts',
        '- test/parser.test.ts',
        '- README.md',
        'Last user request: Now update README.md, please.',
      ].join('\n'),
    );
  });

  it('is deterministic', () => {
    expect(buildRecap(history, tasks)).toEqual(buildRecap(structuredClone(history), structuredClone(tasks)));
  });

  it('carries an earlier recap forward: its decisions, files and request survive a second flush', () => {
    const first = flush(history, buildRecap(history, tasks), { keepTurns: 0 });
    const later: HistoryItem[] = [
      ...first,
      { kind: 'assistant', id: 'a2', text: 'Decision: document the empty case' },
    ];
    const recap = buildRecap(later, tasks);
    expect(recap.decisions).toEqual([
      'keep the hand-written lexer',
      'return an empty AST for empty input',
      'document the empty case',
    ]);
    expect(recap.filesTouched).toEqual([
      'src/parser/index.ts',
      'src/lexer.ts',
      'test/parser.test.ts',
      'README.md',
    ]);
    expect(recap.lastUserRequest).toBe('Now update README.md, please.');
  });

  it('keeps the most recent entries when there are too many, and cuts a long request', () => {
    const many: HistoryItem[] = Array.from({ length: 30 }, (_, index) => ({
      kind: 'assistant' as const,
      id: `a${index}`,
      text: `Decision: choice ${index}\nTouched lib/file${index}.ts`,
    }));
    many.push({ kind: 'user', id: 'u', text: 'y'.repeat(50) });
    const recap = buildRecap(many, [], { maxNotes: 3, maxFiles: 2, maxRequestChars: 10 });
    expect(recap.decisions).toEqual(['choice 27', 'choice 28', 'choice 29']);
    expect(recap.filesTouched).toEqual(['lib/file28.ts', 'lib/file29.ts']);
    expect(recap.lastUserRequest).toBe(`${'y'.repeat(10)}…`);
  });

  it('leaves out the arguments of calls already evicted', () => {
    const evicted: HistoryItem[] = [
      {
        kind: 'tool-call',
        id: 'c',
        callId: 'c',
        name: 'w',
        input: { evicted: '[Task t1 …] /a/s/t1.log#c' },
        archivedTo: '/a/s/t1.log#c',
      },
    ];
    expect(buildRecap(evicted).filesTouched).toEqual([]);
  });
});
