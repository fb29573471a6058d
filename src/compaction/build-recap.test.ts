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
        'User requests (oldest first; each whole in the archive):',
        '- The parser in src/parser/index.ts crashes on empty input; see https://example.com/issue/12 from 2026/11/03.',
        '- Now update README.md, please.',
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
        'Last conclusion: Fixed. Decision: return an empty AST for empty input Open question: should whitespace-only input warn?',
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

  it('keeps every request, the plan and the last conclusion of a natural 22-message history', () => {
    // The found case: a natural history whose recap kept only a file list and "Last user request: Go ahead."
    const call = (id: string, name: string, input: unknown): HistoryItem => ({
      kind: 'tool-call',
      id,
      callId: id,
      name,
      input,
    });
    const result = (id: string, content: string): HistoryItem => ({
      kind: 'tool-result',
      id: `${id}:result`,
      callId: id,
      content,
    });
    const natural: HistoryItem[] = [
      {
        kind: 'user',
        id: 'u1',
        text: 'The CLI needs a --json flag on `report`; keep the text output as it is.',
      },
      { kind: 'assistant', id: 'a1', text: 'I will look at the command first.' },
      call('c1', 'Read', { file_path: 'src/cli/report.ts' }),
      result('c1', 'export function report() { /* 400 lines */ }'),
      call('c2', 'TodoWrite', {
        todos: [
          { content: 'Add the flag', status: 'in_progress', activeForm: 'Adding the flag' },
          { content: 'Write the tests', status: 'pending', activeForm: 'Writing the tests' },
        ],
      }),
      result('c2', 'Todos have been modified successfully.'),
      { kind: 'assistant', id: 'a2', text: 'Plan: add the flag, then tests. Shall I go ahead?' },
      { kind: 'user', id: 'u2', text: 'Also print errors as JSON when --json is set.' },
      call('c3', 'Edit', { file_path: 'src/cli/report.ts', old_string: 'a', new_string: 'b' }),
      result('c3', 'The file src/cli/report.ts has been updated.'),
      { kind: 'assistant', id: 'a3', text: 'Decision: errors go to stdout as { "error": … } under --json' },
      { kind: 'user', id: 'u3', text: 'Go ahead.' },
      call('c4', 'Write', { file_path: 'test/report.test.ts', content: 'it(...)' }),
      result('c4', 'File created successfully at: test/report.test.ts'),
      call('c5', 'Bash', { command: 'npm test' }),
      result('c5', '12 passed'),
      call('c6', 'TodoWrite', {
        todos: [
          { content: 'Add the flag', status: 'completed', activeForm: 'Adding the flag' },
          { content: 'Write the tests', status: 'completed', activeForm: 'Writing the tests' },
        ],
      }),
      result('c6', 'Todos have been modified successfully.'),
      {
        kind: 'assistant',
        id: 'a4',
        text: 'Done: `report --json` prints JSON, errors included; 12 tests pass.',
      },
      { kind: 'user', id: 'u4', text: '<command-name>/cost</command-name>' },
      { kind: 'user', id: 'u5', text: '[Request interrupted by user for tool use]' },
      { kind: 'assistant', id: 'a5', text: '' },
    ];
    expect(natural).toHaveLength(22);
    const recap = buildRecap(natural, [], { archiveItemOf: (position) => natural[position]?.id });
    expect(recap.userRequests).toEqual([
      { item: 'u1', text: 'The CLI needs a --json flag on `report`; keep the text output as it is.' },
      { item: 'u2', text: 'Also print errors as JSON when --json is set.' },
      { item: 'u3', text: 'Go ahead.' },
    ]);
    expect(recap.plan).toEqual([
      { status: 'completed', text: 'Add the flag' },
      { status: 'completed', text: 'Write the tests' },
    ]);
    expect(recap.decisions).toEqual(['errors go to stdout as { "error": … } under --json']);
    expect(recap.filesTouched).toEqual(['src/cli/report.ts', 'test/report.test.ts']);
    expect(recap.lastConclusion).toBe('Done: `report --json` prints JSON, errors included; 12 tests pass.');
    expect(recap.text.length).toBeLessThan(JSON.stringify(natural).length);
  });
});
