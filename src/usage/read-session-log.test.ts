import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { detectLogFormat } from './detect-log-format.js';
import { readSessionLog } from './read-session-log.js';
import type { ReadSessionLogOptions } from './session-log.js';
import { readTrace } from './test-helpers/traces.js';

const LOGS = {
  'claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl': 'claude-code',
  'claude-code/small-sonnet-session.jsonl': 'claude-code',
  'codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl': 'codex',
  'codex/small-codex-session.jsonl': 'codex',
  'gemini/small-gemini-session.jsonl': 'gemini-cli',
  'openhands/basic_gui_mode.json': 'openhands',
} as const;

function thrown(action: () => unknown): BarometerValidationError {
  try {
    action();
  } catch (error) {
    if (error instanceof BarometerValidationError) return error;
    throw error;
  }
  throw new Error('expected a BarometerValidationError');
}

describe('detectLogFormat', () => {
  it.each(Object.entries(LOGS))('recognises %s as %s', (path, format) => {
    expect(detectLogFormat(readTrace(path))).toBe(format);
  });

  it('recognises nothing in text that is not a log', () => {
    expect(detectLogFormat('# README\n\nSome prose.')).toBeUndefined();
    expect(detectLogFormat('{"hello":"world"}\n{"n":1}')).toBeUndefined();
    expect(detectLogFormat('')).toBeUndefined();
  });
});

describe('readSessionLog', () => {
  it('reads with an explicit format the same as with detection', () => {
    const text = readTrace('codex/small-codex-session.jsonl');
    expect(readSessionLog(text, { format: 'codex' })).toEqual(readSessionLog(text));
    expect(readSessionLog(text, { format: 'auto' })).toEqual(readSessionLog(text));
  });

  it('reads a log saved with a byte-order mark and Windows line endings', () => {
    const text = readTrace('codex/small-codex-session.jsonl');
    const windows = `\uFEFF${text.replaceAll('\n', '\r\n')}`;
    expect(detectLogFormat(windows)).toBe('codex');
    const log = readSessionLog(windows);
    expect(log.calls).toEqual(readSessionLog(text).calls);
    expect(log.skippedLines).toEqual([]);
  });

  it('reports progress by lines, ending at the file’s 1,512 lines', () => {
    const progress: Array<[number, number]> = [];
    readSessionLog(readTrace('claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl'), {
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(progress).toEqual([
      [1000, 1512],
      [1512, 1512],
    ]);
  });

  it('reports progress by events for an OpenHands trajectory', () => {
    const progress: number[] = [];
    readSessionLog(readTrace('openhands/basic_gui_mode.json'), { onProgress: (done) => progress.push(done) });
    expect(progress).toHaveLength(18);
    expect(progress.at(-1)).toBe(18);
  });
});

describe('readSessionLog on input that is not a session log', () => {
  it('names the first line that is not JSON', () => {
    const error = thrown(() => readSessionLog('# Notes\nnothing here\n'));
    expect(error.message).toContain('line 1 is not JSON');
    expect(error.issues[0]!.field).toBe('text');
  });

  it('says the JSON lines match no known agent', () => {
    const error = thrown(() =>
      readSessionLog('{"level":"info","msg":"started"}\n{"level":"info","msg":"done"}\n'),
    );
    expect(error.message).toContain(
      '2 JSON line(s) read, none a record of claude-code, codex, gemini-cli or openhands',
    );
  });

  it('says an empty text is empty', () => {
    expect(thrown(() => readSessionLog('  \n')).message).toContain('the log is empty');
  });

  it('refuses a log read with the wrong format instead of returning nothing', () => {
    const error = thrown(() =>
      readSessionLog(readTrace('codex/small-codex-session.jsonl'), { format: 'claude-code' }),
    );
    expect(error.message).toContain('no claude-code calls or compactions found: it looks like a codex log');
  });

  it('refuses an OpenHands read of text that is not a JSON array', () => {
    expect(() => readSessionLog('{"a":1}', { format: 'openhands' })).toThrow(/JSON array of events/);
  });

  it('rejects unknown options and formats', () => {
    expect(() => readSessionLog('{}', { format: 'cursor' } as unknown as ReadSessionLogOptions)).toThrow(
      BarometerValidationError,
    );
    expect(() => readSessionLog('{}', { verbose: true } as unknown as ReadSessionLogOptions)).toThrow(
      /verbose/,
    );
    expect(() => readSessionLog(42 as unknown as string)).toThrow(BarometerValidationError);
  });
});
