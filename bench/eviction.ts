import { mkdtempSync, rmSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildHistoryIndex,
  countHistoryTokens,
  evictTask,
  type HistoryItem,
  planEviction,
  tagToolItems,
} from '../src/compaction/index.js';
import { ArchiveStore } from '../src/store/archive.js';
import { createTokenCounter, type TokenCounter } from '../src/tokens/index.js';
import { median, percentile, SyntheticText, settle, type TextKind } from './tokens.js';

const TOOLS: { name: string; output: TextKind | 'none' }[] = [
  { name: 'read_file', output: 'code' },
  { name: 'read_file', output: 'code' },
  { name: 'run_command', output: 'log' },
  { name: 'search', output: 'json' },
  { name: 'write_file', output: 'none' },
];

/**
 * A coding agent's history of exactly `items` items: a system prompt, then tasks of a request, a plan, 15 to
 * 23 tool calls with their results (files read, commands run, searches; one call in five writes a file, whose
 * content is the call's input) and a closing answer. Tool items are tagged with their task by `tagToolItems`.
 */
export function buildTaskHistory(
  items: number,
  counter: TokenCounter,
  seed = 4004,
): { history: HistoryItem[]; taskIds: string[] } {
  const text = new SyntheticText(seed);
  const history: HistoryItem[] = [{ kind: 'system', id: 'system', text: text.text('prose', 600, counter) }];
  const taskIds: string[] = [];
  let call = 0;
  while (history.length < items) {
    const taskId = `task-${String(taskIds.length).padStart(3, '0')}`;
    taskIds.push(taskId);
    const block: HistoryItem[] = [
      { kind: 'user', id: `${taskId}:request`, text: text.text('prose', 40 + text.integer(120), counter) },
      { kind: 'assistant', id: `${taskId}:plan`, text: text.text('prose', 60 + text.integer(140), counter) },
    ];
    // Room for the closing answer; a last task too short for a pair is all prose.
    const pairs = Math.min(15 + text.integer(9), Math.floor((items - history.length - 3) / 2));
    for (let pair = 0; pair < pairs; pair++, call++) {
      const tool = text.pick(TOOLS);
      const callId = `call_${call}`;
      const path = text.path();
      const written = tool.name === 'write_file' ? text.text('code', 150 + text.integer(300), counter) : '';
      const input =
        tool.name === 'write_file'
          ? { path, content: written }
          : tool.name === 'run_command'
            ? { command: `npm test -- ${path}` }
            : tool.name === 'search'
              ? { query: text.identifier(), glob: 'src/**/*.ts' }
              : { path };
      const content =
        tool.output === 'none'
          ? `Wrote ${Buffer.byteLength(written)} bytes to ${path}`
          : text.text(tool.output, 90 + text.integer(620), counter);
      block.push(
        { kind: 'tool-call', id: `${callId}:call`, callId, name: tool.name, input },
        { kind: 'tool-result', id: `${callId}:result`, callId, name: tool.name, content },
      );
    }
    while (history.length + block.length < items && block.length < pairs * 2 + 3) {
      block.push({
        kind: 'assistant',
        id: `${taskId}:answer-${block.length}`,
        text: text.text('prose', 80 + text.integer(160), counter),
      });
    }
    history.push(...tagToolItems(block, taskId));
  }
  return { history: history.slice(0, items), taskIds };
}

export interface EvictionFigures {
  items: number;
  tokens: number;
  tasks: number;
  runs: number;
  /** Items replaced by a tombstone per eviction, and the bytes archived per eviction, on average. */
  evictedItems: number;
  archivedBytes: number;
  medianMs: number;
  p90Ms: number;
  noIndexMedianMs: number;
  baselineMedianMs: number;
  baselineP90Ms: number;
}

/**
 * evictTask of one task at a time from a 5,000-item, ~1,000,000-token history, into an ArchiveStore with
 * `durable: false` (no fsync) in a temporary directory, with the index a session keeps (`buildHistoryIndex`),
 * and once more without it. Each run evicts a different task of the same history, so every run does the full
 * work. Baseline, run alternately on the same tasks: the least any eviction must do, which is to copy the
 * history array and append the task's content to a file (`fs/promises` `appendFile` of the JSON of the
 * contents: asynchronous, as the archive is).
 */
export async function benchEviction(items = 5000, runs = 20): Promise<EvictionFigures> {
  const counter = createTokenCounter();
  const { history, taskIds } = buildTaskHistory(items, counter);
  const tokens = countHistoryTokens(history, counter);
  const index = buildHistoryIndex(history);
  const root = mkdtempSync(join(tmpdir(), 'barometer-bench-eviction-'));
  try {
    const archive = new ArchiveStore({ root, durable: false });
    const warmUp = 3;
    // Spread the measured tasks over the whole history: a task late in it costs the same as an early one.
    const stride = Math.floor((taskIds.length - 1) / (warmUp + 2 * runs));
    const chosen = Array.from({ length: warmUp + 2 * runs }, (_, at) => taskIds[at * stride]!);
    const times: number[] = [];
    const noIndexTimes: number[] = [];
    const baselineTimes: number[] = [];
    let evicted = 0;
    let archivedBytes = 0;
    for (const [at, taskId] of chosen.entries()) {
      const measured = at >= warmUp;
      const withIndex = at < warmUp || (at - warmUp) % 2 === 0;
      const contents = planEviction(history, taskId, { index }).map((step) => step.original);

      await settle();
      let start = performance.now();
      const copy = history.slice();
      await appendFile(join(root, `baseline-${taskId}.json`), JSON.stringify(contents));
      const baselineMs = performance.now() - start;
      if (copy.length !== history.length) throw new Error('copy lost items');

      await settle();
      start = performance.now();
      const result = await evictTask(history, taskId, {
        archive,
        sessionId: 'bench',
        ...(withIndex ? { index } : {}),
      });
      const elapsed = performance.now() - start;
      if (result.evicted !== contents.length || result.evicted === 0)
        throw new Error(`${taskId}: evicted ${result.evicted} of ${contents.length}`);
      if (!measured) continue;
      if (withIndex) {
        times.push(elapsed);
        baselineTimes.push(baselineMs);
        evicted += result.evicted;
        archivedBytes += contents.reduce((total, content) => total + Buffer.byteLength(content), 0);
      } else {
        noIndexTimes.push(elapsed);
      }
    }
    return {
      items: history.length,
      tokens,
      tasks: taskIds.length,
      runs: times.length,
      evictedItems: evicted / times.length,
      archivedBytes: archivedBytes / times.length,
      medianMs: median(times),
      p90Ms: percentile(times, 90),
      noIndexMedianMs: median(noIndexTimes),
      baselineMedianMs: median(baselineTimes),
      baselineP90Ms: percentile(baselineTimes, 90),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
