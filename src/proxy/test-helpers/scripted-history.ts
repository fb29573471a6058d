type Json = Record<string, unknown>;

/**
 * A Claude Code-like Messages request: `reads` tool calls, each a Read of a 16 KB file, except a `git commit` (a
 * sub-task boundary) at each index of `commitsAt`. The eviction policy evicts the reads before a commit once the
 * commit's result is in the history.
 */
export function scriptedHistory(reads: number, commitsAt: readonly number[] = [3]): Json {
  const messages: Json[] = [{ role: 'user', content: 'Read the files; commit after the third.' }];
  for (let index = 0; index < reads; index++) {
    const commit = commitsAt.includes(index);
    const id = `toolu_${index}`;
    messages.push({
      role: 'assistant',
      content: [
        commit
          ? { type: 'tool_use', id, name: 'Bash', input: { command: `git commit -qm "part ${index}"` } }
          : { type: 'tool_use', id, name: 'Read', input: { file_path: `/work/file-${index}.ts` } },
      ],
    });
    const text = commit
      ? `[main 1a2b3c${index}] part ${index}`
      : Array.from({ length: 400 }, (_, line) => `file ${index} line ${line}: ${(line * 7919) % 1000};`).join(
          '\n',
        );
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] });
  }
  return { model: 'claude-sonnet-4-5', max_tokens: 1024, messages };
}

/** The tombstoned tool results of a request as the provider received it, by call id. */
export function tombstones(body: Json | undefined): Map<string, string> {
  const found = new Map<string, string>();
  for (const message of (body?.messages ?? []) as { content: unknown }[]) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Json[])
      if (
        block.type === 'tool_result' &&
        typeof block.content === 'string' &&
        block.content.startsWith('[barometer evicted')
      )
        found.set(block.tool_use_id as string, block.content);
  }
  return found;
}

/**
 * The same session as {@link scriptedHistory} as Codex sends it, a Responses request: `exec_command` calls (a `cat` of
 * a 16 KB file, or a `git commit` at each index of `commitsAt`) and their outputs.
 */
export function scriptedResponses(reads: number, commitsAt: readonly number[] = [3]): Json {
  const input: Json[] = [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Read the files; commit.' }] },
  ];
  for (let index = 0; index < reads; index++) {
    const commit = commitsAt.includes(index);
    const callId = `call_${index}`;
    const cmd = commit ? `git commit -qm "part ${index}"` : `cat /work/file-${index}.ts`;
    input.push({
      type: 'function_call',
      call_id: callId,
      name: 'exec_command',
      arguments: JSON.stringify({ cmd }),
    });
    const output = commit
      ? `[main 1a2b3c${index}] part ${index}`
      : Array.from({ length: 400 }, (_, line) => `file ${index} line ${line}: ${(line * 7919) % 1000};`).join(
          '\n',
        );
    input.push({ type: 'function_call_output', call_id: callId, output });
  }
  return { model: 'gpt-5.3-codex', input, stream: false, store: false };
}
