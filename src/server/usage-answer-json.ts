import type { SessionHealth, SessionSignals, UsageAnswer, Verdict } from '../session/session-schemas.js';

/**
 * The usage answer as JSON text: exactly what JSON.stringify writes for it (the tests compare both over many
 * sessions' answers, and check that every key of UsageAnswerSchema is written), in less time and memory. It is
 * the service's hot path: every agent posts its usage after each generation. The pieces (keys, with the quotes of
 * the text that follows them; quoted words; numbers; texts) are collected in one array, kept from one answer to
 * the next, and joined once: a string built with `+` is a tree of small strings in V8 (32 bytes a piece) that the
 * socket write then copies out whole, where a join writes the answer once. A field added to the answer must be
 * added here (the tests fail until it is). Events (a union of shapes, most often none) and the thinking
 * parameters (provider-defined) go through JSON.stringify.
 */
export function usageAnswerJson(answer: UsageAnswer): string {
  count = 0;
  const trigger = answer.trigger;
  add('{"sessionId":"');
  inner(answer.sessionId);
  add('","generation":');
  number(answer.generation);
  add(',"at":"');
  inner(answer.at);
  add('","costUsd":');
  numberOrNull(answer.costUsd);
  add(',"verdict":');
  verdictJson(answer.verdict);
  add(',"health":');
  healthJson(answer.health);
  add(',"signals":');
  signalsJson(answer.signals);
  add(',"regulator":');
  regulatorJson(answer.regulator);
  add(trigger.fire ? ',"trigger":{"fire":true,"trigger":' : ',"trigger":{"fire":false,"trigger":');
  if (trigger.trigger === null) add('null');
  else word(trigger.trigger);
  add(',"reasons":[');
  const reasons = trigger.reasons;
  for (let index = 0; index < reasons.length; index++) {
    add(index === 0 ? '"' : '","');
    inner(reasons[index] as string);
  }
  add(reasons.length === 0 ? ']},"events":' : '"]},"events":');
  add(answer.events.length === 0 ? '[]' : JSON.stringify(answer.events));
  add('}');
  parts.length = count;
  return parts.join('');
}

/** The answer's pieces, in order; the array is kept from one answer to the next. */
const parts: string[] = [];
let count = 0;

function add(piece: string): void {
  parts[count++] = piece;
}

/** Characters a JSON string cannot hold as they are: quotes, backslashes, controls, and (lone) surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON must escape
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A string's JSON text without its quotes, which the pieces around it hold (`,"at":"` … `","costUsd":`): one
 * piece for most texts instead of three.
 */
function inner(value: string): void {
  if (NEEDS_ESCAPE.test(value)) {
    const quoted = JSON.stringify(value);
    add(quoted.slice(1, quoted.length - 1));
    return;
  }
  add(value);
}

/** Enum values seen (actions, priorities, levels, …), quoted: a handful of short words, each checked once. */
const WORDS = new Map<string, string>();
const MAX_WORDS = 256;

/** A value of one of the answer's enums: checked for escapes once, then written as it was quoted then. */
function word(value: string): void {
  const quoted = WORDS.get(value);
  if (quoted !== undefined) {
    add(quoted);
    return;
  }
  const written = JSON.stringify(value);
  if (WORDS.size < MAX_WORDS) WORDS.set(value, written);
  add(written);
}

/** As JSON.stringify writes a number: NaN and the infinities as null. */
function number(value: number): void {
  add(Number.isFinite(value) ? `${value}` : 'null');
}

function numberOrNull(value: number | null): void {
  if (value === null) add('null');
  else number(value);
}

function verdictJson(verdict: Verdict): void {
  add('{"action":');
  word(verdict.action);
  add(',"priority":');
  word(verdict.priority);
  add(verdict.newRoundDue ? ',"newRoundDue":true,"waitSeconds":' : ',"newRoundDue":false,"waitSeconds":');
  numberOrNull(verdict.waitSeconds);
  add(',"thinking":');
  thinkingJson(verdict.thinking);
  add(',"reasons":[');
  const reasons = verdict.reasons;
  for (let index = 0; index < reasons.length; index++) {
    const reason = reasons[index] as Verdict['reasons'][number];
    add(index === 0 ? '{"model":' : ',{"model":');
    word(reason.model);
    add(',"action":');
    word(reason.action);
    add(',"priority":');
    word(reason.priority);
    add(',"reason":"');
    inner(reason.reason);
    add('"}');
  }
  add(']}');
}

/**
 * The frozen thinking parameters last written, and their JSON: a step gives one object, frozen to its leaves, to
 * every verdict that lowers a provider's thinking, so its JSON is written once; any other object (one that could
 * still change) goes through JSON.stringify each time.
 */
