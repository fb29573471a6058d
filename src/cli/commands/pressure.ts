import type { Command } from 'commander';
import { EXIT_CODES } from '../../errors/error-catalogue.js';
import { evaluateResolved } from '../../pressure/evaluate.js';
import { ENUM_PARAMETERS, NUMERIC_PARAMETER_NAMES, NUMERIC_PARAMETERS } from '../../pressure/parameters.js';
import { parsePressureInput } from '../../pressure/parse.js';
import { painter } from '../colors.js';
import { formatPressureReport } from '../format-pressure.js';
import { askPressureInputs } from '../interactive.js';
import { type CliIo, UsageError } from '../io.js';
import { issuesText } from '../issues-text.js';
import { kebabCase } from '../kebab.js';

/** `barometer pressure`: the regulator from flags, or interactively. */
export function registerPressureCommand(program: Command, io: CliIo, now: () => number): void {
  const command = program
    .command('pressure')
    .description(
      'Evaluate context pressure with the context-pressure regulator: viability, level, thresholds and the suggested action',
    );
  for (const name of NUMERIC_PARAMETER_NAMES) {
    const spec = NUMERIC_PARAMETERS[name];
    const range = spec.max === undefined ? `≥ ${spec.min}` : `${spec.min}-${spec.max}`;
    command.option(
      `--${kebabCase(name)} <number>`,
      `${spec.description} (${range}, default ${spec.default})`,
    );
  }
  for (const name of ['systemMode', 'agentProfile'] as const) {
    const spec = ENUM_PARAMETERS[name];
    command.option(
      `--${kebabCase(name)} <${spec.values.join('|')}>`,
      `${spec.description} (default ${spec.default})`,
    );
  }
  command
    .option('--json', 'print exactly the HTTP 200 body of /api/v1/pressure')
    .option('-i, --interactive', 'ask for each input in turn, showing its default')
    .addHelpText(
      'after',
      `
Levels: LOW (viability ≥ 75), MODERATE (≥ 50), HIGH (≥ 25), CRITICAL (< 25).
Suggested actions: continue | optimize | compress | terminate (the action does not change the exit code).
Exit codes: ${EXIT_CODES.ok} evaluated, ${EXIT_CODES.invalidInput} bad flags.

Example:
  barometer pressure --memory-used-percent 72 --token-burn-rate-per-min 55 --context-drift-percent 68 \\
    --token-budget-used 62000 --json`,
    )
    .action(async (flags: Record<string, string | boolean | undefined>) => {
      const { json, interactive, ...values } = flags;
      const given = Object.fromEntries(
        Object.entries(values).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      );
      let input: ReturnType<typeof parsePressureInput>;
      if (interactive) {
        input = { ok: true, value: await askPressureInputs(io, given) };
      } else {
        input = parsePressureInput(given, 'text');
      }
      if (!input.ok) throw new UsageError(`invalid parameters:\n${issuesText(input.issues)}`);
      const report = evaluateResolved(input.value, { now: now() });
      io.stdout.write(
        json ? `${JSON.stringify(report, null, 2)}\n` : formatPressureReport(report, painter(io)),
      );
    });
}
