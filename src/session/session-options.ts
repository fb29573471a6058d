import * as z from 'zod';
import { TriggerConfigSchema } from '../compaction/evaluate-triggers.js';
import { IdSchema } from '../ids/id-schema.js';
import { AgentNameSchema, AgentReportedSchema } from '../models/model-profile.js';

const tokens = z.number().int().min(1);

/** KV cache settings of a local model (seed 001): the context size in cells and the limits. */
export const SessionKvSchema = z.strictObject({
  nCtx: z.number().int(),
  softLimit: z.number().int().min(0).optional(),
  hardLimit: z.number().int().min(0).optional(),
  nBatch: z.number().int().min(1).optional(),
});

/**
 * The provider's per-minute quotas for this account and model, as the provider states them. Each usage record
 * is counted the way its provider counts it (docs/rules.md, Quotas).
 */
export const RateLimitsSchema = z.strictObject({
  requestsPerMinute: tokens.optional(),
  /** Anthropic ITPM: uncached input + cache writes (cache reads do not count on current models). */
  inputTokensPerMinute: tokens.optional(),
  /** Anthropic OTPM. */
  outputTokensPerMinute: tokens.optional(),
  /** A combined limit: OpenAI TPM (input + output), Gemini TPM (input). `tpmLimit` is its alias. */
  tokensPerMinute: tokens.optional(),
});
export type RateLimits = z.infer<typeof RateLimitsSchema>;

/** Default sliding window of the burn rate: five minutes. */
export const DEFAULT_BURN_WINDOW_SECONDS = 300;

/**
 * How a session is created: a model (looked up in the registry, with the agent's effective window) and
 * the optional limits the caller knows. Strict: unknown keys are rejected.
 */
export const SessionOptionsSchema = z.strictObject({
  id: IdSchema.optional(),
  model: z.string().min(1, 'must name a model').max(200),
  agent: AgentNameSchema.optional(),
  /** The window to measure against, overriding the registry and the agent rule. */
  contextWindow: tokens.optional(),
  /**
   * What the agent reports of the model it runs: its stated window (`contextWindow`: Claude Code's status line
   * `context_window_size`), the window it measures against (`effectiveWindow`: Codex's `model_context_window`) and a
   * request's `max_tokens` (`maxOutput`, a floor of the model's max output). They win over the registry and a family
   * estimate (source `agent-reported`) and lose to the config file and `contextWindow`.
   */
  agentReported: AgentReportedSchema.optional(),
  optimalMaxTokens: tokens.optional(),
  criticalMaxTokens: tokens.optional(),
  /** Total tokens this session may spend; exhausting it terminates. */
  tokenBudget: tokens.optional(),
  /** The provider's tokens-per-minute quota (alias of `rateLimits.tokensPerMinute`): scales the burn rate. */
  tpmLimit: tokens.optional(),
  rateLimits: RateLimitsSchema.optional(),
  /**
   * The longest wait, in seconds, worth advising when only a per-minute quota presses: up to it the verdict is
   * `wait` (the bucket refills, the prompt cache stays warm); beyond it, or when waiting cannot help, survival
   * compresses. 0 never waits. @default 60
   */
  maxWaitSeconds: z.number().min(0).max(3600).optional(),
  kv: SessionKvSchema.optional(),
  triggers: TriggerConfigSchema.omit({ tpmLimit: true }).optional(),
  /** @default 300 */
  burnWindowSeconds: z.number().int().min(1).max(86_400).optional(),
  /** Generations between repeated caution reminders. @default 10 */
  cautionCadence: z.number().min(0).optional(),
  /**
   * A shared pool (`/api/v1/pools`) this session's agent draws on: the pool's pressure becomes one of the models
   * of its verdict, so that at a high pool a low-priority agent is told to defer while an urgent one continues.
   */
  poolId: IdSchema.optional(),
  /** The agent's priority in its pool (seed 000: urgent > high > normal > low). @default 'normal' */
  poolPriority: z.enum(['low', 'normal', 'high', 'urgent']).optional(),
  /**
   * The folder the agent works in (a hook payload's `cwd`, a log's working directory): an MCP client in the same
   * folder that names no session is answered for this one.
   */
  workingDirectory: z.string().min(1).max(4096).optional(),
  /**
   * The agent's process id, as its hook saw it (the hook's parent process): an MCP server the same agent started
   * (its own parent process) that names no session is answered for this one, before any session of its folder.
   */
  agentProcessId: z.number().int().min(1).max(4_294_967_295).optional(),
  /**
   * The session this one is a sub-agent of (a Claude Code Task sub-agent's chain, a `subagents/` transcript): lists
   * and the dashboard nest it under its parent, `barometer watch` prints it indented.
   */
  parentId: IdSchema.optional(),
  /**
   * What the session is about, for people: an excerpt of the user's first request (`requestExcerpt`). Set at
   * creation, or once afterwards by `SessionMonitor.describe` (the first request a surface sees); never replaced.
   */
  title: z.string().min(1).max(200).optional(),
  /** The project's name; without it, the last segments of `workingDirectory` (`projectOf`). */
  project: z.string().min(1).max(200).optional(),
});

export type SessionOptions = z.input<typeof SessionOptionsSchema>;

/** One usage update: what a generation used, when, and what the caller knows besides. */
export interface UsageUpdate {
  usage: import('../usage/usage-record.js').UsageRecord;
  /** When the generation happened (epoch ms or ISO); the usage record's own timestamp or the clock otherwise. */
  timestamp?: number | string;
  /** Drift as the caller measures it (0-100); absent means not measured. */
  driftPercent?: number;
  /** True when the agent completed a task with this generation (semantic trigger). */
  taskCompleted?: boolean;
  /**
   * The provider response's headers (or just its rate-limit ones): `anthropic-ratelimit-*`, `x-ratelimit-*`,
   * `retry-after`. When present, the quotas they report replace the session's estimate for this update.
   */
  headers?: import('../usage/rate-limit-headers.js').HeaderBag;
  /**
   * Subscription windows seen with this generation by another surface than its headers: Claude Code's status line
   * (`rate_limits`), a Codex rollout's `token_count` (`rate_limits.primary/secondary`).
   */
  windows?: readonly import('../quota/windows/usage-window.js').UsageWindow[];
  /**
   * The KV cells a local engine's cache holds after this generation, as the engine counts them: with `kv` settings,
   * the KV budget reads it instead of prompt + completion (which count one sequence only: not a fork's shared
   * prefix, nor the cells of other sequences).
   */
  kvCellsUsed?: number;
  /**
   * The sub-agent whose call this generation was, when the caller can tell (barometer's proxy: Claude Code's
   * `x-claude-code-agent-id`): the windows' rises it reports are credited to it within the session's share.
   */
  subAgent?: string;
}
