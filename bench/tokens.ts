import { createRequire } from 'node:module';
import {
  type ChatMessage,
  countMessage,
  countMessages,
  createTokenCounter,
  IncrementalCounter,
  type TokenCounter,
} from '../src/tokens/index.js';

/** mulberry32: a tiny seeded generator, so that every run builds the same history. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the a of to and in that is for it with as on this be by we should not are from will can if then but ' +
  'file function test error value session token count budget context window history message tool result ' +
  'call archive task summary cache request response server client config option schema field type module ' +
  'change update check run build fails passes returns throws reads writes keeps drops moves after before ' +
  'because since which when where every each only first last next previous small large long short new old'
).split(' ');
const SYLLABLES = (
  'get set user token count session item cache load parse buffer index map entry record value stream ' +
  'request response handler config state event queue task archive window limit budget model'
).split(' ');
const TYPES = [
  'string',
  'number',
  'boolean',
  'Session',
  'HistoryItem',
  'Promise<void>',
  'Buffer',
  'TaskRecord',
];
const LEVELS = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'];

/** The kinds of text an agent's history holds: prose, source code, JSON tool output, log output. */
export type TextKind = 'prose' | 'code' | 'json' | 'log';

/**
 * Deterministic synthetic text of each kind. Identifiers, numbers and hashes vary from line to line, so the
 * tokenizer's merge cache does not turn the text into a handful of repeated chunks.
 */
export class SyntheticText {
  private readonly random: () => number;
  private line = 0;

  constructor(seed: number) {
    this.random = seededRandom(seed);
  }

  integer(below: number): number {
    return Math.floor(this.random() * below);
  }

  pick<T>(values: readonly T[]): T {
    return values[this.integer(values.length)] as T;
  }

  identifier(): string {
    const parts = 1 + this.integer(3);
    let name = this.pick(SYLLABLES);
    for (let part = 1; part < parts; part++) {
      const syllable = this.pick(SYLLABLES);
      name += syllable[0]!.toUpperCase() + syllable.slice(1);
    }
    return name;
  }

  hex(length: number): string {
    let text = '';
    while (text.length < length) text += this.integer(0x10000).toString(16).padStart(4, '0');
    return text.slice(0, length);
  }

  path(): string {
    return `src/${this.pick(SYLLABLES)}/${this.identifier().replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.ts`;
  }

  sentence(): string {
    const length = 8 + this.integer(14);
    const words: string[] = [];
    for (let word = 0; word < length; word++) {
      const roll = this.integer(20);
      if (roll === 0) words.push(`\`${this.identifier()}\``);
      else if (roll === 1) words.push(String(this.integer(100_000)));
      else words.push(this.pick(WORDS));
    }
    const first = words[0]!;
    words[0] = first[0]!.toUpperCase() + first.slice(1);
    return `${words.join(' ')}.`;
  }

  /** One line of the given kind. */
  nextLine(kind: TextKind): string {
    this.line += 1;
    switch (kind) {
      case 'prose':
        return `${this.sentence()} ${this.sentence()}`;
      case 'code':
        return this.codeLine();
      case 'json':
        return JSON.stringify({
          id: this.hex(12),
          path: this.path(),
          size: this.integer(200_000),
          modified: new Date(Date.UTC(2026, 0, 1) + this.integer(1e10)).toISOString(),
          status: this.pick(['ok', 'ok', 'changed', 'missing']),
          owner: this.identifier(),
        });
      case 'log':
        return (
          `${new Date(Date.UTC(2026, 0, 1) + this.line * 1337).toISOString()} ${this.pick(LEVELS)} ` +
          `[worker-${this.integer(16)}] ${this.identifier()} request=${this.hex(8)} ` +
          `path=/api/v1/${this.pick(SYLLABLES)} took ${this.integer(5000)} ms ${this.sentence()}`
        );
    }
  }

  private codeLine(): string {
    const indent = '  '.repeat(this.integer(4));
    switch (this.integer(7)) {
      case 0:
        return `${indent}const ${this.identifier()} = await ${this.identifier()}.${this.identifier()}(${this.identifier()}, ${this.integer(1000)});`;
      case 1:
        return `${indent}if (${this.identifier()}.length > ${this.integer(512)}) return ${this.identifier()};`;
      case 2:
        return `export function ${this.identifier()}(${this.identifier()}: ${this.pick(TYPES)}): ${this.pick(TYPES)} {`;
      case 3:
        return `${indent}// ${this.sentence()}`;
      case 4:
        return `import { ${this.identifier()}, ${this.identifier()} } from './${this.path().slice(4, -3)}.js';`;
      case 5:
        return `${indent}${this.identifier()}.set('${this.hex(6)}', { ${this.identifier()}: ${this.integer(99)} });`;
      default:
        return `${indent}}`;
    }
  }

