/**
 * A local agent loop on a real llama.cpp KV cache, gated by barometer's KV budget (seed 001):
 * PRODUCE is asked before each generation (stop when critical, cut non-terminal tool calls when over budget) and
 * SETTLE before each tool result is decoded (results accepted in order while they fit the real headroom).
 *
 *   npm run kv-engines                                 # once: the engines, into test/kv-engines (linux-x64)
 *   BAROMETER_URL=http://127.0.0.1:8797 npx tsx examples/local-agent-loop.ts [model.gguf]
 *
 * Without a model path it writes the tests' tiny random model to a temp folder (its text is garbage; its KV
 * cache is real). It runs lloyal's native context (`@lloyal-labs/lloyal.node-linux-x64`, linux-x64). With
 * BAROMETER_URL it feeds that running service (`npm start`) as it goes: the dashboard shows the session's KV cells,
 * headroom and critical live.
 * (In your project: import { KvEngineBudget, lloyalKvEngine } from 'barometer/internal'.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KvEngineBudget as Budget, type KvEngineBudget, lloyalKvEngine } from '../src/internal.js';
import { writeTinyGguf } from '../src/test-helpers/tiny-gguf.js';

export interface LoopOptions {
  budget: KvEngineBudget;
  /** Samples the branch's next token (lloyal: `_branchSample`). */
  sample(branch: string): number;
  branch: string;
  /** Tokens generated per turn (the reply that carries the turn's tool calls). @default 32 */
  generate?: number;
  /** The size in tokens of each tool result, in the order the tools answer (cycled). */
  resultSizes: readonly number[];
  /** From this turn on the agent also calls a terminal tool (`final_answer`). @default never */
  terminalFrom?: number;
  /** false: the same loop with the gates ignored, to show what the engine does without them. @default true */
  gates?: boolean;
  /** @default 500 */
  maxTurns?: number;
  /** Called after every turn with the budget's figures (a dashboard, a session's usage: `serviceReporter`). */
  onTurn?(figures: TurnFigures): void;
}

/** One turn's figures: the generation's prompt and reply, and the budget after the turn's tool results. */
export interface TurnFigures {
  turn: number;
  /** The branch's cells when the turn's reply was generated (its prompt). */
  prompt: number;
  /** Tokens generated this turn. */
  generated: number;
  cellsUsed: number;
  remaining: number;
  headroom: number;
  critical: boolean;
}

export interface LoopResult {
  turns: number;
  /** Why the loop ended: stopped before producing (critical), a terminal tool, the turn limit, or an engine failure. */
  ended: 'kv_critical' | 'final_answer' | 'max_turns' | 'engine_failed';
  settled: number;
  rejected: number;
  cut: number;
  /** Prefills the budget refused (a gate let through something that did not fit: never, when gated). */
  refusedPrefills: number;
}

const fill = (count: number, seed: number) => Array.from({ length: count }, (_, i) => 3 + ((seed + i) % 350));

async function decode(options: LoopOptions, tokens: readonly number[]): Promise<'ok' | 'refused' | 'failed'> {
  const { budget, branch } = options;
  if (options.gates === false) {
    // Ungated: straight to the engine in its nBatch chunks, as an agent without barometer would.
    for (let start = 0; start < tokens.length; start += budget.engine.nBatch) {
      try {
        await budget.engine.decode(branch, tokens.slice(start, start + budget.engine.nBatch));
      } catch {
        return 'failed';
      }
    }
    return 'ok';
  }
  const outcome = await budget.prefill(branch, tokens);
  if (outcome.ok) return 'ok';
  return outcome.code === 'engine_failed' ? 'failed' : 'refused';
}

/** Runs the loop until the budget stops it (or a terminal tool, or the turn limit). */
export async function runLocalAgentLoop(options: LoopOptions): Promise<LoopResult> {
  const { budget, branch } = options;
  const gated = options.gates !== false;
  const result: LoopResult = {
    turns: 0,
    ended: 'max_turns',
    settled: 0,
    rejected: 0,
    cut: 0,
    refusedPrefills: 0,
  };
  let answered = 0;
  for (let turn = 0; turn < (options.maxTurns ?? 500); turn++) {
    result.turns = turn + 1;
    const calls = [
      { id: `read-${turn}`, name: 'read' },
      { id: `grep-${turn}`, name: 'grep' },
      ...(options.terminalFrom !== undefined && turn >= options.terminalFrom
        ? [{ id: `final-${turn}`, name: 'final_answer', terminal: true }]
        : []),
    ];
    // PRODUCE: asked before generating.
    const verdict = budget.produce(branch, calls);
    if (gated && verdict.action === 'stop') {
      result.ended = 'kv_critical';
      break;
    }
    const prompt = budget.pressure(branch).cellsUsed;
    const reply: number[] = [];
    for (let index = 0; index < (options.generate ?? 32); index++) {
      const token = options.sample(branch);
      const step = await decode(options, [token]);
      if (step === 'failed') return { ...result, ended: 'engine_failed' };
      if (step === 'refused') result.refusedPrefills++;
      reply.push(token);
    }
    const passed = gated ? calls.filter((call) => verdict.passed.includes(call.id)) : calls;
    result.cut += calls.length - passed.length;
    if (passed.some((call) => call.name === 'final_answer')) {
      result.ended = 'final_answer';
      break;
    }
    // SETTLE: the tool results of the calls that ran, against the real headroom.
    const results = passed.map((call) => ({
      id: call.id,
      tokens: options.resultSizes[answered++ % options.resultSizes.length]!,
    }));
    const settled = budget.settle(branch, results);
    for (const toolResult of results) {
      if (gated && !settled.accepted.includes(toolResult.id)) {
        result.rejected++;
        continue;
      }
      const step = await decode(options, fill(toolResult.tokens, turn));
      if (step === 'failed') return { ...result, ended: 'engine_failed' };
      if (step === 'refused') result.refusedPrefills++;
      else result.settled++;
    }
    const pressure = budget.pressure(branch);
    options.onTurn?.({
      turn,
      prompt,
      generated: reply.length,
      cellsUsed: pressure.cellsUsed,
      remaining: pressure.remaining,
      headroom: pressure.headroom,
      critical: pressure.critical,
    });
  }
  return result;
}

