/**
 * A provider's answer to subscription traffic as Anthropic gives it: a Messages reply whose headers carry the unified
 * rate-limit figures (their names as Claude Code reads them: docs/rules.md "Subscription windows"), for a
 * `startCassetteServer` on 127.0.0.1.
 */
export function unifiedAnswer(
  served: number,
  figures: {
    /** The 5-hour utilization, a fraction (`anthropic-ratelimit-unified-5h-utilization`). */
    fiveHour: number;
    /** When the 5-hour window resets, epoch ms. */
    fiveHourReset: number;
    /** The weekly window's utilization and reset, when the answer reports it. */
    sevenDay?: { utilization: number; reset: number };
    inputTokens: number;
    outputTokens: number;
  },
): { headers: Record<string, string>; body: string } {
  const { fiveHour, fiveHourReset, sevenDay } = figures;
  return {
    headers: {
      'content-type': 'application/json',
      'anthropic-ratelimit-unified-status': 'allowed',
      'anthropic-ratelimit-unified-5h-status': 'allowed',
      'anthropic-ratelimit-unified-5h-utilization': String(fiveHour),
      'anthropic-ratelimit-unified-5h-reset': String(fiveHourReset / 1000),
      ...(sevenDay
        ? {
            'anthropic-ratelimit-unified-7d-status': 'allowed',
            'anthropic-ratelimit-unified-7d-utilization': String(sevenDay.utilization),
            'anthropic-ratelimit-unified-7d-reset': String(sevenDay.reset / 1000),
            'anthropic-ratelimit-unified-representative-claim': 'five_hour',
            'anthropic-ratelimit-unified-reset': String(fiveHourReset / 1000),
          }
        : {}),
    },
    body: JSON.stringify({
      id: `msg_${served}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'ok' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: figures.inputTokens, output_tokens: figures.outputTokens },
    }),
  };
}
