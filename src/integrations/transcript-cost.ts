import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { BarometerConfig } from '../models/barometer-config.js';
import type { ModelPrice } from '../models/model-price.js';
import { resolveProfile } from '../models/resolve-profile.js';
import { readClaudeCodeLog } from '../usage/read-claude-code-log.js';
import type { SessionLog } from '../usage/session-log.js';
import { usageCost } from '../usage/usage-cost.js';

/** What a transcript's calls cost so far: the sum of the calls with a price, and how many had one. */
export interface TranscriptCost {
  costUsd: number;
  pricedCalls: number;
}

/** One call's share of the cost, by the message id the log gives it (null: no price). */
type CallCost = [id: string | undefined, usd: number | null, time: string];

/**
 * Where the status line keeps, for each transcript, the cost of the part it has already read: `<dir>/<hash>.json`.
 * A transcript only grows, so a refresh reads only what was appended since the last one.
 */
interface CostCheckpoint {
  path: string;
  /** Bytes `[0, offset)` are costed in `cost`; `offset` is the start of a line. */
  offset: number;
  /**
   * The bytes just before `offset` (up to 4 KiB, base64): a transcript rewritten under the same name is read again
   * whole. Kept whole rather than hashed: compared exactly, and no hash module to load in a status line.
   */
  guard: string;
  cost: TranscriptCost;
  /** The last calls counted, by message id, with what each added: a later line of the same message replaces it. */
  recent: Array<[string, number | null]>;
}

const GUARD_BYTES = 4096;
const CHECKPOINT_VERSION = 2;
/**
 * How many of the last messages a refresh can still correct. Claude Code writes a line per content block of a
 * message as it streams, each with the usage so far, and the reader keeps the last (docs/rules.md); sub-agents that
 * run in parallel interleave their lines, so a message may get lines after others have started: 200 messages back
 * is far more than any interleaving of lines written at once.
 */
const RECENT_MESSAGES = 200;

/**
 * Each model's price, looked up once per refresh as the report and replay look it up (`resolveProfile` for Claude
 * Code, with the config file's entries): the one price of a call everywhere.
 */
function pricing(config: BarometerConfig | undefined): (model: string) => ModelPrice | undefined {
  const prices = new Map<string, ModelPrice | undefined>();
  return (model) => {
    if (!prices.has(model)) {
      prices.set(
        model,
        resolveProfile(model, { agent: 'claude-code', ...(config ? { config } : {}) })?.price,
      );
    }
    return prices.get(model);
  };
}

function collectCalls(
  log: SessionLog,
  priceOf: (model: string) => ModelPrice | undefined,
  into: CallCost[],
): void {
  for (const call of log.calls) {
    if (!call.usage.available) continue;
    const cost = usageCost(call.usage, priceOf(call.model ?? call.usage.model ?? 'unknown'));
    into.push([call.id, cost.known ? cost.usd : null, call.timestamp]);
  }
  for (const child of log.children ?? []) collectCalls(child, priceOf, into);
}

/**
 * The checkpoint file's name for a transcript: two 32-bit hashes of its path in hex (FNV-1a, and the same steps
 * with another offset basis and multiplier). Not `node:crypto`, whose load costs a status line more than the rest of this file's work
 * (docs/decisions/080); a collision would only make two transcripts take turns in one file, as the checkpoint holds
 * its transcript's path and is used only for that path.
 */
function checkpointName(path: string): string {
  let first = 0x811c9dc5;
  let second = 0x01000193;
  for (let index = 0; index < path.length; index++) {
    const code = path.charCodeAt(index);
    first = Math.imul(first ^ code, 0x01000193);
    second = Math.imul(second ^ code, 0x5bd1e995);
  }
  const hex = (value: number) => (value >>> 0).toString(16).padStart(8, '0');
  return `${hex(first)}${hex(second)}`;
}

const guardOf = (bytes: Buffer) => bytes.toString('base64');