/** What `serviceReporter` tells the service the session is: its id, model name and the engine's KV settings. */
export interface ServiceSession {
  /** The service's base URL. @default 'http://127.0.0.1:8797' */
  url?: string;
  id: string;
  /** The local model's name, as the dashboard shows it. */
  model: string;
  kv: { nCtx: number; nBatch: number; softLimit: number };
}

/**
 * Feeds a running barometer service (`npm start`, `barometer serve`) from the loop, so that the dashboard shows
 * the session live: it creates the session with the engine's KV settings, then posts each turn's usage with the
 * engine's own cell count (`kvCellsUsed`). Posts go in order, one after the other, and never hold the loop: the
 * agent does not wait for barometer, and a service that cannot be reached is said once, on stderr.
 */
export async function serviceReporter(
  session: ServiceSession,
  engineCells: () => number,
): Promise<{ onTurn(figures: TurnFigures): void; flush(): Promise<void> }> {
  const url = (session.url ?? 'http://127.0.0.1:8797').replace(/\/+$/, '');
  let failed = false;
  const post = async (path: string, body: unknown) => {
    try {
      const answer = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(1500),
      });
      if (!answer.ok) throw new Error(`${answer.status} ${await answer.text()}`);
    } catch (error) {
      if (!failed) console.error(`barometer at ${url}: ${error instanceof Error ? error.message : error}`);
      failed = true;
    }
  };
  await post('/api/v1/sessions', {
    id: session.id,
    model: session.model,
    contextWindow: session.kv.nCtx,
    kv: session.kv,
  });
  const usagePath = `/api/v1/sessions/${encodeURIComponent(session.id)}/usage`;
  let queue = Promise.resolve();
  return {
    onTurn: (figures) => {
      // The engine's count now, not when the post goes out.
      const body = {
        promptTokens: figures.prompt,
        completionTokens: figures.generated,
        kvCellsUsed: engineCells(),
      };
      queue = queue.then(() => post(usagePath, body));
    },
    flush: () => queue,
  };
}

const N_CTX = 2048;
const N_BATCH = 64;
const SOFT_LIMIT = 256;

async function main(): Promise<void> {
  // In your project: createRequire(import.meta.url). In barometer's clone the engine lives in test/kv-engines
  // (npm run kv-engines installs it).
  const require = createRequire(new URL('../test/kv-engines/package.json', import.meta.url));
  const folder = mkdtempSync(join(tmpdir(), 'barometer-loop-'));
  try {
    const modelPath = process.argv[2] ?? writeTinyGguf(join(folder, 'tiny.gguf'));
    const native = require('@lloyal-labs/lloyal.node-linux-x64') as {
      createContext(options: object): Promise<
        Parameters<typeof lloyalKvEngine>[0] & {
          _branchSample(handle: number): number;
          dispose(): void;
        }
      >;
    };
    const context = await native.createContext({
      modelPath,
      nCtx: N_CTX,
      nBatch: N_BATCH,
      nThreads: 1,
      nSeqMax: 2,
    });
    const budget = new Budget(lloyalKvEngine(context, { nBatch: N_BATCH }), { softLimit: SOFT_LIMIT });
    const branch = await budget.open();
    await budget.prefill(branch, fill(200, 0)); // the system prompt
    const kv = { nCtx: N_CTX, nBatch: N_BATCH, softLimit: SOFT_LIMIT };
    const service = process.env.BAROMETER_URL
      ? await serviceReporter(
          { url: process.env.BAROMETER_URL, id: `local-${process.pid}`, model: 'tiny-gguf', kv },
          () => context._storeKvPressure().cellsUsed,
        )
      : undefined;
    const result = await runLocalAgentLoop({
      budget,
      branch,
      sample: (id) => context._branchSample(Number(id)),
      resultSizes: [120, 40, 300, 80, 500],
      onTurn: (figures) => {
        console.log(JSON.stringify(figures));
        service?.onTurn(figures);
      },
    });
    await service?.flush();
    console.log(result, { engineFailures: budget.engineFailures, ...budget.pressure().toJSON() });
    context.dispose();
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