  /** Lines of `kind` until they hold about `tokens` tokens (each line counted once, with its newline). */
  text(kind: TextKind, tokens: number, counter: TokenCounter): string {
    const lines: string[] = [];
    let total = 0;
    while (total < tokens) {
      const line = this.nextLine(kind);
      lines.push(line);
      total += counter.count(`${line}\n`);
    }
    return lines.join('\n');
  }
}

const TOOLS: { name: string; output: TextKind }[] = [
  { name: 'read_file', output: 'code' },
  { name: 'run_command', output: 'log' },
  { name: 'search', output: 'json' },
  { name: 'list_files', output: 'json' },
];

/** One turn of a coding agent: a request, a tool call, its output, an answer. */
function turn(text: SyntheticText, counter: TokenCounter, number: number): ChatMessage[] {
  const tool = text.pick(TOOLS);
  const callId = `call_${number}`;
  const args =
    tool.name === 'run_command'
      ? { command: `npm test -- ${text.path()}` }
      : { path: text.path(), pattern: text.identifier() };
  return [
    { role: 'user', content: text.text('prose', 30 + text.integer(170), counter) },
    {
      role: 'assistant',
      content: text.sentence(),
      tool_calls: [
        { id: callId, type: 'function', function: { name: tool.name, arguments: JSON.stringify(args) } },
      ],
    },
    {
      role: 'tool',
      tool_call_id: callId,
      content: text.text(tool.output, 100 + text.integer(1900), counter),
    },
    {
      role: 'assistant',
      content: text.text(text.integer(3) === 0 ? 'code' : 'prose', 50 + text.integer(350), counter),
    },
  ];
}

