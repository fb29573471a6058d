import { randomUUID } from 'node:crypto';
import {
  createTriggerState,
  evaluateTriggers,
  recordCompaction,
  type TriggerDecision,
  type TriggerState,
} from '../compaction/evaluate-triggers.js';
import { thinkingBudget } from '../compaction/thinking-budget.js';
import { HeadroomValidationError, parseWith } from '../errors/validation.js';
import type { HealthLevel } from '../health/health-level.js';
import { cautionReminderText, criticalReminderText } from '../health/health-reminder.js';
import { type HealthThresholds, healthThresholds } from '../health/health-thresholds.js';
import { type HealthEvent, type HealthState, initialHealthState, stepHealth } from '../health/step-health.js';
import { contextPressure } from '../kv/context-pressure.js';
import type { HeadroomConfig } from '../models/headroom-config.js';
import { type ModelProfile, promptWindow } from '../models/model-profile.js';
import { resolveProfile } from '../models/resolve-profile.js';
import type { AgentProfile, SystemMode } from '../pressure/parameters.js';
import type { PressureAssessment } from '../pressure/types.js';
import type { UsageRecord } from '../usage/usage-record.js';
import { regulatorView, type SessionRegulatorView, type SessionSignals } from './regulator-view.js';
import { RollingWindow } from './rolling-window.js';
import {
  DEFAULT_BURN_WINDOW_SECONDS,
  type SessionOptions,
  SessionOptionsSchema,
  type UsageUpdate,
} from './session-options.js';
import { combineVerdict, regulatorReason, type Verdict, type VerdictReason } from './verdict.js';

const MINUTE_MS = 60_000;
/** The regulator's mode and profile for sessions: its production baseline and the seed's own (balanced) rules. */
const REGULATOR_SETTINGS: { systemMode: SystemMode; agentProfile: AgentProfile } = Object.freeze({
  systemMode: 'production',
  agentProfile: 'balanced',
});

/** Something that happened in a session, for the event stream: the health model's events and the session's own. */
export type SessionEvent =
  | (HealthEvent & { at: number })
  | { type: 'verdict_changed'; at: number; from: Verdict['action'] | null; to: Verdict['action'] }
  | { type: 'regulator_level_changed'; at: number; from: string | null; to: string }
  | { type: 'compaction'; at: number; trigger: string; before: number | null; after: number | null }
  | { type: 'usage_unavailable'; at: number; reason: string };

/** The health part of an update: the level, the thresholds, the owned reminder and the countdown. */
export interface SessionHealth {
  level: HealthLevel;
  promptTokens: number | null;
  optimal: number;
  critical: number | null;
  limit: number | null;
  reminder: { id: 'context_health'; text: string } | null;
  countdown: number | null;
}

/** What one update answers. */
export interface SessionUpdate {
  /** When the generation happened, epoch ms. */
  at: number;
  verdict: Verdict;
  health: SessionHealth;
  signals: SessionSignals;
  regulator: SessionRegulatorView;
  trigger: TriggerDecision;
  events: SessionEvent[];
}

export interface SessionDependencies {
  /** The clock (epoch ms), used only when an update carries no time. @default Date.now */
  now?: () => number;
  generateId?: () => string;
  /** A loaded config file whose model entries override the built-in registry. */
  config?: HeadroomConfig;
}

/**
 * A monitored agent session: takes usage records over time, keeps its signals, and judges each update
 * with every model (context health, the regulator, the KV budget, the compaction triggers, the budget) into
 * one verdict. Its state is a few numbers and two fixed rings, however long the session runs.
 */
