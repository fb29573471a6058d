/**
 * The Vercel AI SDK middleware in an agent loop, offline: npx tsx examples/ai-sdk.ts
 *
 * The AI SDK's own MockLanguageModelV3 stands in for a provider's model: it answers with a tool call per step and
 * reports, as a provider would, the tokens of the prompt it was sent (counted with o200k). In your project:
 *
 *   import { barometerMiddleware, barometerStopWhen } from 'barometer/ai-sdk';
 *   const model = wrapLanguageModel({ model: openai('gpt-5'), middleware: barometerMiddleware({ session, archive }) });
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { ArchiveStore, createTokenCounter, Session } from '../src/index.js';
import { barometerMiddleware, barometerStopWhen } from '../src/integrations/ai-sdk.js';

const counter = createTokenCounter();
/** What a provider would report: every token of the prompt it was sent. */
const promptTokens = (prompt: LanguageModelV3CallOptions['prompt']) => counter.count(JSON.stringify(prompt));

let step = 0;
const model = new MockLanguageModelV3({
  provider: 'openai.responses',
  modelId: 'gpt-5',
  doGenerate: async ({ prompt }): Promise<LanguageModelV3GenerateResult> => {
    step += 1;
    const input = promptTokens(prompt);
    const done = step === 9;
    return {
      content: done
        ? [{ type: 'text', text: 'All nine modules read; the bug is in module 4.' }]
        : [
            {
              type: 'tool-call',
              toolCallId: `call_${step}`,
              toolName: 'read_file',
              input: `{"path":"src/m${step}.ts"}`,
            },
          ],
      finishReason: done ? { unified: 'stop', raw: 'stop' } : { unified: 'tool-calls', raw: 'tool_calls' },
      usage: {
        inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 40, text: 40, reasoning: 0 },
      },
      warnings: [],
    };
  },
});

// A session that reaches caution early (8,000 tokens), so that a short example shows the whole cycle.
const session = new Session({
  id: 'example-agent',
  model: 'gpt-5',
  optimalMaxTokens: 8_000,
  tokenBudget: 200_000,
});
const root = join(tmpdir(), 'barometer-example-ai-sdk');
rmSync(root, { recursive: true, force: true });
const archive = new ArchiveStore({ root });
const middleware = barometerMiddleware({ session, archive, keepTurns: 1, keepTokens: 4_000 });

let reported: unknown = null;
const result = await generateText({
  model: wrapLanguageModel({ model, middleware }),
  system: 'You are a coding agent. Read the modules one by one.',
  prompt: 'Find the rounding bug.',
  tools: {
    read_file: tool({
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) =>
        `// ${path}\n${'export const total = (lines: number[]) => lines.reduce((a, b) => a + b, 0);\n'.repeat(60)}`,
    }),
  },
  stopWhen: [stepCountIs(20), barometerStopWhen({ session })],
  onStepFinish: () => {
    const call = middleware.barometer.lastCall;
    const compaction = middleware.barometer.lastCompaction;
    const compacted = compaction !== reported && compaction?.ok ? compaction.result : undefined;
    reported = compaction;
    const prompt = call?.usage.available ? call.usage.promptTokens : '?';
    const line = `step ${session.generations}: prompt ${prompt} tokens, health ${call?.health.level}, verdict ${call?.verdict.action}`;
    console.log(
      compacted
        ? `${line} (sent compacted: ${compacted.before.messages} → ${compacted.after.messages} messages)`
        : line,
    );
  },
});

console.log(result.text);
const last = middleware.barometer.lastCompaction;
if (last?.ok) console.log('archived to:', last.result.archives[0]);
console.log(
  middleware.barometer.verdict?.reasons.map((reason) => `${reason.model}: ${reason.action}`).join('; '),
);
