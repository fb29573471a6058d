/** The agents `barometer wrap` runs. */
export type WrappedAgent = 'claude' | 'codex';

/**
 * The command line that points an agent at the barometer service at `url`, the user's own arguments after it. With
 * `observe`, the agent is pointed at `<url>/observe`, whose requests the service forwards untouched (only measured),
 * whatever the service does for others.
 */
export function agentCommand(
  agent: WrappedAgent,
  url: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  options: { observe?: boolean } = {},
): { command: string; args: string[]; env: Record<string, string> } {
  const base = options.observe ? `${url}/observe` : url;
  if (agent === 'claude') return { command: 'claude', args: [...args], env: { ANTHROPIC_BASE_URL: base } };
  // Codex ignores OPENAI_BASE_URL: a model-provider override names the proxy; the user's model stays theirs. An
  // API key in OPENAI_API_KEY is sent as it is; otherwise Codex's own login is used (requires_openai_auth): an API
  // key it keeps, or a ChatGPT login, whose requests the proxy sends to the ChatGPT backend.
  const auth = env.OPENAI_API_KEY ? 'env_key="OPENAI_API_KEY"' : 'requires_openai_auth=true';
  const provider = `model_providers.barometer={name="barometer",base_url="${base}/v1",${auth},wire_api="responses",supports_websockets=false}`;
  return { command: 'codex', args: ['-c', 'model_provider=barometer', '-c', provider, ...args], env: {} };
}
