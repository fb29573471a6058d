import type { z } from 'zod';
import { parseWith } from '../errors/validation.js';
import { UsageError } from './io.js';
import { kebabCase } from './kebab.js';

/** A flag's text as a number when it reads as one, else the text itself, so that the schema names the value given. */
export function numberOf(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  return /^-?\d+(\.\d+)?(e\d+)?$/i.test(text.trim()) ? Number(text) : text;
}

export interface FlagOptions {
  /** Fields whose flag text is a number (`--keep-turns 3`): read as one when it is, so the schema checks it. */
  numbers?: readonly string[];
  /** How the command spells a field where that is not `--<kebab-case field>` (`--min-gain`, `<session>`). */
  names?: Readonly<Record<string, string>>;
}

/**
 * Checks a command's flags (their text, as typed) with the request schema of the HTTP operation the command maps
 * to (one schema per concept, decision 022): the same rule and the same words as the API's 400. A bad flag is a
 * UsageError (exit 2) with one line per issue, naming the flag and the text given:
 * `--keep-turns must be a whole number of turns from 0 to 10000; got "two"`.
 */
export function parseFlags<T>(
  schema: z.ZodType<T>,
  texts: Readonly<Record<string, string | undefined>>,
  options: FlagOptions = {},
): T {
  const numbers = new Set(options.numbers ?? []);
  const given: Record<string, unknown> = {};
  for (const [field, text] of Object.entries(texts)) {
    if (text !== undefined) given[field] = numbers.has(field) ? numberOf(text) : text;
  }
  const parsed = parseWith(schema, given);
  if (parsed.ok) return parsed.value;
  throw new UsageError(
    parsed.issues
      .map((issue) => {
        const name = options.names?.[issue.field] ?? `--${kebabCase(issue.field)}`;
        return `${name} ${issue.message}; got ${JSON.stringify(texts[issue.field] ?? issue.value)}`;
      })
      .join('\n'),
  );
}
