import { createInterface } from 'node:readline';
import type { ResolvedPressureInput } from '../pressure/index.js';
import { ENUM_PARAMETERS, NUMERIC_PARAMETERS, PARAMETER_NAMES } from '../pressure/parameters.js';
import { parsePressureInput } from '../pressure/parse.js';
import type { CliIo } from './io.js';

/**
 * Asks for each input in turn, showing its default in brackets (Enter keeps it), and asks again with the
 * reason when an answer is invalid. Lines are read through an async iterator so that piped answers are
 * buffered, not lost between questions. End of input keeps the defaults of the questions left.
 */
export async function askPressureInputs(
  io: CliIo,
  initial: Record<string, string>,
): Promise<ResolvedPressureInput> {
  const lines = createInterface({ input: io.stdin, terminal: false })[Symbol.asyncIterator]();
  const answers: Record<string, string> = { ...initial };
  let ended = false;
  try {
    for (const name of PARAMETER_NAMES) {
      const spec =
        name in NUMERIC_PARAMETERS ? NUMERIC_PARAMETERS[name as keyof typeof NUMERIC_PARAMETERS] : undefined;
      const choice =
        name in ENUM_PARAMETERS ? ENUM_PARAMETERS[name as keyof typeof ENUM_PARAMETERS] : undefined;
      const current = answers[name] ?? String(spec?.default ?? choice?.default);
      const hint = choice ? ` (${choice.values.join('|')})` : '';
      for (;;) {
        if (ended) break;
        io.stdout.write(`${name}${hint} — ${spec?.description ?? choice?.description} [${current}]: `);
        const next = await lines.next();
        if (next.done) {
          ended = true;
          io.stdout.write('\n');
          break;
        }
        const answer = next.value.trim();
        // Piped answers are not echoed by a terminal; echo them so the transcript reads as a dialogue.
        if (!io.stdin.isTTY) io.stdout.write(`${answer}\n`);
        const candidate = { ...answers, [name]: answer === '' ? current : answer };
        const parsed = parsePressureInput(candidate, 'text');
        const problem = parsed.ok ? undefined : parsed.issues.find((issue) => issue.field === name);
        if (!problem) {
          answers[name] = candidate[name]!;
          break;
        }
        io.stdout.write(`  ✗ ${problem.message}. Try again.\n`);
      }
    }
  } finally {
    await lines.return?.();
  }
  const parsed = parsePressureInput(answers, 'text');
  if (!parsed.ok)
    throw new Error(parsed.issues.map((issue) => `${issue.field}: ${issue.message}`).join('; '));
  return parsed.value;
}
