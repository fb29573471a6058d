/**
 * Writes test/fixtures/openai-history.json: a deterministic OpenAI chat history of an agent fixing a bug,
 * with tool calls whose outputs are long (file reads, test logs), for compaction tests and the README.
 * Run: npx tsx scripts/make-history-fixture.ts
 */
import { writeFileSync } from 'node:fs';

const messages: unknown[] = [
  {
    role: 'system',
    content: 'You are a coding agent working in the repository acme/billing. Prefer small diffs.',
  },
];
const files = [
  'src/invoice.ts',
  'src/tax.ts',
  'src/currency.ts',
  'test/invoice.test.ts',
  'src/ledger.ts',
  'README.md',
];
for (let turn = 0; turn < 6; turn++) {
  const file = files[turn]!;
  messages.push({
    role: 'user',
    content: `Step ${turn + 1}: look at ${file} and tell me why the totals are off by a cent.`,
  });
  const lines = Array.from(
    { length: 120 },
    (_, line) =>
      `${String(line + 1).padStart(4)}  export const value${line} = round(amount${line} * rate${line % 7}, 2); // ${file}`,
  );
  messages.push({
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: `call_${turn}`,
        type: 'function',
        function: { name: 'read_file', arguments: JSON.stringify({ path: file }) },
      },
    ],
  });
  messages.push({ role: 'tool', tool_call_id: `call_${turn}`, content: lines.join('\n') });
  messages.push({
    role: 'assistant',
    content: `In ${file} the rounding happens per line instead of on the total.\nDecision: round once, on the invoice total of step ${turn + 1}.\nOpen question: does ${file} expect per-line rounding?`,
  });
}
writeFileSync(
  new URL('../test/fixtures/openai-history.json', import.meta.url),
  `${JSON.stringify(messages, null, 2)}\n`,
);
