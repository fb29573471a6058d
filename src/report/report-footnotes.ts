import type { ReportRow } from './aggregate-report.js';

/**
 * Why ccusage (the tool most users check their spending with) shows other figures for the same Claude Code logs,
 * rule by rule, as measured on the recorded sessions (docs/rules.md, "barometer report against ccusage").
 */
export const CLAUDE_CODE_FOOTNOTES = [
  'Streamed lines: Claude Code logs one API message over several lines that share its message id, and output_tokens grows across them. barometer counts each message once with its last line (the final usage); ccusage keeps the first line of each message id + request id, so it counts fewer output tokens and a lower cost (the whole difference on the recorded sessions).',
  'Sub-agents: calls a sub-agent logged inside the main transcript (isSidechain lines) count in the main session, as in ccusage. Sub-agent transcripts of their own (<session>/subagents/*.jsonl) are sessions here, as in ccusage.',
  "Sessions: a session here is one transcript file; ccusage's session view groups by the file's folder (one row per project folder).",
  "Prices: the models.dev snapshot barometer ships (ccusage: LiteLLM's table); both give the same prices for the Claude models of the recorded sessions. A 1-hour cache write costs 2 × input (Anthropic) here; ccusage prices every cache write at the 5-minute rate, so it counts less where a log holds 1-hour writes.",
] as const;

/** 1234567 → "1,234,567", without `toLocaleString` (whose ICU number data costs the lean entry start-up time). */
const grouped = (value: number) => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * The footnotes of a report: the rules behind its figures where ccusage's would differ, and what is left out. The
 * streamed-lines note says how much it accounts for in this report (each row's share is in `--json`).
 */
export function reportFootnotes(total: ReportRow): string[] {
  const notes: string[] = [];
  if (total.agents.includes('claude-code')) {
    const [streamed, ...others] = CLAUDE_CODE_FOOTNOTES;
    notes.push(
      `${streamed} In this report: ${grouped(total.streamedOutputTokens)} output tokens after a message's first line, $${total.streamedCostUsd.toFixed(4)} of the cost, that ccusage leaves out (each row's: streamedOutputTokens, streamedCostUsd in --json).`,
      ...others,
    );
  }
  if (total.estimatedCostUsd > 0)
    notes.push(
      `~ $${total.estimatedCostUsd.toFixed(4)} of the cost is at estimated prices: calls of models the registry does not list, priced as the newest known model of their family (\`barometer models <model>\` says which; a price in barometer.config.json replaces the estimate).`,
    );
  if (total.unpricedCalls > 0)
    notes.push(
      `* ${total.unpricedCalls} calls have no known price (their model is not priced): they are not in the cost.`,
    );
  return notes;
}
