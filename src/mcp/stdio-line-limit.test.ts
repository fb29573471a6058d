import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { idOfEdges, StdioLineLimit } from './stdio-line-limit.js';

async function through(limit: number, pieces: string[]) {
  const oversize: Array<[string | number | null, number]> = [];
  const out: Buffer[] = [];
  const stream = Readable.from(pieces.map((piece) => Buffer.from(piece))).pipe(
    new StdioLineLimit(limit, (id, bytes) => oversize.push([id, bytes])),
  );
  for await (const chunk of stream) out.push(chunk as Buffer);
  return { text: Buffer.concat(out).toString(), oversize };
}

describe('StdioLineLimit', () => {
  it('passes lines under the limit whole, however they are split, and drops a longer one as it streams', async () => {
    const big = `{"method":"x","params":{"p":"${'y'.repeat(100)}"},"jsonrpc":"2.0","id":"req-7"}`;
    const { text, oversize } = await through(64, [
      '{"id":1}\n{"i',
      'd":2}\n',
      big.slice(0, 50),
      big.slice(50),
      '\n{"id":3}\n',
    ]);
    expect(text).toBe('{"id":1}\n{"id":2}\n{"id":3}\n');
    expect(oversize).toEqual([['req-7', big.length]]);
  });

  it("finds a message's id at its start or at its end, and null when it shows none", () => {
    expect(idOfEdges('{"jsonrpc":"2.0","id":12,"method":"tools/call"', '…"}}')).toBe(12);
    expect(idOfEdges('{"method":"tools/call"', '…},"jsonrpc":"2.0","id":"a\\"b"}')).toBe('a"b');
    expect(idOfEdges('{"method":"notifications/x"', '…"}}')).toBeNull();
  });
});