/** A chat history of at least `tokens` tokens (countMessages), and the text generator for what follows it. */
export function buildChatHistory(
  tokens: number,
  counter: TokenCounter,
  seed = 2026,
): { history: ChatMessage[]; tokens: number; text: SyntheticText } {
  const text = new SyntheticText(seed);
  const history: ChatMessage[] = [{ role: 'system', content: text.text('prose', 800, counter) }];
  let total = 3 + countMessage(history[0]!, counter).tokens;
  for (let number = 0; total < tokens; number++) {
    for (const message of turn(text, counter, number)) {
      history.push(message);
      total += countMessage(message, counter).tokens;
    }
  }
  return { history, tokens: total, text };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Nearest-rank percentile (`p` in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Collects the garbage of the previous round (when node runs with --expose-gc) and pauses a few milliseconds,
 * so that neither the collection nor V8's concurrent sweeping after it is billed to the next measurement.
 */
export async function settle(): Promise<void> {
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((resolve) => setTimeout(resolve, 5));
}

export interface TokensFigures {
  messages: number;
  historyTokens: number;
  historyBytes: number;
  fullRecountMs: number;
  /** The same, with the tokenizer's merge cache emptied first: a first count in a fresh process. */
  coldRecountMs: number;
  /** Median time of IncrementalCounter.count(history + one new message), each after a GC and a 5 ms pause. */
  incrementalMs: number;
  /** The same, back to back (no pause): an agent loop that counts each turn as it builds it. */
  incrementalWarmMs: number;
  /** Tokens of the new messages, on average: what the incremental count tokenized. */
  newMessageTokens: number;
  textBytes: number;
  textTokens: number;
  ourSeconds: number;
  rawSeconds: number;
}

/**
 * (a) countMessages over a ~200,000-token history (median of `rounds`), against (b) an IncrementalCounter that
 * has counted the history and is handed it plus one new message, one more each round (median); (c) our
 * counter's count(text) against raw gpt-tokenizer countTokens over the history's texts, one call per text as
 * countMessages makes them (best of `throughputRounds` back-to-back passes, alternating).
 * The tokenizer's merge cache is warm for (a), which makes a recount as cheap as it gets, so the ratio to (b)
 * is the conservative one; a recount with the cache emptied first is reported beside it.
 */
export async function benchTokens(
  targetTokens = 200_000,
  rounds = 9,
  throughputRounds = 30,
): Promise<TokensFigures> {
  const counter = createTokenCounter();
  const { history, tokens } = buildChatHistory(targetTokens, counter);
  const historyBytes = Buffer.byteLength(JSON.stringify(history));

  let checked = 0;
  const fullTimes: number[] = [];
  for (let round = 0; round <= rounds; round++) {
    await settle();
    const start = performance.now();
    checked = countMessages(history, counter).tokens;
    if (round > 0) fullTimes.push(performance.now() - start); // round 0 warms up
  }
  if (checked !== tokens) throw new Error(`history counted ${checked}, built as ${tokens}`);
  // The CommonJS build is the module instance createTokenCounter requires, so this empties the counter's cache.
  const shared = createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as {
    clearMergeCache(): void;
  };
  const coldTimes: number[] = [];
  for (let round = 0; round < rounds; round++) {
    shared.clearMergeCache();
    await settle();
    const start = performance.now();
    countMessages(history, counter);
    coldTimes.push(performance.now() - start);
  }
  countMessages(history, counter); // warm again for what follows

  const incremental = new IncrementalCounter(counter);
  incremental.count(history);
  const text = new SyntheticText(7);
  const grown = history.slice();
  const incrementalTimes: number[] = [];
  let newTokens = 0;
  const updates = rounds * 5;
  for (let round = 0; round <= updates; round++) {
    const message: ChatMessage =
      round % 2
        ? {
            role: 'tool',
            tool_call_id: `call_new_${round}`,
            content: text.text('log', 100 + text.integer(900), counter),
          }
        : { role: 'assistant', content: text.text('prose', 50 + text.integer(350), counter) };
    grown.push(message);
    await settle();
    const start = performance.now();
    const result = incremental.count(grown);
    const elapsed = performance.now() - start;
    if (result.added !== 1) throw new Error(`expected one new message, tokenized ${result.added}`);
    if (round > 0) {
      incrementalTimes.push(elapsed);
      newTokens += result.addedTokens;
    }
  }
  const warmTimes: number[] = [];
  for (let round = 0; round < updates; round++) {
    grown.push({ role: 'assistant', content: text.text('prose', 50 + text.integer(350), counter) });
    const start = performance.now();
    incremental.count(grown);
    warmTimes.push(performance.now() - start);
  }
  if (incremental.count(grown).tokens !== countMessages(grown, counter).tokens)
    throw new Error('incremental count differs from a full recount');

  const texts: string[] = [];
  for (const message of history) {
    if (typeof message.content === 'string') texts.push(message.content);
    for (const call of message.tool_calls ?? []) texts.push(call.function?.arguments ?? '');
  }
  const raw = await import('gpt-tokenizer/encoding/o200k_base');
  const sum = (count: (text: string) => number) => {
    let total = 0;
    for (const item of texts) total += count(item);
    return total;
  };
  const textTokens = sum(raw.countTokens); // warm-up of the raw tokenizer's merge cache
  if (sum((item) => counter.count(item)) !== textTokens)
    throw new Error('counter and gpt-tokenizer disagree');
  // Steady-state throughput: back-to-back passes, alternating so that both sides see the same machine load.
  let ourSeconds = Number.POSITIVE_INFINITY;
  let rawSeconds = Number.POSITIVE_INFINITY;
  await settle();
  for (let round = 0; round < throughputRounds; round++) {
    let start = performance.now();
    sum(raw.countTokens);
    rawSeconds = Math.min(rawSeconds, (performance.now() - start) / 1000);
    start = performance.now();
    sum((item) => counter.count(item));
    ourSeconds = Math.min(ourSeconds, (performance.now() - start) / 1000);
  }

  return {
    messages: history.length,
    historyTokens: tokens,
    historyBytes,
    fullRecountMs: median(fullTimes),
    coldRecountMs: median(coldTimes),
    incrementalMs: median(incrementalTimes),
    incrementalWarmMs: median(warmTimes),
    newMessageTokens: newTokens / incrementalTimes.length,
    textBytes: texts.reduce((total, item) => total + Buffer.byteLength(item), 0),
    textTokens,
    ourSeconds,
    rawSeconds,
  };
}
