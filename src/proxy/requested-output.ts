type Json = Record<string, unknown>;

/**
 * The most output tokens a request asks for: Anthropic's `max_tokens`, Chat Completions' `max_completion_tokens` (or
 * its older `max_tokens`), Responses' `max_output_tokens`. The agent knows its model: what it asks for is within the
 * model's max output, a floor of it.
 */
export function requestedOutput(body: Json): number | undefined {
  for (const key of ['max_tokens', 'max_completion_tokens', 'max_output_tokens']) {
    const value = body[key];
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value;
  }
  return undefined;
}

/** The session options a request reports of its model: its max output, when it asks for one. */
export function reportedBy(body: Json | undefined): { agentReported?: { maxOutput: number } } {
  const maxOutput = body && requestedOutput(body);
  return maxOutput === undefined ? {} : { agentReported: { maxOutput } };
}
