const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpace(bytes: Buffer, at: number): number {
  let index = at;
  while (isSpace(bytes[index])) index++;
  return index;
}

/** The index just past the string that opens at `at` (a quote); -1 when it never closes. */
function stringEnd(bytes: Buffer, at: number): number {
  let index = at + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, index);
    if (quote === -1) return -1;
    let backslashes = 0;
    for (let back = quote - 1; bytes[back] === BACKSLASH; back--) backslashes++;
    // An even run of backslashes escapes itself: the quote closes the string.
    if (backslashes % 2 === 0) return quote + 1;
    index = quote + 1;
  }
}

/** The index just past the JSON value that starts at `at`; -1 when it is cut. */
function valueEnd(bytes: Buffer, at: number): number {
  const first = bytes[at];
  if (first === QUOTE) return stringEnd(bytes, at);
  if (first !== 0x7b && first !== 0x5b) {
    let index = at;
    while (index < bytes.length && bytes[index] !== 0x2c && bytes[index] !== 0x7d && bytes[index] !== 0x5d)
      index++;
    return index;
  }
  let depth = 0;
  let index = at;
  while (index < bytes.length) {
    const byte = bytes[index];
    if (byte === QUOTE) {
      index = stringEnd(bytes, index);
      if (index === -1) return -1;
      continue;
    }
    if (byte === 0x7b || byte === 0x5b) depth++;
    else if (byte === 0x7d || byte === 0x5d) {
      depth--;
      if (depth === 0) return index + 1;
    }
    index++;
  }
  return -1;
}

/** Where the member `key` of the JSON object opening at `at` has its value: [start, end); undefined when absent. */
function memberValue(bytes: Buffer, at: number, key: string): [number, number] | undefined {
  let index = skipSpace(bytes, at);
  if (bytes[index] !== 0x7b) return undefined;
  index = skipSpace(bytes, index + 1);
  while (bytes[index] === QUOTE) {
    const keyEnd = stringEnd(bytes, index);
    if (keyEnd === -1) return undefined;
    const name: unknown = JSON.parse(bytes.toString('utf8', index, keyEnd));
    index = skipSpace(bytes, keyEnd);
    if (bytes[index] !== 0x3a) return undefined;
    const start = skipSpace(bytes, index + 1);
    const end = valueEnd(bytes, start);
    if (end === -1) return undefined;
    if (name === key) return [start, end];
    index = skipSpace(bytes, end);
    if (bytes[index] !== 0x2c) return undefined;
    index = skipSpace(bytes, index + 1);
  }
  return undefined;
}

/** A request's budgeted thinking (`thinking: { type: "enabled", budget_tokens }`) and where its figure is. */
export interface ThinkingBudgetBytes {
  budgetTokens: number;
  /** The figure's bytes in the body: [start, end). */
  start: number;
  end: number;
}

/**
 * The top-level `thinking.budget_tokens` of a Messages request's bytes, found without parsing the body (only the
 * `thinking` member is read); undefined when the request has no `thinking` of type `enabled` with an integer budget
 * (no thinking, `disabled`, `adaptive`), or the body is not a JSON object.
 */
export function thinkingBudgetBytes(bytes: Buffer): ThinkingBudgetBytes | undefined {
  try {
    const thinking = memberValue(bytes, 0, 'thinking');
    if (!thinking) return undefined;
    const value: unknown = JSON.parse(bytes.toString('utf8', thinking[0], thinking[1]));
    if (typeof value !== 'object' || value === null || (value as { type?: unknown }).type !== 'enabled')
      return undefined;
    const budget = memberValue(bytes, thinking[0], 'budget_tokens');
    if (!budget) return undefined;
    const figure = Number(bytes.toString('utf8', budget[0], budget[1]).trim());
    if (!Number.isInteger(figure)) return undefined;
    let end = budget[1];
    while (isSpace(bytes[end - 1])) end--;
    return { budgetTokens: figure, start: budget[0], end };
  } catch {
    return undefined;
  }
}

/** The body with its thinking budget's figure replaced; every other byte as it was. */
export function withThinkingBudget(bytes: Buffer, found: ThinkingBudgetBytes, budgetTokens: number): Buffer {
  return Buffer.concat([
    bytes.subarray(0, found.start),
    Buffer.from(String(budgetTokens), 'utf8'),
    bytes.subarray(found.end),
  ]);
}
