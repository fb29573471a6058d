import type { SessionContext } from '../session/describe-session.js';
import { isObject } from '../usage/json-object.js';
import { requestExcerpt } from '../usage/session-title.js';
import type { WireFormat } from './session-key.js';

type Json = Record<string, unknown>;

/**
 * Where the agent says it works (docs/rules.md, "Session titles"): Claude Code's environment section
 * (` - Primary working directory: <path>`, 2.1.328; `Working directory: <path>` in the `<env>` block of earlier
 * versions), Codex's `<environment_context>` (`<cwd><path></cwd>`).
 */
const WORKING_DIRECTORY = [
  /^[ \t]*-?[ \t]*Primary working directory:[ \t]*(\S[^\n]*?)[ \t]*$/m,
  /<env>[\s\S]*?^[ \t]*Working directory:[ \t]*(\S[^\n]*?)[ \t]*$/m,
  /<environment_context>[\s\S]*?<cwd>([^<]+)<\/cwd>/,
];

/** The text blocks of a message's content (a string, or blocks of `text` / `input_text`). */
function texts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((block) =>
    isObject(block) &&
    typeof block.text === 'string' &&
    (block.type === 'text' || block.type === 'input_text')
      ? [block.text]
      : [],
  );
}

/** The request's conversation: Anthropic and Chat `messages`, Responses `input` (a string is one user turn). */
function turnsOf(format: WireFormat, body: Json): Array<{ role: string; texts: string[] }> {
  const list =
    format === 'openai-responses'
      ? typeof body.input === 'string'
        ? [{ role: 'user', content: body.input }]
        : body.input
      : body.messages;
  if (!Array.isArray(list)) return [];
  return list.flatMap((item) =>
    isObject(item) && typeof item.role === 'string' ? [{ role: item.role, texts: texts(item.content) }] : [],
  );
}

/** Every text the agent gave as instructions: Anthropic `system`, Responses `instructions`, and each turn. */
function instructionTexts(body: Json, turns: ReadonlyArray<{ texts: string[] }>): string[] {
  const system = texts(body.system);
  if (typeof body.instructions === 'string') system.push(body.instructions);
  return [...system, ...turns.flatMap((turn) => turn.texts)];
}

function workingDirectoryOf(candidates: readonly string[]): string | undefined {
  for (const text of candidates) {
    for (const pattern of WORKING_DIRECTORY) {
      const found = pattern.exec(text)?.[1]?.trim();
      if (found) return found.slice(0, 4096);
    }
  }
  return undefined;
}

/**
 * What a request says about its session: the folder the agent works in and an excerpt of the first thing the user
 * asked (the first user turn's own text, without the blocks the agent adds). Only a request that offers tools is
 * read: an agent's conversation does, while its side requests (a title, a quota probe) carry none and would name
 * the session after themselves. Pure.
 */
export function requestContext(format: WireFormat, body: Json): SessionContext {
  if (!Array.isArray(body.tools) || body.tools.length === 0) return {};
  const turns = turnsOf(format, body);
  const context: SessionContext = {};
  const workingDirectory = workingDirectoryOf(instructionTexts(body, turns));
  if (workingDirectory) context.workingDirectory = workingDirectory;
  for (const turn of turns) {
    if (turn.role !== 'user') continue;
    const title = turn.texts.map((text) => requestExcerpt(text)).find((text) => text !== undefined);
    if (title) {
      context.title = title;
      break;
    }
  }
  return context;
}