export class Session {
  readonly id: string;
  readonly model: string;
  readonly agent: string | null;
  readonly profile: ModelProfile;
  readonly createdAt: number;
  readonly #options: ReturnType<typeof SessionOptionsSchema.parse>;
  readonly #thresholds: HealthThresholds;
  /** Tokens over the burn window (30 buckets) and over the last minute to two seconds (the TPM window). */
  readonly #burn: RollingWindow;
  readonly #minute: RollingWindow;
  readonly #now: () => number;
  readonly #burnWindowMs: number;
  #health: HealthState = initialHealthState();
  #triggers: TriggerState = createTriggerState();
  // The reminder's text is a pure function of these figures: kept as numbers, written out when read.
  #reminderPrompt: number | null = null;
  #reminderCountdown: number | null = null;
  #generations = 0;
  #lastPrompt: number | null = null;
  #lastCompletion: number | null = null;
  #budgetUsed = 0;
  #drift: number | null = null;
  #firstAt: number | null = null;
  #lastAt: number | null = null;
  // Only what a view needs is kept between updates, not the whole last answer: an idle session stays small.
  #lastVerdict: Verdict | null = null;
  #lastPressure: PressureAssessment | null = null;

  /** @throws HeadroomValidationError for bad options, or an unknown model without `contextWindow` (HR_ERR_UNKNOWN_MODEL). */
  constructor(options: SessionOptions, dependencies: SessionDependencies = {}) {
    const parsed = parseWith(SessionOptionsSchema, options);
    if (!parsed.ok) throw new HeadroomValidationError(parsed.issues, 'session options');
    const valid = parsed.value;
    if (valid.kv) {
      // Checked now, with the KV model's own rules (hardLimit ≥ nBatch), not at the first update.
      try {
        contextPressure({ ...valid.kv, cellsUsed: 0 });
      } catch (error) {
        if (!(error instanceof HeadroomValidationError)) throw error;
        throw new HeadroomValidationError(
          error.issues.map((issue) => ({ ...issue, field: `kv.${issue.field}` })),
          'session options',
        );
      }
    }
    this.#options = valid;
    this.#now = dependencies.now ?? Date.now;
    this.id = valid.id ?? (dependencies.generateId ?? randomUUID)();
    this.model = valid.model;
    this.agent = valid.agent ?? null;
    const overrides = {
      ...(valid.contextWindow === undefined
        ? {}
        : { contextLength: valid.contextWindow, effectiveWindow: valid.contextWindow }),
      ...(valid.optimalMaxTokens === undefined ? {} : { optimalMaxTokens: valid.optimalMaxTokens }),
      ...(valid.criticalMaxTokens === undefined ? {} : { criticalMaxTokens: valid.criticalMaxTokens }),
      ...(valid.tpmLimit === undefined ? {} : { tpmLimit: valid.tpmLimit }),
    };
    const profile = resolveProfile(valid.model, {
      ...(valid.agent ? { agent: valid.agent } : {}),
      overrides,
      ...(dependencies.config ? { config: dependencies.config } : {}),
    });
    if (!profile || (profile.effectiveWindow ?? promptWindow(profile)) === undefined) {
      throw new HeadroomValidationError(
        [
          {
            field: 'model',
            value: valid.model,
            message: `unknown model ${JSON.stringify(valid.model)}: give contextWindow (tokens) or use a model of the registry`,
          },
        ],
        'session options',
        'HR_ERR_UNKNOWN_MODEL',
      );
    }
    // resolveProfile builds its result field by field; a literal with fixed keys costs a tenth of the memory.
    this.profile = {
      id: profile.id,
      source: profile.source,
      contextLength: profile.contextLength,
      inputLength: profile.inputLength,
      maxOutput: profile.maxOutput,
      optimalMaxTokens: profile.optimalMaxTokens,
      criticalMaxTokens: profile.criticalMaxTokens,
      tpmLimit: profile.tpmLimit,
      effectiveWindow: profile.effectiveWindow,
    };
    const window = profile.effectiveWindow ?? promptWindow(profile);
    this.#thresholds = healthThresholds({ ...profile, effectiveWindow: window });
    this.#burnWindowMs = (valid.burnWindowSeconds ?? DEFAULT_BURN_WINDOW_SECONDS) * 1000;
    this.#burn = new RollingWindow(this.#burnWindowMs, 30);
    this.#minute = new RollingWindow(MINUTE_MS, 30);
    this.createdAt = this.#now();
  }

