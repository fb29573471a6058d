import * as z from 'zod';
import { WindowPolicySchema } from '../quota/windows/window-lever-names.js';

/** Where requests go when no `--anthropic-upstream` / `--openai-upstream` is given: the providers' own APIs. */
export const DEFAULT_ANTHROPIC_UPSTREAM = 'https://api.anthropic.com';
export const DEFAULT_OPENAI_UPSTREAM = 'https://api.openai.com';
/**
 * Where Codex signed in with ChatGPT sends its Responses requests (its default base URL in that mode,
 * codex-rs/core/src/model_provider_info.rs): a ChatGPT token is refused by api.openai.com.
 */
export const DEFAULT_CHATGPT_UPSTREAM = 'https://chatgpt.com/backend-api/codex';
/**
 * The longest a request is held when the session's verdict is `wait` (a per-minute quota refills): past it the
 * request goes on and the provider answers (a 429 with its own retry-after, which reaches the agent as sent).
 */
export const DEFAULT_PROXY_MAX_WAIT_SECONDS = 60;

/**
 * The longest wait for an answer's headers once a request is sent upstream: 10 minutes, the request timeout of
 * the Anthropic and OpenAI SDKs (`DEFAULT_TIMEOUT = 600000`, armed until the answer's headers arrive) and of
 * Claude Code 2.1.328 (`API_TIMEOUT_MS`, default 600000). A non-streamed answer's headers come only once it is
 * generated whole: a shorter limit would cut answers the agent itself still waits for. Sources in docs/rules.md.
 */
export const DEFAULT_UPSTREAM_HEADERS_TIMEOUT_SECONDS = 600;
/**
 * The longest silence between two parts of an answer's body: 5 minutes, the stream idle timeout of Codex
 * (`stream_idle_timeout_ms`, default 300000) and the floor of Claude Code 2.1.328's stream watchdog (300000 ms).
 * Anthropic streams carry `ping` events at no published interval and a model may think for minutes between two
 * events: the proxy gives up on a silent answer no sooner than the agents themselves would.
 */
export const DEFAULT_UPSTREAM_IDLE_TIMEOUT_SECONDS = 300;

/** A timeout in seconds: more than 0 (the proxy never waits forever), at most a day. */
const timeoutSeconds = z.number().positive().max(86_400);

const upstream = z
  .string()
  .regex(
    /^https?:\/\/[^\s/]+(\/\S*)?$/,
    'must be an http:// or https:// URL, such as https://api.anthropic.com',
  )
  .transform((url) => url.replace(/\/+$/, ''));

/** Options of the proxy routes (`barometer proxy`); unknown keys are rejected. */
export const ProxyOptionsSchema = z.strictObject({
  /** Base URL the Anthropic Messages requests are forwarded to (its `/v1/messages` is appended). */
  anthropicUpstream: upstream.default(DEFAULT_ANTHROPIC_UPSTREAM),
  /** Base URL the OpenAI Chat Completions and Responses requests are forwarded to (`/v1/...` appended). */
  openaiUpstream: upstream.default(DEFAULT_OPENAI_UPSTREAM),
  /**
   * Base URL of Codex's ChatGPT-login backend: a Responses request carrying a `chatgpt-account-id` header (Codex
   * sends one with a ChatGPT login, never with an API key) goes to `<this>/responses`.
   */
  chatgptUpstream: upstream.default(DEFAULT_CHATGPT_UPSTREAM),
  /** `act` (the default) evicts completed sub-tasks' tool output; `observe` only measures. */
  mode: z.enum(['act', 'observe']).default('act'),
  /** Longest hold of a request on a `wait` verdict, in seconds; 0 never holds. */
  maxWaitSeconds: z.number().min(0).max(3600).default(DEFAULT_PROXY_MAX_WAIT_SECONDS),
  /**
   * The window policy's levers, each its own switch, acting on sub-agents' conversations while the 5-hour window
   * binds (the verdict's `windowWait`): `thinking` lowers their thinking budget (from a conversation's first request,
   * for all of it), `hold` holds their requests (at most `maxWaitSeconds`). Empty (the default): nothing acts on a
   * window. `--window-policy`, `BAROMETER_WINDOW_POLICY`, `window_policy` in the config file.
   * @default []
   */
  windowPolicy: WindowPolicySchema.default([]),
  /**
   * Longest wait for the answer's headers once a request went upstream, in seconds; past it the agent gets 502
   * `BR_ERR_UPSTREAM_UNREACHABLE` (its client retries).
   */
  upstreamHeadersTimeoutSeconds: timeoutSeconds.default(DEFAULT_UPSTREAM_HEADERS_TIMEOUT_SECONDS),
  /**
   * Longest silence between two parts of an answer's body, in seconds; past it the agent's answer is cut (its
   * connection closed before the answer is whole), so that its client retries instead of waiting on a dead one.
   */
  upstreamIdleTimeoutSeconds: timeoutSeconds.default(DEFAULT_UPSTREAM_IDLE_TIMEOUT_SECONDS),
  /** Largest request body accepted, in bytes (agents resend their whole history). */
  bodyLimitBytes: z
    .number()
    .int()
    .min(1024)
    .default(64 * 1024 * 1024),
});
export type ProxyOptions = z.input<typeof ProxyOptionsSchema>;
export type ResolvedProxyOptions = z.output<typeof ProxyOptionsSchema>;
