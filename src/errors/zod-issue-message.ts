import type { z } from 'zod';

/** What zod hands an error map: the issue before it has a message, with the input at fault. */
type RawIssue = Parameters<z.core.$ZodErrorMap>[0];

/** What zod's `expected` of an invalid type reads as in a sentence: "must be a whole number". */
const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  map: 'an object',
  array: 'an array',
  tuple: 'an array',
  set: 'an array',
  date: 'a date',
  null: 'null',
  nan: 'NaN',
  symbol: 'a symbol',
  function: 'a function',
  file: 'a file',
};

/** String formats as a user knows them. */
const FORMATS: Readonly<Record<string, string>> = {
  email: 'an email address',
  url: 'a URL',
  uuid: 'a UUID',
  datetime: 'an ISO 8601 date and time, such as 2026-11-22T10:00:00Z',
  date: 'a date as YYYY-MM-DD',
  time: 'a time as HH:MM:SS',
  duration: 'an ISO 8601 duration, such as PT30S',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  base64: 'base64 text',
  base64url: 'base64url text',
  json_string: 'a JSON string',
};

/** The unit of a size, by what is measured. */
const UNITS: Readonly<Record<string, string>> = {
  string: 'characters',
  array: 'items',
  set: 'items',
  map: 'entries',
  file: 'bytes',
};

function listed(values: readonly unknown[]): string {
  return values.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(', ');
}

function expected(name: string): string {
  return EXPECTED[name] ?? name;
}

/** `a, b or c`. */
function alternatives(parts: readonly string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`;
}

function sizeText(
  origin: string,
  bound: number | bigint,
  relation: 'least' | 'most' | 'exactly',
  inclusive: boolean,
): string {
  const unit = UNITS[origin];
  if (unit) {
    if (relation === 'least' && bound === 1 && origin === 'string') return 'must not be empty';
    if (relation === 'least' && bound === 1) return `must hold at least 1 ${unit.replace(/s$/, '')}`;
    const verb = origin === 'string' ? 'have' : 'hold';
    return `must ${verb} ${relation === 'exactly' ? 'exactly' : `at ${relation}`} ${bound} ${unit}`;
  }
  if (relation === 'exactly') return `must be exactly ${bound}`;
  if (relation === 'least') return inclusive ? `must be at least ${bound}` : `must be greater than ${bound}`;
  return inclusive ? `must be at most ${bound}` : `must be less than ${bound}`;
}

/** A union none of whose options took the value: the types it takes when that is all they differ by. */
function unionText(issue: RawIssue & { code: 'invalid_union' }): string {
  // A discriminated union names the values its discriminator takes.
  const options = (issue as { options?: readonly unknown[] }).options;
  if (options && options.length > 0) return `must be one of ${listed(options)}`;
  if (issue.inclusive === false) return 'matches more than one of the accepted forms';
  const branches = issue.errors;
  const types = branches.map((branch) =>
    branch.length === 1 && branch[0]!.code === 'invalid_type' && branch[0]!.path.length === 0
      ? expected(branch[0]!.expected)
      : undefined,
  );
  if (types.length > 0 && types.every((type) => type !== undefined))
    return `must be ${alternatives([...new Set(types as string[])])}`;
  // The option the value came closest to (fewest issues) says what is wrong with it.
  const closest = [...branches].sort((left, right) => left.length - right.length)[0];
  const first = closest?.[0];
  if (!first) return 'matches none of the accepted forms';
  const where = first.path.length > 0 ? `${first.path.map(String).join('.')}: ` : '';
  return `matches none of the accepted forms (closest: ${where}${first.message})`;
}

/**
 * barometer's wording for a zod issue, as a zod error map: what the field must be, never zod's own sentence
 * ("Invalid input: expected number, received NaN"). The caller names the field and the value given; this says
 * what is allowed. A message a schema sets itself (`.regex(pattern, 'must be …')`, a refinement's) wins over this
 * map, as zod gives schema-level messages precedence over a per-parse map. It is passed to each parse, never set
 * with `z.config()`: barometer is a library, and zod's global configuration belongs to the application using it.
 *
 * @example schema.safeParse(input, { error: zodIssueMessage })
 */
export function zodIssueMessage(issue: RawIssue): string {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.expected === 'never') return 'is not allowed here';
      if (issue.input === undefined) return `is required (${expected(issue.expected)})`;
      return `must be ${expected(issue.expected)}`;
    }
    case 'too_small':
      return sizeText(
        issue.origin,
        issue.minimum,
        issue.exact ? 'exactly' : 'least',
        issue.inclusive !== false,
      );
    case 'too_big':
      return sizeText(
        issue.origin,
        issue.maximum,
        issue.exact ? 'exactly' : 'most',
        issue.inclusive !== false,
      );
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${listed(issue.values)}`
        : `must be one of ${listed(issue.values)}`;
    case 'invalid_format': {
      const format = issue as RawIssue & {
        format: string;
        pattern?: string;
        prefix?: string;
        suffix?: string;
        includes?: string;
      };
      if (format.format === 'starts_with') return `must start with ${JSON.stringify(format.prefix)}`;
      if (format.format === 'ends_with') return `must end with ${JSON.stringify(format.suffix)}`;
      if (format.format === 'includes') return `must contain ${JSON.stringify(format.includes)}`;
      if (format.format === 'regex') return `must match the pattern ${format.pattern}`;
      return `must be ${FORMATS[format.format] ?? `a valid ${format.format}`}`;
    }
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `unknown parameter${issue.keys.length === 1 ? '' : 's'}: ${issue.keys.join(', ')}`;
    case 'invalid_key':
      return `holds a key that is not allowed${issue.issues[0] ? ` (the key ${issue.issues[0].message})` : ''}`;
    case 'invalid_element':
      return `holds a value that is not allowed${issue.issues[0] ? ` (${issue.issues[0].message})` : ''}`;
    case 'invalid_union':
      return unionText(issue);
    default:
      return 'is not valid';
  }
}
