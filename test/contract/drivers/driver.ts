import type {
  BudgetCheck,
  CappedHotState,
  ContextPressureJson,
  PressureReport,
  PromptRegression,
  ReplayResult,
  SessionView,
  ThinkingBudget,
  TriggerDecision,
  UsageAnswer,
} from '../../../src/internal.js';

/** A refusal as every surface can express it: which fields were wrong, and what each message said. */
export interface Refusal {
  ok: false;
  issues: Array<{ field: string; message: string }>;
}
export type Outcome<T> = { ok: true; value: T } | Refusal;

/** What POST /api/v1/hot-state/check answers. */
export interface HotStateCheck {
  capped: CappedHotState;
  budgets: BudgetCheck;
}

/**
 * One surface of barometer, driven the way a user of that surface drives it. Every operation takes and gives the
 * same plain data on every surface: wire-shaped inputs (what the HTTP API and the CLI flags take) in, the
 * documented JSON answer out. An operation a surface does not have is absent (each driver says which and why),
 * and the suite runs each fixture through every driver that has its operation.
 */
export interface Driver {
  readonly name: 'library' | 'http' | 'cli';
  /**
   * The operations this surface does not have, each with why: the suite runs no fixture of them on this driver
   * (no skipped tests) and checks that this list is exactly the operations the driver leaves out.
   */
  readonly lacks: Readonly<Partial<Record<Operation, string>>>;
  start(): Promise<void>;
  stop(): Promise<void>;

  /** Seed 000's regulator, stateless. */
  pressure?(input: Record<string, unknown>): Promise<Outcome<PressureReport>>;
  /** A recorded log (a path relative to the repository root) replayed through a fresh session. */
  replay?(file: string): Promise<ReplayResult>;

  /** Creates a session; a refusal names the bad options. */
  createSession?(options: Record<string, unknown>): Promise<Outcome<SessionView>>;
  /** One generation's usage, as POST /api/v1/sessions/:id/usage takes it. */
  postUsage?(id: string, body: Record<string, unknown>): Promise<UsageAnswer>;
  view?(id: string): Promise<SessionView>;
  /** A bundled sample (src/server/samples.ts; `file` is its path in the repository) loaded into a new live session. */
  loadSample?(name: string, file: string): Promise<SessionView>;
  /** Any recorded log (a path relative to the repository root) loaded into a new live session of this id. */
  loadLog?(file: string, id: string): Promise<SessionView>;

  /** Seed 002: POST /api/v1/hot-state/check. */
  checkHotState?(body: Record<string, unknown>): Promise<HotStateCheck>;
  /** Seed 002's prompt regressions for one turn. */
  promptRegressions?(
    hotState: Record<string, unknown>,
    prompt: Record<string, unknown>,
  ): Promise<PromptRegression[]>;

  /** Seed 001's KV snapshot, as JSON, and canFit for each given size. */
  kvSnapshot?(
    input: Record<string, number>,
    canFit: readonly number[],
  ): Promise<Outcome<{ json: ContextPressureJson; canFit: boolean[] }>>;
  /** Seed 003's thresholds of a profile, and the caution cadence of an option value. */
  healthThresholds?(profile: Record<string, number>): Promise<Record<string, number | undefined>>;
  cautionCadence?(value: number | undefined): Promise<number>;
  /** Seed 004's pure decisions. */
  evaluateTriggers?(
    state: TriggerDecision['state'],
    input: { tokens: number; turns: number },
    config: Record<string, number>,
  ): Promise<TriggerDecision>;
  thinkingBudget?(tpmLeft: number): Promise<ThinkingBudget>;
}

/** An operation of the contract: a method a surface may have or lack. */
export type Operation = Exclude<keyof Driver, 'name' | 'lacks' | 'start' | 'stop'>;

/** Every operation of the contract (a Record, so that the compiler checks the list is whole). */
const OPERATION_SET: Readonly<Record<Operation, true>> = {
  pressure: true,
  replay: true,
  createSession: true,
  postUsage: true,
  view: true,
  loadSample: true,
  loadLog: true,
  checkHotState: true,
  promptRegressions: true,
  kvSnapshot: true,
  healthThresholds: true,
  cautionCadence: true,
  evaluateTriggers: true,
  thinkingBudget: true,
};
export const OPERATIONS = Object.keys(OPERATION_SET) as Operation[];

/** The operations a driver leaves out, in the contract's order. */
export function absentOperations(driver: Driver): Operation[] {
  return OPERATIONS.filter((operation) => driver[operation] === undefined);
}
