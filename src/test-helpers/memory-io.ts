import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { CliIo } from '../cli/io.js';

let scratch: string | undefined;

/**
 * A home and a state folder under os.tmpdir() for the commands of this test process, removed when it exits: a
 * command's default data folder (the user's state folder) lands there, never in the real home.
 */
function scratchHome(): { HOME: string; XDG_STATE_HOME: string } {
  if (scratch === undefined) {
    const created = mkdtempSync(join(tmpdir(), 'barometer-io-home-'));
    process.once('exit', () => rmSync(created, { recursive: true, force: true }));
    scratch = created;
  }
  return { HOME: scratch, XDG_STATE_HOME: join(scratch, '.local', 'state') };
}

/**
 * A CliIo that records what a command writes and feeds it the given stdin text. Its environment has a scratch `HOME`
 * and `XDG_STATE_HOME` unless `env` names its own.
 */
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
    env: { ...scratchHome(), ...options.env },
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
