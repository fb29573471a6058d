/**
 * The tool loop every framework adapter's test runs, and the provider's bill for it: an agent that plans five
 * sub-tasks with TodoWrite, reads three files for each (one model call per read), marks the sub-task completed, and
 * ends with a summary — 22 model calls. Each call's prompt is billed by OpenAI's prompt cache model (`src/cache`,
 * automatic prefix caching for gpt-5), as the provider would bill the messages the framework sent.
 */
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { OpenAiCacheBlock } from '../../cache/openai-cache-request.js';
import { openAiPromptCache } from '../../cache/openai-prompt-cache.js';
import { promptCacheCost } from '../../cache/prompt-cache-cost.js';
import { emptyPromptCacheState, type PromptCacheState } from '../../cache/prompt-cache-state.js';
import { findModel } from '../../models/find-model.js';
import { readArchiveFile } from '../../store/archive.js';
import { createTokenCounter } from '../../tokens/create-token-counter.js';

export const LOOP_MODEL = 'gpt-5';
export const SYSTEM_PROMPT =
  'You are a coding agent. Review the modules you are asked to, one sub-task at a time.';
export const REQUEST = 'Review the fifteen modules of the billing service, in five parts.';
export const FINAL_ANSWER = 'All fifteen modules reviewed in five parts.';
export const OUTPUT_TOKENS = 40;

export const SUBTASKS = ['invoices', 'payments', 'refunds', 'ledger', 'reports'] as const;
export const FILES = SUBTASKS.flatMap((task) => [1, 2, 3].map((n) => `src/${task}/module-${n}.ts`));

/** A module's text: ~12,000 tokens of distinct code (the names and numbers differ from line to line and file to file). */
export function fileText(path: string): string {
  const seed = createHash('sha256').update(path).digest('hex');
  const lines: string[] = [`// ${path}`];
  for (let line = 0; line < 400; line++) {
    const word = seed.slice(line % 56, (line % 56) + 8);
    lines.push(
      `export function ${word}_${line}(amount: number): number { return amount * ${line + 3} + 0x${word}; }`,
    );
  }
  return lines.join('\n');
}

export interface ScriptedCall {
  id: string;
  name: 'TodoWrite' | 'read_file';
  args: Record<string, unknown>;
}

/** The plan after `done` sub-tasks are completed (the next one in progress). */
export function plan(done: number): { todos: Array<{ content: string; status: string }> } {
  return {
    todos: SUBTASKS.map((task, index) => ({
      content: `Review the ${task} modules`,
      status: index < done ? 'completed' : index === done ? 'in_progress' : 'pending',
    })),
  };
}

/** The model's answer at call `step` (0-based): a tool call, or the final text. 22 calls in all. */
export function scriptedStep(step: number): ScriptedCall | { text: string } {
  if (step === 0) return { id: 'call_plan_0', name: 'TodoWrite', args: plan(0) };
  const index = step - 1;
  const task = Math.floor(index / 4);
  if (task >= SUBTASKS.length) return { text: FINAL_ANSWER };
  const within = index % 4;
  if (within < 3) {
    return { id: `call_read_${task}_${within}`, name: 'read_file', args: { path: FILES[task * 3 + within] } };
  }
  return { id: `call_plan_${task + 1}`, name: 'TodoWrite', args: plan(task + 1) };
}

export const LOOP_CALLS = 22;

/** What the tools answer. */
export function runTool(name: string, args: Record<string, unknown>): string {
  if (name === 'read_file') return fileText(String(args.path));
  return 'Todos have been modified successfully.';
}

/** One message of a prompt as the provider reads it: its role and its content as JSON. */
export interface BilledMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  json: string;
}

export interface CallBill {
  promptTokens: number;
  cachedTokens: number;
  costUsd: number;
}

/** The running bill of one agent run: each prompt through OpenAI's cache model, priced at gpt-5's price. */
export class CacheBill {
  readonly calls: CallBill[] = [];
  readonly prompts: BilledMessage[][] = [];
  #state: PromptCacheState = emptyPromptCacheState();
  readonly #counter = createTokenCounter();
  readonly #start: number;

  constructor(start = Date.parse('2026-12-01T12:00:00Z')) {
    this.#start = start;
  }

