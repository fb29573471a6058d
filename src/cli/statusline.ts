import { homedir } from 'node:os';
import { join } from 'node:path';
import { BarometerError } from '../errors/barometer-error.js';
import { BarometerValidationError, formatIssue } from '../errors/validation.js';
import { parseStatuslineInput, statuslineReport } from '../integrations/claude-code-statusline.js';
import { painter } from './colors.js';
import { configFor } from './config-for.js';
import { dataFolderFor } from './data-folder-for.js';
import { formatStatusline } from './format-statusline.js';
import { type CliIo, UsageError } from './io.js';
import { readStdin } from './read-stdin.js';

/**
 * Reads Claude Code's status line JSON from stdin and prints the one line. Input it cannot read prints a one-line
 * explanation in the bar and exits 0: Claude Code blanks the bar on a non-zero exit or an empty output, which would
 * hide why.
 */
export async function runStatusline(io: CliIo, flags: { config?: string }): Promise<void> {
  const text = await readStdin(io);
  let input: ReturnType<typeof parseStatuslineInput>;
  try {
    if (text.trim() === '') {
      throw new UsageError(
        "no input: Claude Code pipes its status line JSON to this command's stdin (try: barometer statusline < examples/statusline-input.json)",
      );
    }
    input = parseStatuslineInput(text);
  } catch (error) {
    if (!(error instanceof BarometerError)) throw error;
    io.stdout.write(`${painter(io, { pipes: true })('gray', '●')} barometer: ${oneLine(error)}\n`);
    return;
  }
  const config = await configFor(io, flags.config);
  const home = io.env.HOME ?? homedir();
  const report = statuslineReport(input, {
    home,
    // Each transcript's cost so far, so that a refresh reads only the lines appended since: in the data folder, never
    // in the project Claude Code runs the command in (not even a legacy ./.barometer there).
    costCheckpointDir: join(dataFolderFor(io, undefined, { quiet: true, legacy: false }).path, 'statusline'),
    ...(config ? { config } : {}),
  });
  io.stdout.write(`${formatStatusline(report, painter(io, { pipes: true }))}\n`);
}

/** An error as one short line: the issues of bad input, named by field, else the message. */
function oneLine(error: BarometerError): string {
  const text =
    error instanceof BarometerValidationError
      ? `status line input not understood (${error.issues.map(formatIssue).join('; ')})`
      : error.message;
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 160 ? `${flat.slice(0, 159)}…` : flat;
}
