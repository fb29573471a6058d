import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The contract suite's one fixture set (test/contract/fixtures/*.json, described in its README.md), read and
 * expanded here: the JSON files hold data only, and every surface gets exactly the same values.
 */

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = new URL('./fixtures/', import.meta.url);

/**
 * How far ahead of the drivers' fixed clock (`STEPS_START`) a step's time may be: the cases' steps go on a minute
 * each, and live usage more than the tolerance ahead of the clock is refused (issue 29's clock rule).
 */
export const CASE_CLOCK_SKEW_SECONDS = 86_400;

/** Where usage steps without a timestamp start; each later step is one minute on. */
export const STEPS_START = Date.parse('2026-11-22T12:00:00Z');
const STEP_MS = 60_000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Expands the generators the fixtures use for large inputs: `{ "$repeat": TEXT, "length": N }` is TEXT repeated
 * and cut to exactly N characters; `{ "$list": ITEM, "count": N }` is N copies of ITEM with "{i}" in its strings
 * replaced by the copy's index (0 to N-1).
 */
export function expand(value: Json, index?: number): Json {
  if (typeof value === 'string') return index === undefined ? value : value.replaceAll('{i}', String(index));
  if (Array.isArray(value)) return value.map((item) => expand(item, index));
  if (value === null || typeof value !== 'object') return value;
  if (typeof value.$repeat === 'string' && typeof value.length === 'number') {
    const text = value.$repeat;
    return text.repeat(Math.ceil(value.length / text.length)).slice(0, value.length);
  }
  if ('$list' in value && typeof value.count === 'number') {
    const item = value.$list as Json;
    return Array.from({ length: value.count }, (_, i) => expand(item, i));
  }
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, expand(inner, index)]));
}

function load<T>(name: string): T {
  return expand(JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as Json) as T;
}

/** Every vector names where its expected answer comes from. */
interface Sourced {
  id: string;
  source: string;
}

// Seed 000: the regulator.
export interface PressureVector extends Sourced {
  input: Record<string, string | number>;
  expect: { pressure: Record<string, unknown>; metadata: Record<string, unknown> };
}
export interface InvalidVector extends Sourced {
  input: Record<string, unknown>;
  expectFields: string[];
}
export const pressureFixtures = load<{ vectors: PressureVector[]; invalid: InvalidVector[] }>(
  'pressure.json',
);

// Sessions: created with options, fed usage steps in order.
export interface UsageStep {
  promptTokens: number;
  completionTokens?: number;
  timestamp?: string;
  /** The same step this many times (each a minute after the one before). @default 1 */
  times?: number;
  expect?: StepExpectation;
}
/** What one model's reason in the verdict must say; `mentions` are phrases, or whole numbers. */
export interface ReasonExpectation {
  action?: string;
  priority?: string;
  mentions?: string[];
}
export interface StepExpectation {
  health?: Record<string, unknown> & { reminder?: 'context_health' | null };
  /** By model: health, regulator, kv, triggers, budget. */
  reasons?: Record<string, ReasonExpectation>;
  /** The regulator's assessment in the answer (the pressure object of /api/v1/pressure). */
  regulator?: Record<string, unknown>;
  verdict?: Record<string, unknown>;
  trigger?: { fire: boolean; trigger?: string | null; mentions?: string };
  signals?: Record<string, unknown>;
  /** Event types the step's answer must carry. */
  events?: string[];
}
export interface SessionScenario extends Sourced {
  session: Record<string, unknown>;
  expectCreated?: Record<string, unknown>;
  steps: UsageStep[];
  /** The generations (1-based) whose answers carry a context_health reminder_added or reminder_updated event. */
  expectReminderGenerations?: number[];
}
export interface InvalidSession extends Sourced {
  session: Record<string, unknown>;
  expectFields: string[];
}

/** A usage body as POST /api/v1/sessions/:id/usage takes it, with the expectation of its answer. */
export interface ExpandedStep {
  body: { promptTokens: number; completionTokens?: number; timestamp: string };
  expect?: StepExpectation;
}

/** The steps one by one, each with its timestamp. */
export function expandSteps(steps: readonly UsageStep[]): ExpandedStep[] {
  const out: ExpandedStep[] = [];
  for (const step of steps) {
    const { times = 1, expect, ...usage } = step;
    for (let copy = 0; copy < times; copy++) {
      const timestamp = usage.timestamp ?? new Date(STEPS_START + out.length * STEP_MS).toISOString();
      out.push({
        body: { ...usage, timestamp },
        // An expectation belongs to the last copy of a repeated step.
        ...(expect && copy === times - 1 ? { expect } : {}),
      });
    }
  }
  return out;
}

// Seed 001: the KV budget.
export interface KvSnapshotVector extends Sourced {
  input: Record<string, number>;
  expect: Record<string, unknown>;
  canFit?: Array<[number, boolean]>;
}
export const kvFixtures = load<{
  snapshots: KvSnapshotVector[];
  invalidSnapshots: InvalidVector[];
  sessions: SessionScenario[];
  invalidSessions: InvalidSession[];
}>('kv.json');

// Seed 002: context discipline.
export interface HotStateCheckVector extends Sourced {
  body: Record<string, unknown>;
  expect: {
    capped?: Record<string, unknown> & { maxTokens?: number; stateKeysWithin?: string[] };
    budgets?: Record<string, unknown> & { violationCodes?: string[] };
  };
}
export interface RegressionVector extends Sourced {
  hotState: Record<string, unknown>;
  prompt: Record<string, unknown>;
  expectCodes: string[];
}
export const disciplineFixtures = load<{ check: HotStateCheckVector[]; regressions: RegressionVector[] }>(
  'discipline.json',
);

// Seed 003: context health.
export const healthFixtures = load<{
  thresholds: Array<Sourced & { profile: Record<string, number>; expect: Record<string, number> }>;
  cadence: Array<Sourced & { value: number | null; expect: number }>;
  sessions: SessionScenario[];
}>('health.json');

// Seed 004: triggers and thinking budget.
export interface TriggerCall {
  tokens: number;
  turns: number;
  fire: boolean;
  trigger?: string;
  mentions?: string;
  /** Evaluated on the state the previous call left, instead of a fresh one. */
  afterPrevious?: boolean;
}
export const triggerFixtures = load<{
  decisions: Array<Sourced & { config: Record<string, number>; calls: TriggerCall[] }>;
  thinking: Array<Sourced & { tpmLeft: number; expect: Record<string, unknown> }>;
  sessions: SessionScenario[];
}>('triggers.json');

// Recorded logs.
export interface RecordedLog extends Sourced {
  /** Relative to the repository root. */
  file: string;
  /** The bundled sample of the same file, which the server loads by name. */
  sample?: string;
  expect: {
    format: string;
    model?: string;
    modelPrefix?: string;
    contextWindow?: number;
    summary: Record<string, unknown>;
    compactions: Array<Record<string, unknown>>;
    calls?: Array<Record<string, unknown>>;
  };
}
export const logFixtures = load<{ logs: RecordedLog[] }>('recorded-logs.json');

export const verdictFixtures = load<{ sessions: SessionScenario[] }>('verdict.json');

/** Every session scenario of the fixture set, for the surfaces that have sessions. */
export const sessionScenarios: SessionScenario[] = [
  ...kvFixtures.sessions,
  ...healthFixtures.sessions,
  ...triggerFixtures.sessions,
  ...verdictFixtures.sessions,
];