function readBytes(fd: number, from: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const read = readSync(fd, buffer, done, length - done, from + done);
    if (read === 0) break;
    done += read;
  }
  return done === length ? buffer : buffer.subarray(0, done);
}

function loadCheckpoint(file: string, path: string): CostCheckpoint | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<CostCheckpoint> & { version?: number };
    if (
      parsed.version !== CHECKPOINT_VERSION ||
      parsed.path !== path ||
      !Number.isSafeInteger(parsed.offset) ||
      typeof parsed.guard !== 'string' ||
      typeof parsed.cost?.costUsd !== 'number' ||
      typeof parsed.cost?.pricedCalls !== 'number' ||
      !Array.isArray(parsed.recent)
    )
      return undefined;
    return parsed as CostCheckpoint;
  } catch {
    return undefined;
  }
}

function saveCheckpoint(file: string, checkpoint: CostCheckpoint): void {
  try {
    // The guard holds 4 KiB of the transcript itself: readable by its owner only, as the transcript is.
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify({ version: CHECKPOINT_VERSION, ...checkpoint }), {
      mode: 0o600,
    });
    renameSync(temporary, file);
  } catch {
    // A status line that cannot write its checkpoint reads the whole transcript next time: slower, never wrong.
  }
}

/**
 * The cost of one Claude Code transcript file as `barometer replay` counts it (every billed call at its own model,
 * inline sub-agent chains included, a streamed message at its last usage), reading only what was appended since the
 * last call when `checkpointDir` is given. Only whole lines are read: a line still being written counts at the next
 * refresh. Throws when the file cannot be read.
 */
export function transcriptFileCost(
  path: string,
  options: { config?: BarometerConfig; checkpointDir?: string } = {},
): TranscriptCost {
  const checkpointFile =
    options.checkpointDir === undefined
      ? undefined
      : join(options.checkpointDir, `${checkpointName(path)}.json`);
  const fd = openSync(path, 'r');
  try {
    const size = statSync(path).size;
    let base: CostCheckpoint = {
      path,
      offset: 0,
      guard: '',
      cost: { costUsd: 0, pricedCalls: 0 },
      recent: [],
    };
    const saved = checkpointFile === undefined ? undefined : loadCheckpoint(checkpointFile, path);
    if (saved !== undefined && saved.offset <= size) {
      const from = Math.max(0, saved.offset - GUARD_BYTES);
      if (guardOf(readBytes(fd, from, saved.offset - from)) === saved.guard) base = saved;
    }
    const appended = readBytes(fd, base.offset, size - base.offset);
    // Whole lines only: the bytes after the last newline are a line still being written.
    const wholeLength = appended.lastIndexOf(0x0a) + 1;
    const calls: CallCost[] = [];
    if (wholeLength > 0) {
      collectCalls(
        readClaudeCodeLog(appended.subarray(0, wholeLength).toString('utf8')),
        pricing(options.config),
        calls,
      );
    }
    // In the order they were written, sub-agents' calls among their parent's: the last ones are kept in `recent`.
    calls.sort((a, b) => (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
    const cost = { ...base.cost };
    const recent = new Map(base.recent);
    for (const [id, usd] of calls) {
      if (id !== undefined && recent.has(id)) {
        // A later line of a message already counted: its usage replaces the earlier one's.
        const before = recent.get(id) ?? null;
        if (before !== null) {
          cost.costUsd -= before;
          cost.pricedCalls -= 1;
        }
        recent.delete(id);
      }
      if (usd !== null) {
        cost.costUsd += usd;
        cost.pricedCalls += 1;
      }
      if (id !== undefined) recent.set(id, usd);
    }
    if (checkpointFile !== undefined && wholeLength > 0) {
      const offset = base.offset + wholeLength;
      const from = Math.max(0, offset - GUARD_BYTES);
      saveCheckpoint(checkpointFile, {
        path,
        offset,
        guard: guardOf(readBytes(fd, from, offset - from)),
        cost,
        recent: [...recent].slice(-RECENT_MESSAGES),
      });
    }
    return cost;
  } finally {
    closeSync(fd);
  }
}
