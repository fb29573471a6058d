import { describe, expect, it } from 'vitest';
import { readClaudeCodeLog } from './read-claude-code-log.js';
import { readSessionLog } from './read-session-log.js';
import { SessionLogSchema } from './session-log.js';
import { readTrace } from './test-helpers/traces.js';

const REFERENCE = 'claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl';

/*
 * Figures counted independently with jq on the recordings:
 *   jq -r 'select(.type=="assistant") | .message.id' F | sort -u | wc -l        → 139 (all with usage)
 *   head -753 F | (same) → 61 calls before the compact_boundary on line 754
 *   first assistant line after it: input 3 + cache_creation 14,600 + cache_read 21,478 = 36,081
 *   last call before it (msg_01YDBjrS…): 1 + 1,484 + 163,346 = 164,831
 *   msg_01Aci2Wj… (5th call): 5 lines, output_tokens 10,10,10,10,299; first at 16:05:13.088Z
 */
describe('readClaudeCodeLog on the reference session (claude-opus-4-6, 3 MB)', () => {
  const log = readSessionLog(readTrace(REFERENCE));

  it('finds 139 API calls, one per message.id, in order', () => {
    expect(log.format).toBe('claude-code');
    expect(log.calls).toHaveLength(139);
    expect(log.calls.map((call) => call.index)).toEqual([...Array(139).keys()]);
    expect(new Set(log.calls.map((call) => call.id)).size).toBe(139);
    expect(log.calls.every((call) => call.usage.available && call.usage.source === 'claude-code')).toBe(true);
    expect(log.model).toBe('claude-opus-4-6');
    expect(log.contextWindow).toBeUndefined();
    expect(log.skippedLines).toEqual([]);
  });

  it('finds the one automatic compaction: 170,251 before, 36,081 at the next call', () => {
    expect(log.compactions).toEqual([
      {
        timestamp: '2026-02-12T20:30:28.504Z',
        trigger: 'auto',
        preTokens: 170251,
        postTokens: 36081,
        beforeCallIndex: 61,
      },
    ]);
    expect(log.calls[60]!.usage).toMatchObject({ promptTokens: 1 + 1484 + 163346 });
    expect(log.calls[61]).toMatchObject({
      id: 'msg_01MCP4jmhxhddhtDDbhCqRq8',
      timestamp: '2026-02-12T20:30:31.624Z',
      usage: { promptTokens: 36081, cachedReadTokens: 21478, cachedWriteTokens: 14600 },
    });
  });

  it('sums the three prompt parts of the first call', () => {
    expect(log.calls[0]).toEqual({
      index: 0,
      id: 'msg_01PdWvcjJ6E9BgscDveYt9YV',
      timestamp: '2026-02-12T16:02:27.718Z',
      model: 'claude-opus-4-6',
      usage: {
        available: true,
        source: 'claude-code',
        promptTokens: 3 + 11442 + 15005,
        completionTokens: 9,
        totalTokens: 3 + 11442 + 15005 + 9,
        cachedReadTokens: 11442,
        cachedWriteTokens: 15005,
        reasoningTokens: 0,
        model: 'claude-opus-4-6',
        timestamp: '2026-02-12T16:02:27.718Z',
      },
    });
  });

  it('keeps the last output_tokens of a message logged over several lines, and its first time', () => {
    expect(log.calls[4]).toMatchObject({
      id: 'msg_01Aci2WjhVxhEoZK5GJvwVrD',
      timestamp: '2026-02-12T16:05:13.088Z',
      usage: { promptTokens: 1 + 29509 + 5601, completionTokens: 299, timestamp: '2026-02-12T16:05:13.088Z' },
      // Its first four lines say 10 output tokens: the figure ccusage counts, kept beside the final one.
      firstUsage: { promptTokens: 1 + 29509 + 5601, completionTokens: 10 },
    });
  });

  it('ignores the subagent messages nested in progress lines', () => {
    // 33 progress lines carry claude-sonnet-4-5 subagent usage; no call may come from them.
    expect(log.calls.some((call) => call.model !== 'claude-opus-4-6')).toBe(false);
  });

  it('produces data that matches SessionLogSchema', () => {
    expect(SessionLogSchema.safeParse(log).success).toBe(true);
  });

  it('states the folder the agent worked in: the cwd its records carry (all 1,497 give the same one)', () => {
    expect(log.workingDirectory).toBe('/home/USER/projects/spotter-worktrees/spotter-dov');
  });

  it('names its first request: the first user line typed (148 characters, cut at a word before 120)', () => {
    expect(log.firstRequest).toBe(
      'Work on bead spotter-dov. Run bd show spotter-dov to see the issue details and bd ready to find available subtasks.…',
    );
  });
});

