import type { SessionHealth, SessionSignals, UsageAnswer, Verdict } from '../session/session-schemas.js';

/** Characters a JSON string cannot hold as they are: quotes, backslashes, controls, and (lone) surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON must escape
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function text(value: string): string {
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/** Enum values seen (actions, priorities, levels, …): a handful of short words, each checked once. */
const WORDS = new Set<string>();
const MAX_WORDS = 256;

/** A value of one of the answer's enums: checked for escapes once, then quoted as it is. */
function word(value: string): string {
  if (WORDS.has(value)) return `"${value}"`;
  const written = text(value);
  if (written.length === value.length + 2 && WORDS.size < MAX_WORDS) WORDS.add(value);
  return written;
}

/** As JSON.stringify writes a number: NaN and the infinities as null. */
function number(value: number): string {
  return Number.isFinite(value) ? `${value}` : 'null';
}

function numberOrNull(value: number | null): string {
  return value === null ? 'null' : number(value);
}

function verdictJson(verdict: Verdict): string {
  let reasons = '';
  for (const reason of verdict.reasons) {
    reasons += `${reasons === '' ? '' : ','}{"model":${word(reason.model)},"action":${word(reason.action)},"priority":${word(reason.priority)},"reason":${text(reason.reason)}}`;
  }
  return `{"action":${word(verdict.action)},"priority":${word(verdict.priority)},"newRoundDue":${verdict.newRoundDue},"waitSeconds":${numberOrNull(verdict.waitSeconds)},"thinking":${verdict.thinking === null ? 'null' : JSON.stringify(verdict.thinking)},"reasons":[${reasons}]}`;
}

function healthJson(health: SessionHealth): string {
  const reminder =
    health.reminder === null
      ? 'null'
      : `{"id":${word(health.reminder.id)},"text":${text(health.reminder.text)}}`;
  return `{"level":${word(health.level)},"promptTokens":${numberOrNull(health.promptTokens)},"optimal":${number(health.optimal)},"critical":${numberOrNull(health.critical)},"limit":${numberOrNull(health.limit)},"reminder":${reminder},"countdown":${numberOrNull(health.countdown)}}`;
}

function quotaJson(quota: SessionSignals['quotas'][number]): string {
  return `{"dimension":${word(quota.dimension)},"limit":${number(quota.limit)},"used":${number(quota.used)},"left":${number(quota.left)},"need":${number(quota.need)},"source":${word(quota.source)},"waitSeconds":${numberOrNull(quota.waitSeconds)}}`;
}

function signalsJson(signals: SessionSignals): string {
  let quotas = '';
  for (const quota of signals.quotas) quotas += `${quotas === '' ? '' : ','}${quotaJson(quota)}`;
  return `{"lastPromptTokens":${numberOrNull(signals.lastPromptTokens)},"lastCompletionTokens":${numberOrNull(signals.lastCompletionTokens)},"window":${numberOrNull(signals.window)},"percentOfWindow":${numberOrNull(signals.percentOfWindow)},"burnRateTokensPerMin":${number(signals.burnRateTokensPerMin)},"tokensLastMinute":${number(signals.tokensLastMinute)},"tpmLimit":${numberOrNull(signals.tpmLimit)},"tpmLeft":${numberOrNull(signals.tpmLeft)},"quotas":[${quotas}],"costUsd":${numberOrNull(signals.costUsd)},"cacheHitPercent":${numberOrNull(signals.cacheHitPercent)},"tokenBudget":${numberOrNull(signals.tokenBudget)},"budgetUsed":${numberOrNull(signals.budgetUsed)},"budgetRemaining":${numberOrNull(signals.budgetRemaining)},"ageSeconds":${number(signals.ageSeconds)},"driftPercent":${numberOrNull(signals.driftPercent)}}`;
}

function regulatorJson(regulator: UsageAnswer['regulator']): string {
  const recommendations = regulator.recommendations;
  let thresholds = '';
  for (const code of regulator.thresholdsExceeded)
    thresholds += `${thresholds === '' ? '' : ','}${word(code)}`;
  return `{"level":${word(regulator.level)},"sessionViability":${number(regulator.sessionViability)},"memoryPressure":${number(regulator.memoryPressure)},"tokenBurnRate":${number(regulator.tokenBurnRate)},"contextDrift":${number(regulator.contextDrift)},"estimatedTokensRemaining":${numberOrNull(regulator.estimatedTokensRemaining)},"estimatedMinutesRemaining":${numberOrNull(regulator.estimatedMinutesRemaining)},"burnRateAcceleration":${number(regulator.burnRateAcceleration)},"recommendations":{"shouldCompress":${recommendations.shouldCompress},"shouldOptimize":${recommendations.shouldOptimize},"shouldTerminate":${recommendations.shouldTerminate},"priority":${word(recommendations.priority)}},"thresholdsExceeded":[${thresholds}],"suggestedAction":${word(regulator.suggestedAction)}}`;
}

/**
 * The usage answer as JSON text: exactly what JSON.stringify writes for it (the tests compare both over many
 * sessions' answers, and check that every key of UsageAnswerSchema is written), in about four fifths of the
 * time. JSON.stringify looks up the shape of every object and the type of every value again on each call;
 * this knows them. It is the service's hot path: every agent posts its usage after each generation. Events
 * (a union of shapes, most often none) and the thinking parameters (provider-defined) go through
 * JSON.stringify. A field added to the answer must be added here (the tests fail until it is).
 */
export function usageAnswerJson(answer: UsageAnswer): string {
  const trigger = answer.trigger;
  let triggerReasons = '';
  for (const reason of trigger.reasons)
    triggerReasons += `${triggerReasons === '' ? '' : ','}${text(reason)}`;
  return `{"sessionId":${text(answer.sessionId)},"generation":${number(answer.generation)},"at":${text(answer.at)},"costUsd":${numberOrNull(answer.costUsd)},"verdict":${verdictJson(answer.verdict)},"health":${healthJson(answer.health)},"signals":${signalsJson(answer.signals)},"regulator":${regulatorJson(answer.regulator)},"trigger":{"fire":${trigger.fire},"trigger":${trigger.trigger === null ? 'null' : word(trigger.trigger)},"reasons":[${triggerReasons}]},"events":${answer.events.length === 0 ? '[]' : JSON.stringify(answer.events)}}`;
}
