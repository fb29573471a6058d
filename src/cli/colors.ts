import type { CliIo } from './io.js';

const CODES = { red: 31, green: 32, yellow: 33, cyan: 36, gray: 90, bold: 1, dim: 2 } as const;
export type Color = keyof typeof CODES;
export type Paint = (color: Color, text: string) => string;

/**
 * Colours when writing to a terminal, unless NO_COLOR is set (https://no-color.org); FORCE_COLOR turns
 * them on for pipes. `pipes: true` colours a pipe too: a reader that shows ANSI colours, such as Claude Code's
 * status line, reads the command's output through one.
 */
export function painter(io: CliIo, options: { pipes?: boolean } = {}): Paint {
  const noColor = io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '';
  const force = io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0';
  const enabled = !noColor && (force || options.pipes === true || io.stdout.isTTY === true);
  return enabled ? (color, text) => `\u001b[${CODES[color]}m${text}\u001b[0m` : (_color, text) => text;
}
