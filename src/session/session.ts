import { BarometerValidationError, parseWith } from '../errors/validation.js';
import type { HealthThresholds } from '../health/health-thresholds.js';
import type { ModelProfile } from '../models/model-profile.js';
import type { PressureAssessment } from '../pressure/types.js';
import type { HeaderBag } from '../usage/rate-limit-headers.js';
import { type CompactionReport, recordCompactionStep } from './compaction-step.js';
import { healthOf } from './session-health.js';
import type { SessionOptions, UsageUpdate } from './session-options.js';
import type { SessionEvent, SessionHealth, SessionSignals, Verdict } from './session-schemas.js';
import { signalsOf } from './session-signals.js';
import {
  type CreateSessionDependencies,
  createSessionState,
  profileOf,
  type SessionState,
} from './session-state.js';
import { SessionStateSchema } from './session-state-schema.js';
import { observeQuotaStep, type SessionUpdate, stepSession } from './step-session.js';

export type { SessionEvent, SessionHealth } from './session-schemas.js';
export type { SessionUpdate } from './step-session.js';

export interface SessionDependencies extends CreateSessionDependencies {}

/** Set only while `Session.fromState` constructs: the state to resume instead of creating one. */
let resuming: SessionState | undefined;

/**
 * A monitored agent session for library users: a thin object over {@link SessionState} and the pure
 * {@link stepSession}. Feed it every generation's usage and act on the verdict. Its state is plain JSON
 * (`session.state`), a few kilobytes however long the session runs; `Session.fromState` takes it back.
 *
 * @example
 * const session = new Session({ model: 'claude-opus-4-6', agent: 'claude-code' });
 * const { verdict } = session.update({ usage: normalizeUsage('anthropic', response) });
 */
export class Session {
  #state: SessionState;
  readonly #now: () => number;

  /** @throws BarometerValidationError for bad options (a model the registry does not know is not one). */
  constructor(options: SessionOptions, dependencies: SessionDependencies = {}) {
    this.#state = resuming ?? createSessionState(options, dependencies);
    this.#now = dependencies.now ?? Date.now;
  }

  /**
   * A session resumed from a state (a store's, or `JSON.parse` of `JSON.stringify(session.state)`).
   * @throws BarometerValidationError when the state is not a session state
   */
  static fromState(state: unknown, dependencies: Pick<SessionDependencies, 'now'> = {}): Session {
    const parsed = parseWith(SessionStateSchema, state);
    if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'session state');
    resuming = parsed.value;
    try {
      return new Session(undefined as never, dependencies);
    } finally {
      resuming = undefined;
    }
  }

  /** The session's state: plain JSON, safe to store; do not change it in place. */
  get state(): SessionState {
    return this.#state;
  }
  get id(): string {
    return this.#state.id;
  }
  get model(): string {
    return this.#state.model;
  }
  get agent(): string | null {
    return this.#state.agent;
  }
  /** The model's profile (a state written by an older version shows today's source names). */
  get profile(): ModelProfile {
    return profileOf(this.#state);
  }
  get createdAt(): number {
    return this.#state.createdAt;
  }
  get generations(): number {
    return this.#state.generations;
  }
  /** The verdict of the last update, or null before the first. */
  get lastVerdict(): Verdict | null {
    return this.#state.lastVerdict;
  }
  /** The regulator's assessment at the last update, or null before the first. */
  get lastPressure(): PressureAssessment | null {
    return this.#state.lastPressure;
  }
  get lastActivityAt(): number | null {
    return this.#state.lastAt;
  }
  get thresholds(): HealthThresholds {
    const t = this.#state.thresholds;
    return { limit: t.limit ?? undefined, optimal: t.optimal, critical: t.critical ?? undefined };
  }
  get tokenBudget(): number | null {
    return this.#state.options.tokenBudget ?? null;
  }

  /**
   * Takes one generation's usage and answers with the verdict of every model. Applied whole or not at all.
   * @throws BarometerValidationError for a time a date cannot hold
   */
  update(update: UsageUpdate): SessionUpdate {
    const step = stepSession(this.#state, update, { now: this.#clock() });
    this.#state = step.state;
    return step.update;
  }

  /**
   * Tells the session a compaction happened (the agent's own or barometer's), so that the triggers' loop guards
   * hold until the context grows again.
   */
  recordCompaction(compaction: CompactionReport): SessionEvent {
    const step = recordCompactionStep(this.#state, compaction, { now: this.#clock() });
    this.#state = step.state;
    return step.event;
  }

  /**
   * Takes what a provider's response without a generation says about the quotas (a refused request, 429: its
   * rate-limit headers and `retry-after`) and answers the verdict judged again, carrying the wait.
   */
  observeQuota(headers: HeaderBag, at: number = this.#clock()): Verdict {
    const step = observeQuotaStep(this.#state, headers, at);
    this.#state = step.state;
    return step.verdict;
  }

  /** The signals as of `at` (the last update's time by default). */
  signals(at?: number): SessionSignals {
    return signalsOf(this.#state, at ?? this.#state.lastAt ?? this.#clock());
  }

  health(): SessionHealth {
    return healthOf(this.#state);
  }

  #clock(): number {
    return this.#now();
  }
}
