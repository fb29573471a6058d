import type { MonitorEvent } from '../../session/session-monitor.js';
import type { WebhookEvent } from './webhook-service.js';

/** A webhook to send: the event and its JSON payload. */
export interface WebhookMessage {
  event: WebhookEvent;
  payload: Record<string, unknown>;
}

const iso = (at: number) => new Date(at).toISOString();

/**
 * The webhooks a session change calls for:
 * - `pressure_critical` when the session's regulator turns CRITICAL or its context health turns critical, with
 *   seed 000's payload (timestamp, event, sessionId, pressure { level, sessionViability,
 *   estimatedMinutesRemaining }, suggestedAction: the session's verdict);
 * - `verdict_changed` with the previous and the new action and the verdict's figures;
 * - `new_round_due` when the health countdown ends (forced new round), once;
 * - `compaction` for every compaction recorded (the agent's, barometer's, or a provider's server-side one);
 * - `window_threshold` each time a subscription window reaches 90% or 95% used, starts to bind (runs out before its
 *   reset at the measured pace) or is spent, once per window period, with the window's figures and the verdict's
 *   `windowWait`.
 */
export function webhooksOf(event: MonitorEvent): WebhookMessage[] {
  if (event.type !== 'changed') return [];
  const messages: WebhookMessage[] = [];
  const { state } = event;
  const verdict = state.lastVerdict;
  let critical = false;
  for (const change of event.events) {
    const base = { timestamp: change.at, sessionId: event.id };
    switch (change.type) {
      case 'regulator_level_changed':
        if (change.to === 'CRITICAL') critical = true;
        break;
      case 'level_changed':
        if (change.to === 'critical') critical = true;
        break;
      case 'verdict_changed':
        messages.push({
          event: 'verdict_changed',
          payload: {
            ...base,
            event: 'verdict_changed',
            from: change.from,
            to: change.to,
            priority: verdict?.priority ?? null,
            newRoundDue: verdict?.newRoundDue ?? false,
            waitSeconds: verdict?.waitSeconds ?? null,
          },
        });
        break;
      case 'forced_new_round':
        messages.push({
          event: 'new_round_due',
          payload: {
            ...base,
            event: 'new_round_due',
            promptTokens: change.promptTokens,
            critical: change.critical,
          },
        });
        break;
      case 'window_threshold':
        messages.push({
          event: 'window_threshold',
          payload: {
            ...base,
            event: 'window_threshold',
            window: change.window,
            threshold: change.threshold,
            usedPercent: change.usedPercent,
            resetsAt: change.resetsAt,
            runsOutAt: change.runsOutAt,
            suggestedAction: verdict?.action ?? null,
            windowWait: verdict?.windowWait ?? null,
          },
        });
        break;
      case 'compaction':
        messages.push({
          event: 'compaction',
          payload: {
            ...base,
            event: 'compaction',
            trigger: change.trigger,
            before: change.before,
            after: change.after,
          },
        });
        break;
      default:
        break;
    }
  }
  if (critical && state.lastPressure) {
    const at = state.lastAt ?? state.createdAt;
    messages.unshift({
      event: 'pressure_critical',
      payload: {
        timestamp: iso(at),
        event: 'pressure_critical',
        sessionId: event.id,
        pressure: {
          level: state.lastPressure.level,
          sessionViability: state.lastPressure.sessionViability,
          estimatedMinutesRemaining: state.lastPressure.estimatedMinutesRemaining,
        },
        health: state.health.level,
        suggestedAction: verdict?.action ?? state.lastPressure.suggestedAction,
      },
    });
  }
  return messages;
}
