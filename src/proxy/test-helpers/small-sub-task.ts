type Json = Record<string, unknown>;

/** A file of about 1,000 tokens: its read frees less than minFreedTokens (4,000), so while the cache is warm it waits. */
export const SMALL_FILE = Array.from(
  { length: 200 },
  (_, line) => `export const value${line} = ${line};`,
).join('\n');

/**
 * A Messages request whose one sub-task is a Read of SMALL_FILE (call `read-1`) ended by a `git commit` (`bash-1`),
 * then `turns` user turns.
 */
export function smallSubTask(turns: number): Json {
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    messages: [
      { role: 'user', content: 'add the constants and commit' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'read-1', name: 'Read', input: { file_path: '/repo/values.ts' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'read-1', content: SMALL_FILE }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'bash-1', name: 'Bash', input: { command: 'git commit -am "values"' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'bash-1', content: '[main 1a2b3c4] values' }],
      },
      ...Array.from({ length: turns }, (_, turn) => ({ role: 'user', content: `and now step ${turn}` })),
    ],
  };
}