describe('readClaudeCodeLog: first requests', () => {
  it('reads a slash command as its name and arguments, and each sidechain’s Task prompt as its child’s', () => {
    const log = readSessionLog(readTrace('claude-code/viewer-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'));
    // Its first user line: <command-name>/orchestrator</command-name> <command-args>@CLAUDE.md を…</command-args>.
    expect(log.firstRequest).toBe('/orchestrator @CLAUDE.md を最新の状態にアップデートしてください');
    expect(log.children?.map((child) => child.firstRequest?.split(' Focus on:')[0])).toEqual([
      'Examine the package.json file(s) in /path/to/Demo and any subdirectories.',
      'Analyze the current project structure in /path/to/Demo.',
    ]);
  });
});

describe('readClaudeCodeLog on other recordings', () => {
  it('finds 31 calls in the small sonnet session, skipping the line with an empty usage', () => {
    // 32 distinct message ids; msg_taskstop_1 has `usage: {}`.
    const log = readClaudeCodeLog(readTrace('claude-code/small-sonnet-session.jsonl'));
    expect(log.calls).toHaveLength(31);
    expect(log.calls.some((call) => call.id === 'msg_taskstop_1')).toBe(false);
    expect(log.model).toBe('claude-sonnet-4-20250514');
    expect(log.compactions).toEqual([]);
    expect(log.calls[30]!.usage).toMatchObject({ promptTokens: 2 + 74970 + 415, completionTokens: 1 });
  });

  it('reads a subagent transcript (all sidechain) as its own session: the compaction call, 173,514 tokens', () => {
    const log = readSessionLog(
      readTrace('claude-code/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl'),
    );
    expect(log.calls).toHaveLength(1);
    expect(log.calls[0]!.usage).toMatchObject({ promptTokens: 3 + 8681 + 164830, completionTokens: 8 });
    expect(log.calls[0]!.usage.available && log.calls[0]!.usage.promptTokens).toBe(173514);
  });

  it('skips lines that are not JSON and lists them, keeping every call', () => {
    const lines = readTrace('claude-code/small-sonnet-session.jsonl').trimEnd().split('\n');
    const damaged = [
      lines[0],
      'Traceback (most recent call last):',
      ...lines.slice(1),
      '{"type":"assistant","mess',
    ].join('\n');
    const log = readClaudeCodeLog(damaged);
    expect(log.calls).toHaveLength(31);
    expect(log.skippedLines).toEqual([2, lines.length + 2]);
  });

  it('ignores synthetic messages (Claude Code’s own API-error placeholders)', () => {
    const line = (id: string, model: string) =>
      JSON.stringify({
        type: 'assistant',
        uuid: id,
        timestamp: '2026-01-01T00:00:00.000Z',
        message: { id, model, usage: { input_tokens: 0, output_tokens: 0 } },
      });
    const log = readClaudeCodeLog([line('a', '<synthetic>'), line('b', 'claude-opus-4-6')].join('\n'));
    expect(log.calls.map((call) => call.id)).toEqual(['b']);
  });
});

describe('readClaudeCodeLog: inline sub-agents (isSidechain) as child sessions', () => {
  const text = readTrace('claude-code/viewer-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl');
  const records = text
    .trimEnd()
    .split('\n')
    .map(
      (line) =>
        JSON.parse(line) as {
          type: string;
          uuid: string;
          parentUuid: string | null;
          isSidechain?: boolean;
          message: { id: string };
        },
    );
  const log = readClaudeCodeLog(text);
  // Each chain starts at a sidechain line without a parent (the Task prompt) and follows parentUuid.
  const roots = records
    .filter((record) => record.isSidechain && record.parentUuid === null)
    .map((record) => record.uuid);
  const idsOf = (sidechain: boolean) =>
    new Set(
      records
        .filter((record) => record.type === 'assistant' && (record.isSidechain === true) === sidechain)
        .map((record) => record.message.id),
    );

  it('keeps the main conversation apart, and counts each chain as a child with its own calls', () => {
    expect(log.id).toBe('5c0375b4-57a5-4f26-b12d-d022ee4e51b7');
    expect(log.calls).toHaveLength(idsOf(false).size);
    expect(log.children?.map((child) => child.id)).toEqual(roots);
    expect(log.children?.every((child) => child.parentId === log.id)).toBe(true);
    const childCalls = log.children?.reduce((sum, child) => sum + child.calls.length, 0);
    expect(childCalls).toBe(idsOf(true).size);
    expect(SessionLogSchema.safeParse(log).success).toBe(true);
  });

  it('reads a call a crash fragment was merged with, and reports the line', () => {
    const lines = text.trimEnd().split('\n');
    const at = lines.findIndex((line) => line.includes('"usage"') && !line.includes('"isSidechain":true'));
    const merged = [
      ...lines.slice(0, at - 1),
      `${lines[at - 1]!.slice(0, 60)}${lines[at]}`,
      ...lines.slice(at + 1),
    ];
    const broken = readClaudeCodeLog(merged.join('\n'));
    expect(broken.calls).toHaveLength(log.calls.length);
    expect(broken.recoveredLines).toEqual([at]);
    expect(broken.skippedLines).toEqual([]);
  });
});
