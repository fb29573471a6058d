import { Readable } from 'node:stream';
import type { CliIo } from '../cli/io.js';

/** A CliIo that records what a command writes and feeds it the given stdin text. */
export function memoryIo(options: { stdin?: string; env?: Record<string, string>; tty?: boolean } = {}) {
  let out = '';
  let err = '';
  const stdin = Readable.from(
    options.stdin === undefined ? [] : [options.stdin],
  ) as unknown as CliIo['stdin'];
  const io: CliIo = {
    stdout: { write: (text: string) => (out += text), isTTY: options.tty ?? false },
    stderr: { write: (text: string) => (err += text), isTTY: false },
    stdin,
    env: options.env ?? {},
    cwd: process.cwd(),
  };
  return {
    io,
    get stdout() {
      return out;
    },
    get stderr() {
      return err;
    },
  };
}
