/**
 * How a session is named for people: its project (the last segments of the folder the agent works in) and its
 * first request (a short excerpt of what the user asked). Pure text rules, used by every surface that captures
 * them (the proxy, `watch`, `replay`, hooks) so that a session reads the same whichever saw it first.
 */

/** The longest title kept: about one line of the sessions list. @default 120 */
export const TITLE_MAX_CHARS = 120;

/** How many trailing folders name a project: `work/barometer` rather than `/home/me/work/barometer`. */
export const PROJECT_SEGMENTS = 2;

/**
 * The project of a working directory: its last {@link PROJECT_SEGMENTS} segments, `/` or `\` separated, trailing
 * separators ignored; undefined for an empty path.
 * @example
 * projectOf('/home/me/work/barometer/'); // 'work/barometer'
 * projectOf('C:\\Users\\me\\app'); // 'me/app'
 */
export function projectOf(workingDirectory: string, segments = PROJECT_SEGMENTS): string | undefined {
  const parts = workingDirectory.split(/[\\/]+/).filter((part) => part !== '' && !/^[A-Za-z]:$/.test(part));
  if (parts.length === 0) return workingDirectory.trim() === '' ? undefined : workingDirectory.trim();
  return parts.slice(-segments).join('/');
}

/**
 * Blocks an agent puts into a user turn that the user did not type: Claude Code's `<system-reminder>`, Codex's
 * `<environment_context>`, `<user_instructions>` and `<skill …>` (docs/rules.md, "Session titles").
 */
const AGENT_BLOCKS =
  /<(system-reminder|environment_context|user_instructions|user_shell_command|skill|INSTRUCTIONS|local-command-stdout|local-command-stderr|local-command-caveat)\b[^>]*>[\s\S]*?<\/\1>/g;
/** Claude Code's slash command markup: `<command-name>/review</command-name><command-args>12</command-args>`. */
const COMMAND_TAGS = /<\/?command-(name|message|args)>/g;
/** Codex's AGENTS.md turn: `# AGENTS.md instructions for <folder>` (codex-rs user_instructions.rs). */
const AGENTS_MD_PREFIX = '# AGENTS.md instructions for ';

/**
 * What the user asked in one user turn's text, without the blocks the agent added, on one line; undefined when
 * nothing of the user's is left (a turn of context only).
 */
export function userRequestText(text: string): string | undefined {
  if (text.trimStart().startsWith(AGENTS_MD_PREFIX)) return undefined;
  const own = text.replace(AGENT_BLOCKS, ' ');
  const command = /<command-name>([^<]*)<\/command-name>/.exec(own);
  const args = /<command-args>([^<]*)<\/command-args>/.exec(own);
  const cleaned = command ? `${command[1] ?? ''} ${args?.[1] ?? ''}` : own.replace(COMMAND_TAGS, ' ');
  const line = cleaned.replace(/\s+/g, ' ').trim();
  return line === '' ? undefined : line;
}

/**
 * A short excerpt of a request for a title: {@link userRequestText}, cut at a word boundary to at most `max`
 * characters with `…`; undefined when the text holds no request of the user's.
 * @example
 * requestExcerpt('<system-reminder>…</system-reminder>Fix the login test'); // 'Fix the login test'
 */
export function requestExcerpt(text: string, max = TITLE_MAX_CHARS): string | undefined {
  const line = userRequestText(text);
  if (line === undefined) return undefined;
  const chars = [...line];
  if (chars.length <= max) return line;
  const cut = chars.slice(0, max - 1).join('');
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