  /** Bills one call (two seconds after the previous one) and answers its usage as OpenAI would report it. */
  bill(messages: readonly BilledMessage[]): CallBill {
    const blocks: OpenAiCacheBlock[] = messages.map((message) => ({
      id: createHash('sha256').update(message.role).update('\u0000').update(message.json).digest('hex'),
      tokens: this.#counter.count(message.json) + 4,
      messageEnd: message.role === 'system' ? 'developer' : message.role,
    }));
    const now = this.#start + 2000 * this.calls.length;
    const outcome = openAiPromptCache(this.#state, { model: LOOP_MODEL, blocks }, now);
    if (!outcome.ok) throw new Error(`the cache model refused the prompt: ${outcome.message}`);
    this.#state = outcome.state;
    const cost = promptCacheCost(
      outcome.tokens,
      { completionTokens: OUTPUT_TOKENS },
      findModel(LOOP_MODEL)?.price,
      'openai',
      LOOP_MODEL,
    );
    if (!cost.known) throw new Error(`no price for ${LOOP_MODEL}`);
    const call = {
      promptTokens: outcome.usage.input_tokens,
      cachedTokens: outcome.usage.input_tokens_details.cached_tokens,
      costUsd: cost.usd,
    };
    this.calls.push(call);
    this.prompts.push([...messages]);
    return call;
  }

  get totals(): { calls: number; promptTokens: number; cachedTokens: number; costUsd: number } {
    return {
      calls: this.calls.length,
      promptTokens: this.calls.reduce((sum, call) => sum + call.promptTokens, 0),
      cachedTokens: this.calls.reduce((sum, call) => sum + call.cachedTokens, 0),
      costUsd: this.calls.reduce((sum, call) => sum + call.costUsd, 0),
    };
  }
}

/** The side-by-side figures a test prints. */
export function sideBySide(framework: string, rows: Record<string, CacheBill>): string {
  const lines = [
    `${framework}: the same ${LOOP_CALLS}-call tool loop, billed by OpenAI's prompt cache model (gpt-5)`,
  ];
  for (const [name, bill] of Object.entries(rows)) {
    const totals = bill.totals;
    lines.push(
      `  ${name.padEnd(34)} calls ${String(totals.calls).padStart(3)}  prompt tokens ${String(totals.promptTokens).padStart(8)}  cached ${String(totals.cachedTokens).padStart(8)}  cost $${totals.costUsd.toFixed(5)}`,
    );
  }
  return lines.join('\n');
}

/** The AI SDK adapters' tombstone (`tombstoneText`), which every framework adapter writes. */
export const LOOP_TOMBSTONE = /^\[Task subtask-\d+ completed: output evicted to archive\] (\S+)#(\S+)$/;

/** How a framework's prompt is read: a tool result's text by its call id, and the calls without their result. */
export interface PromptReader<Prompt> {
  resultOf: (prompt: Prompt, callId: string) => string | undefined;
  unpaired: (prompt: Prompt) => unknown[];
}

/**
 * What every framework's loop shows with barometer: every call's tool pairs intact; a sub-task's reads sent whole
 * while it runs and tombstoned from the call after the TodoWrite that completes it, in every later prompt; each of
 * the 15 originals in the archive the tombstone names, byte for byte; the session holding every call at the bill.
 */
export async function expectEvictedLoop<Prompt>(
  prompts: readonly Prompt[],
  reader: PromptReader<Prompt>,
  archived: readonly { kind: string; location: string }[],
  session: { generations: number; state: { spend?: { costUsd: number; promptTokens: number } | undefined } },
  bill: CacheBill,
): Promise<void> {
  expect(prompts).toHaveLength(LOOP_CALLS);
  for (const prompt of prompts) expect(reader.unpaired(prompt)).toEqual([]);
  expect(reader.resultOf(prompts[4] as Prompt, 'call_read_0_0')).toBe(fileText(FILES[0] as string));
  for (const within of [0, 1, 2])
    expect(reader.resultOf(prompts[5] as Prompt, `call_read_0_${within}`)).toMatch(LOOP_TOMBSTONE);
  const last = prompts.at(-1) as Prompt;
  for (let task = 0; task < 5; task++)
    for (const within of [0, 1, 2])
      expect(reader.resultOf(last, `call_read_${task}_${within}`)).toMatch(LOOP_TOMBSTONE);
  const results = archived.filter((item) => item.kind === 'tool-result');
  expect(results).toHaveLength(15);
  for (const item of results) {
    const [path, itemId] = item.location.split('#') as [string, string];
    const [, task, within] = /call_read_(\d)_(\d)/.exec(itemId) ?? [];
    const record = (await readArchiveFile(path)).find((entry) => entry.itemId === itemId);
    expect(record?.content).toBe(fileText(FILES[Number(task) * 3 + Number(within)] as string));
  }
  expect(session.generations).toBe(LOOP_CALLS);
  expect(session.state.spend?.costUsd).toBeCloseTo(bill.totals.costUsd, 9);
  expect(session.state.spend?.promptTokens).toBe(bill.totals.promptTokens);
}
