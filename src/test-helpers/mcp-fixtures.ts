import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** The seed 000 sample, whose recomputed answer is HIGH, viability 36, compress (DESIGN.md). */
export const SEED_SAMPLE = {
  memoryUsedPercent: 72,
  tokenBurnRatePerMin: 55,
  contextDriftPercent: 68,
  tokenBudgetTotal: 100000,
  tokenBudgetUsed: 62000,
};

/** A long tool output: what eviction exists for. */
export function toolOutput(turn: number): string {
  return `FAIL src/invoice.test.ts turn ${turn}\n  expected "10.01" got "10.00"\n`.repeat(60);
}

/**
 * An agent's OpenAI chat history of four turns, each a tool call and its long output; the outputs of turns 0 and 1
 * are tagged with the task `tests` (`task_id` on the tool message).
 */
export function agentHistory(): Array<Record<string, unknown>> {
  const messages: Array<Record<string, unknown>> = [
    { role: 'system', content: 'You are a careful coding agent.' },
  ];
  for (let turn = 0; turn < 4; turn += 1) {
    messages.push(
      { role: 'user', content: `Step ${turn}: run the tests` },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `call_${turn}`,
            type: 'function',
            function: { name: 'run', arguments: '{"cmd":"npm test"}' },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: `call_${turn}`,
        content: toolOutput(turn),
        ...(turn < 2 ? { task_id: 'tests' } : {}),
      },
      { role: 'assistant', content: `Turn ${turn}: the rounding is per line.` },
    );
  }
  return messages;
}

/** The structured content of a tool error: the HTTP service's 4xx body. */
export interface ToolErrorContent {
  error: string;
  code: string;
  issues?: Array<{ field: string; value: unknown; message: string; allowed?: Record<string, unknown> }>;
  [extra: string]: unknown;
}

/** What a tool call answered, typed for assertions. */
export interface ToolAnswer<T> {
  isError: boolean;
  text: string;
  structured: T;
}

/** Calls a tool through an MCP client and keeps what tests read: the error flag, the text, the structured content. */
export async function callTool<T = ToolErrorContent>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolAnswer<T>> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text?: string }>;
  return {
    isError: result.isError === true,
    text: content
      .filter((block) => block.type === 'text')
      .map((block) => block.text)
      .join('\n'),
    structured: (result.structuredContent ?? {}) as T,
  };
}

/** The names of barometer's tools, in the order the server lists them. */
export const TOOL_NAMES = [
  'evaluate_pressure',
  'create_session',
  'context_status',
  'report_usage',
  'compact_history',
  'evict_task',
  'end_subtask',
  'read_archive',
];