  get generations(): number {
    return this.#generations;
  }
  /** The verdict of the last update, or null before the first. */
  get lastVerdict(): Verdict | null {
    return this.#lastVerdict;
  }
  /** The regulator's assessment at the last update, or null before the first. */
  get lastPressure(): PressureAssessment | null {
    return this.#lastPressure;
  }
  get lastActivityAt(): number | null {
    return this.#lastAt;
  }
  get thresholds(): HealthThresholds {
    return this.#thresholds;
  }
  get tokenBudget(): number | null {
    return this.#options.tokenBudget ?? null;
  }

  /** Takes one generation's usage and answers with the verdict of every model. */
  update(update: UsageUpdate): SessionUpdate {
    const at = this.#timeOf(update);
    const usage: UsageRecord = update.usage;
    const events: SessionEvent[] = [];
    this.#generations++;
    this.#firstAt ??= at;
    this.#lastAt = at;
    if (update.driftPercent !== undefined) this.#drift = update.driftPercent;
    if (usage.available) {
      this.#lastPrompt = usage.promptTokens;
      this.#lastCompletion = usage.completionTokens;
      const spent = usage.promptTokens + usage.completionTokens;
      this.#budgetUsed += spent;
      this.#burn.add(at, spent);
      this.#minute.add(at, spent);
    } else {
      events.push({ type: 'usage_unavailable', at, reason: usage.reason });
    }

    const healthStep = stepHealth(
      this.#health,
      usage.available ? { available: true, promptTokens: usage.promptTokens } : { available: false },
      {
        thresholds: this.#thresholds,
        ...(this.#options.cautionCadence === undefined
          ? {}
          : { cautionCadence: this.#options.cautionCadence }),
      },
    );
    this.#health = healthStep.state;
    if (
      (healthStep.reminder.action === 'add' || healthStep.reminder.action === 'update') &&
      usage.available
    ) {
      this.#reminderPrompt = usage.promptTokens;
      this.#reminderCountdown =
        healthStep.state.reminder === 'critical' ? (healthStep.state.countdown ?? 0) : null;
    } else if (healthStep.reminder.action === 'drop') {
      this.#reminderPrompt = null;
    }
    for (const event of healthStep.events) events.push({ ...event, at });

    const signals = this.signals(at);
    const regulator = regulatorView(signals, REGULATOR_SETTINGS, at);
    const reasons: VerdictReason[] = [this.#healthReason(healthStep.level, usage)];
    reasons.push(regulatorReason(regulator.report, regulator.notes));
    const kv = this.#kvReason();
    if (kv) reasons.push(kv);
    const trigger = this.#evaluateTriggers(at, update.taskCompleted === true, usage.available);
    reasons.push(this.#triggerReason(trigger, signals));
    const budget = this.#budgetReason(signals);
    if (budget) reasons.push(budget);
    const verdict = combineVerdict(reasons);

    const previousLevel = this.#lastPressure?.level ?? null;
    if (previousLevel !== regulator.report.pressure.level) {
      events.push({
        type: 'regulator_level_changed',
        at,
        from: previousLevel,
        to: regulator.report.pressure.level,
      });
    }
    if (this.#lastVerdict?.action !== verdict.action) {
      events.push({
        type: 'verdict_changed',
        at,
        from: this.#lastVerdict?.action ?? null,
        to: verdict.action,
      });
    }
    this.#lastVerdict = verdict;
    const result: SessionUpdate = { at, verdict, health: this.health(), signals, regulator, trigger, events };
    this.#lastPressure = regulator.report.pressure;
    return result;
  }

  /**
   * Tells the session a compaction happened (the agent's own or headroom's), so that the triggers' loop guards
   * hold until the context grows again.
   */
  recordCompaction(compaction: {
    before?: number;
    after?: number;
    trigger?: string;
    timestamp?: number | string;
  }): SessionEvent {
    const at =
      compaction.timestamp === undefined ? (this.#lastAt ?? this.#now()) : toMillis(compaction.timestamp);
    const before = compaction.before ?? this.#lastPrompt;
    if (before !== null && compaction.after !== undefined) {
      this.#triggers = recordCompaction(
        this.#triggers,
        { before: Math.round(before), after: Math.round(compaction.after) },
        this.#triggerConfig(),
      );
    }
    return {
      type: 'compaction',
      at,
      trigger: compaction.trigger ?? 'manual',
      before,
      after: compaction.after ?? null,
    };
  }

  /** The signals as of `at` (the last update's time by default). */
  signals(at: number = this.#lastAt ?? this.#now()): SessionSignals {
    const window = this.#thresholds.limit ?? null;
    const burnMinutes = this.#burnWindowMs / MINUTE_MS;
    const tokensLastMinute = this.#minute.sum(at);
    const tpmLimit = this.profile.tpmLimit ?? null;
    const tokenBudget = this.#options.tokenBudget ?? null;
    return {
      lastPromptTokens: this.#lastPrompt,
      lastCompletionTokens: this.#lastCompletion,
      window,
      percentOfWindow:
        this.#lastPrompt === null || window === null
          ? null
          : Math.round((this.#lastPrompt / window) * 1000) / 10,
      burnRateTokensPerMin: Math.round(this.#burn.sum(at) / burnMinutes),
      tokensLastMinute,
      tpmLimit,
      tpmLeft: tpmLimit === null ? null : Math.max(0, tpmLimit - tokensLastMinute),
      tokenBudget,
      budgetUsed: tokenBudget === null ? null : this.#budgetUsed,
      budgetRemaining: tokenBudget === null ? null : Math.max(0, tokenBudget - this.#budgetUsed),
      ageSeconds: this.#firstAt === null ? 0 : Math.max(0, Math.round((at - this.#firstAt) / 1000)),
      driftPercent: this.#drift,
    };
  }

  health(): SessionHealth {
    return {
      level: this.#health.level,
      promptTokens: this.#lastPrompt,
      optimal: this.#thresholds.optimal,
      critical: this.#thresholds.critical ?? null,
      limit: this.#thresholds.limit ?? null,
      reminder:
        this.#reminderPrompt === null
          ? null
          : { id: 'context_health', text: this.#reminderText(this.#reminderPrompt) },
      countdown: this.#health.countdown,
    };
  }

  #reminderText(promptTokens: number): string {
    const figures = { promptTokens, thresholds: this.#thresholds };
    return this.#reminderCountdown === null
      ? cautionReminderText(figures)
      : criticalReminderText({ ...figures, countdown: this.#reminderCountdown });
  }

  #timeOf(update: UsageUpdate): number {
    if (update.timestamp !== undefined) return toMillis(update.timestamp);
    if (update.usage.timestamp !== undefined) return toMillis(update.usage.timestamp);
    return this.#now();
  }

  #healthReason(level: HealthLevel, usage: UsageRecord): VerdictReason {
    const t = this.#thresholds;
    const prompt = this.#lastPrompt;
    switch (level) {
      case 'unknown':
        return {
          model: 'health',
          action: 'continue',
          priority: 'low',
          reason: usage.available
            ? 'context health unknown: no window known'
            : `usage unavailable (${usage.reason})`,
        };
      case 'healthy':
        return {
          model: 'health',
          action: 'continue',
          priority: 'low',
          reason: `healthy: ${prompt} prompt tokens <= optimal ${t.optimal}`,
        };
      case 'caution':
        return {
          model: 'health',
          action: 'compress',
          priority: 'normal',
          reason: `caution: ${prompt} prompt tokens > optimal ${t.optimal}${t.critical === undefined ? '' : ` (critical at ${t.critical})`}`,
        };
      case 'critical':
        return {
          model: 'health',
          action: 'compress',
          priority: 'urgent',
          reason: `critical: ${prompt} prompt tokens > critical ${t.critical}; new round in ${this.#health.countdown ?? 0} generations`,
        };
    }
  }

  #kvReason(): VerdictReason | undefined {
    const kv = this.#options.kv;
    if (!kv) return undefined;
    const snapshot = contextPressure({
      ...kv,
      cellsUsed: (this.#lastPrompt ?? 0) + (this.#lastCompletion ?? 0),
    });
    const figures = `${snapshot.remaining} cells remaining, headroom ${snapshot.headroom}`;
    if (snapshot.critical) {
      return {
        model: 'kv',
        action: 'terminate',
        priority: 'urgent',
        reason: `KV critical: ${figures} < hard limit ${snapshot.hardLimit}`,
      };
    }
    if (snapshot.headroom <= 0) {
      return {
        model: 'kv',
        action: 'compress',
        priority: 'high',
        reason: `KV headroom exhausted: ${figures}; tool results are refused`,
      };
    }
    return { model: 'kv', action: 'continue', priority: 'low', reason: `KV: ${figures}` };
  }

  #triggerConfig() {
    return { ...(this.#options.triggers ?? {}), tpmLimit: this.profile.tpmLimit ?? null };
  }

  #evaluateTriggers(at: number, taskCompleted: boolean, available: boolean): TriggerDecision {
    if (!available || this.#lastPrompt === null) {
      return {
        fire: false,
        reasons: ['no usage figure this generation: triggers not evaluated'],
        state: this.#triggers,
      };
    }
    const decision = evaluateTriggers(
      this.#triggers,
      {
        tokens: this.#lastPrompt,
        turns: this.#generations,
        taskCompleted,
        now: at,
        usageEvents: this.#minute.entries(at),
      },
      this.#triggerConfig(),
    );
    this.#triggers = decision.state;
    return decision;
  }

  #triggerReason(trigger: TriggerDecision, signals: SessionSignals): VerdictReason {
    const guards = trigger.reasons.join('; ');
    if (trigger.fire && trigger.trigger) {
      return {
        model: 'triggers',
        action: 'compress',
        priority: trigger.trigger === 'survival' ? 'urgent' : 'high',
        reason: `${trigger.trigger} compaction triggered: ${guards}`,
      };
    }
    if (signals.tpmLeft !== null) {
      const thinking = thinkingBudget({ tpmLeft: signals.tpmLeft, provider: 'anthropic' });
      if (thinking.lowered) {
        return {
          model: 'triggers',
          action: 'optimize',
          priority: 'normal',
          reason: `thinking budget lowered to ${thinking.budgetTokens} tokens: ${signals.tpmLeft} TPM left; ${guards}`,
        };
      }
    }
    return { model: 'triggers', action: 'continue', priority: 'low', reason: `no trigger: ${guards}` };
  }

  #budgetReason(signals: SessionSignals): VerdictReason | undefined {
    if (signals.tokenBudget === null || signals.budgetUsed === null) return undefined;
    if (signals.budgetUsed >= signals.tokenBudget) {
      return {
        model: 'budget',
        action: 'terminate',
        priority: 'urgent',
        reason: `token budget exhausted: ${signals.budgetUsed} of ${signals.tokenBudget} used`,
      };
    }
    return {
      model: 'budget',
      action: 'continue',
      priority: 'low',
      reason: `token budget: ${signals.budgetRemaining} of ${signals.tokenBudget} left`,
    };
  }
}

function toMillis(value: number | string): number {
  if (typeof value === 'number') return value;
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) {
    throw new HeadroomValidationError([
      { field: 'timestamp', value, message: 'must be an ISO 8601 time or epoch milliseconds' },
    ]);
  }
  return parsed;
}
