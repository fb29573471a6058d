/**
 * The README's shell blocks, read as a new user reads them: each ```sh block with the directive of the HTML comment
 * just above it, if any (`<!-- readme-test: service -->`, `<!-- readme-test: ci -->`,
 * `<!-- readme-test: background "text" -->`).
 */

/** One command of a block and what the README says it prints (empty when it shows nothing). */
export interface ReadmeCommand {
  readonly command: string;
  readonly expected: readonly string[];
}

export type ReadmeDirective =
  | { readonly kind: 'run' }
  | { readonly kind: 'service' }
  | { readonly kind: 'ci' }
  | { readonly kind: 'background'; readonly readyText: string };

export interface ReadmeBlock {
  /** 1-based line of the opening fence, for messages. */
  readonly line: number;
  readonly directive: ReadmeDirective;
  readonly commands: readonly ReadmeCommand[];
}

const DIRECTIVE = /^<!--\s*readme-test:\s*(service|ci|background\s+"([^"]+)")\s*-->$/;

function directiveOf(line: string | undefined, at: number): ReadmeDirective {
  if (line === undefined || !line.startsWith('<!--')) return { kind: 'run' };
  const match = DIRECTIVE.exec(line.trim());
  if (!match) throw new Error(`README line ${at}: unknown readme-test directive ${line.trim()}`);
  if (match[1] === 'service') return { kind: 'service' };
  if (match[1] === 'ci') return { kind: 'ci' };
  return { kind: 'background', readyText: match[2] ?? '' };
}

/**
 * A block whose lines start with `$ ` is a terminal session: each `$ ` line a command, the lines after it what it
 * prints. A block without any is a script: every non-empty line a command, nothing expected.
 */
function commandsOf(body: readonly string[]): ReadmeCommand[] {
  if (!body.some((line) => line.startsWith('$ '))) {
    return body.filter((line) => line.trim() !== '').map((command) => ({ command, expected: [] }));
  }
  const commands: { command: string; expected: string[] }[] = [];
  for (const line of body) {
    if (line.startsWith('$ ')) commands.push({ command: line.slice(2), expected: [] });
    else if (commands.length > 0) commands[commands.length - 1]?.expected.push(line);
  }
  return commands;
}

export function readmeBlocks(markdown: string): ReadmeBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    if (lines[index]?.trim() !== '```sh') continue;
    const start = index;
    const body: string[] = [];
    for (index += 1; index < lines.length && lines[index]?.trim() !== '```'; index += 1)
      body.push(lines[index] ?? '');
    if (body.some((line) => line.trimEnd().endsWith('\\'))) {
      throw new Error(
        `README line ${start + 1}: a command continued with \\ cannot be checked; keep it on one line`,
      );
    }
    let previous = start - 1;
    while (previous >= 0 && lines[previous]?.trim() === '') previous -= 1;
    blocks.push({
      line: start + 1,
      directive: directiveOf(lines[previous], previous + 1),
      commands: commandsOf(body),
    });
  }
  return blocks;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whether `output` shows every expected line in order: a line `…` alone stands for any lines, a `…` inside a line
 * for any text; other lines must be found whole (trailing spaces aside), in order, with anything between them only
 * where the README says `…`. Returns the first expected line not found, or null.
 */
export function firstMissingLine(output: string, expected: readonly string[]): string | null {
  const actual = output.split('\n').map((line) => line.trimEnd());
  let position = 0;
  let gapAllowed = false;
  for (const raw of expected) {
    const line = raw.trimEnd();
    if (line === '…') {
      gapAllowed = true;
      continue;
    }
    if (line === '') continue;
    const pattern = new RegExp(`^${line.split('…').map(escapeRegExp).join('.*')}$`);
    let found = -1;
    for (let at = position; at < actual.length; at += 1) {
      if (pattern.test(actual[at] ?? '')) {
        found = at;
        break;
      }
      if (!gapAllowed && (actual[at] ?? '') !== '') break;
    }
    if (found < 0) return line;
    position = found + 1;
    gapAllowed = false;
  }
  return null;
}