let lastThinking: unknown = null;
let lastThinkingJson = 'null';

function thinkingJson(thinking: Verdict['thinking']): void {
  if (thinking === lastThinking) {
    add(lastThinkingJson);
    return;
  }
  const json = JSON.stringify(thinking);
  if (frozenToLeaves(thinking)) {
    lastThinking = thinking;
    lastThinkingJson = json;
  }
  add(json);
}

function frozenToLeaves(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(frozenToLeaves);
}

function healthJson(health: SessionHealth): void {
  add('{"level":');
  word(health.level);
  add(',"promptTokens":');
  numberOrNull(health.promptTokens);
  add(',"optimal":');
  number(health.optimal);
  add(',"critical":');
  numberOrNull(health.critical);
  add(',"limit":');
  numberOrNull(health.limit);
  add(',"reminder":');
  if (health.reminder === null) add('null');
  else {
    add('{"id":');
    word(health.reminder.id);
    add(',"text":"');
    inner(health.reminder.text);
    add('"}');
  }
  add(',"countdown":');
  numberOrNull(health.countdown);
  add('}');
}

function signalsJson(signals: SessionSignals): void {
  add('{"lastPromptTokens":');
  numberOrNull(signals.lastPromptTokens);
  add(',"lastCompletionTokens":');
  numberOrNull(signals.lastCompletionTokens);
  add(',"window":');
  numberOrNull(signals.window);
  add(',"percentOfWindow":');
  numberOrNull(signals.percentOfWindow);
  add(',"burnRateTokensPerMin":');
  number(signals.burnRateTokensPerMin);
  add(',"tokensLastMinute":');
  number(signals.tokensLastMinute);
  add(',"tpmLimit":');
  numberOrNull(signals.tpmLimit);
  add(',"tpmLeft":');
  numberOrNull(signals.tpmLeft);
  add(',"quotas":[');
  const quotas = signals.quotas;
  for (let index = 0; index < quotas.length; index++) {
    const quota = quotas[index] as SessionSignals['quotas'][number];
    add(index === 0 ? '{"dimension":' : ',{"dimension":');
    word(quota.dimension);
    add(',"limit":');
    number(quota.limit);
    add(',"used":');
    number(quota.used);
    add(',"left":');
    number(quota.left);
    add(',"need":');
    number(quota.need);
    add(',"source":');
    word(quota.source);
    add(',"waitSeconds":');
    numberOrNull(quota.waitSeconds);
    add('}');
  }
  add('],"costUsd":');
  numberOrNull(signals.costUsd);
  add(',"cacheHitPercent":');
  numberOrNull(signals.cacheHitPercent);
  add(',"tokenBudget":');
  numberOrNull(signals.tokenBudget);
  add(',"budgetUsed":');
  numberOrNull(signals.budgetUsed);
  add(',"budgetRemaining":');
  numberOrNull(signals.budgetRemaining);
  add(',"ageSeconds":');
  number(signals.ageSeconds);
  add(',"driftPercent":');
  numberOrNull(signals.driftPercent);
  add('}');
}

function regulatorJson(regulator: UsageAnswer['regulator']): void {
  add('{"level":');
  word(regulator.level);
  add(',"sessionViability":');
  number(regulator.sessionViability);
  add(',"memoryPressure":');
  number(regulator.memoryPressure);
  add(',"tokenBurnRate":');
  number(regulator.tokenBurnRate);
  add(',"contextDrift":');
  number(regulator.contextDrift);
  add(',"estimatedTokensRemaining":');
  numberOrNull(regulator.estimatedTokensRemaining);
  add(',"estimatedMinutesRemaining":');
  numberOrNull(regulator.estimatedMinutesRemaining);
  add(',"burnRateAcceleration":');
  number(regulator.burnRateAcceleration);
  const recommendations = regulator.recommendations;
  add(
    recommendations.shouldCompress
      ? ',"recommendations":{"shouldCompress":true'
      : ',"recommendations":{"shouldCompress":false',
  );
  add(recommendations.shouldOptimize ? ',"shouldOptimize":true' : ',"shouldOptimize":false');
  add(
    recommendations.shouldTerminate
      ? ',"shouldTerminate":true,"priority":'
      : ',"shouldTerminate":false,"priority":',
  );
  word(recommendations.priority);
  add('},"thresholdsExceeded":[');
  const thresholds = regulator.thresholdsExceeded;
  for (let index = 0; index < thresholds.length; index++) {
    if (index > 0) add(',');
    word(thresholds[index] as string);
  }
  add('],"suggestedAction":');
  word(regulator.suggestedAction);
  add('}');
}
