import { describe, expect, it } from 'vitest';
import { readGeminiCliLog } from './read-gemini-cli-log.js';
import { readSessionLog } from './read-session-log.js';
import { readTrace } from './test-helpers/traces.js';

const SESSION = 'gemini/small-gemini-session.jsonl';

/*
 * Counted independently: jq 'select(.type=="gemini") | .id' gives 11 records, 6 distinct ids
 * (five of them written twice, the second time with toolCalls added). The first five are
 * gemini-3-flash-preview, the sixth gemini-3.1-pro-preview. tokens.total = input + output + thoughts.
 */
describe('readGeminiCliLog on the recorded session', () => {
  const log = readSessionLog(readTrace(SESSION));

  it('finds 6 unique calls, deduplicated by id', () => {
    expect(log.format).toBe('gemini-cli');
    expect(log.calls.map((call) => call.id?.slice(0, 8))).toEqual([
      '52e62e67',
      'a4173396',
      'cda8a342',
      'edf94f05',
      '0752be32',
      '42a121a5',
    ]);
    expect(log.compactions).toEqual([]);
  });

  it('sees the model switch mid-session and ends on the new model', () => {
    expect(log.calls.map((call) => call.model)).toEqual([
      ...Array(5).fill('gemini-3-flash-preview'),
      'gemini-3.1-pro-preview',
    ]);
    expect(log.model).toBe('gemini-3.1-pro-preview');
  });

  it('maps tokens like the API: thoughts in the completion, cached inside the input', () => {
    // {"input":29082,"output":89,"cached":8156,"thoughts":642,"tool":0,"total":29813}
    expect(log.calls[1]).toMatchObject({
      timestamp: '2026-04-23T12:53:18.422Z',
      usage: {
        available: true,
        source: 'gemini-cli',
        promptTokens: 29082,
        completionTokens: 89 + 642,
        totalTokens: 29813,
        cachedReadTokens: 8156,
        reasoningTokens: 642,
      },
    });
  });

  it('reads the single-JSON-object form of a recording the same way', () => {
    const records = readTrace(SESSION)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const [header, ...rest] = records;
    const messages = rest.filter((record) => 'id' in record);
    const json = JSON.stringify({ ...header, messages }, null, 2);
    const fromJson = readSessionLog(json);
    expect(fromJson.format).toBe('gemini-cli');
    expect(fromJson.calls).toEqual(log.calls);
    expect(readGeminiCliLog(json).calls).toHaveLength(6);
  });
});
