import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  BarometerValidationError,
  type BudgetLimitsInput,
  capHotState,
  cautionCadence,
  contextPressure,
  DEFAULT_MAX_HOT_STATE_TOKENS,
  evaluatePressure,
  evaluateTriggers,
  type HotState,
  healthThresholds,
  type PressureInput,
  type PromptParts,
  parseHotState,
  parseUsageInput,
  promptMetrics,
  promptRegressions,
  replayLogText,
  SessionMonitor,
  type SessionOptions,
  thinkingBudget,
  validateBudgets,
} from '../../../src/internal.js';
import { CASE_CLOCK_SKEW_SECONDS, REPO_ROOT } from '../fixtures.js';
import type { Driver, Refusal } from './driver.js';

function refusalOf(error: unknown): Refusal {
  if (!(error instanceof BarometerValidationError)) throw error;
  return { ok: false, issues: error.issues.map(({ field, message }) => ({ field, message })) };
}

function hotStateOf(value: unknown): HotState {
  const parsed = parseHotState(value);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'hot state');
  return parsed.value;
}

/**
 * The library through its public entry (src/index.ts), called as a TypeScript user would: the pure functions,
 * and one SessionMonitor for sessions. Wire-shaped usage bodies go through `parseUsageInput`, the library's own
 * boundary parser (the one the HTTP route calls). It has every operation of the contract.
 */
export function libraryDriver(now: number): Driver {
  // The monitor's clock is fixed so that createdAt is the same on the library and HTTP drivers; the cases post
  // their steps a minute apart from it, so the clock's tolerance for times ahead of it covers a day of steps.
  const options = { now: () => now, clockSkewMs: CASE_CLOCK_SKEW_SECONDS * 1000 };
  let monitor = new SessionMonitor(options);
  const driver: Driver = {
    name: 'library',
    // The library is the product: every operation of the contract.
    lacks: {},
    async start() {
      monitor = new SessionMonitor(options);
    },
    async stop() {
      await monitor.close();
    },

    async pressure(input) {
      try {
        return { ok: true, value: evaluatePressure(input as PressureInput, { now }) };
      } catch (error) {
        return refusalOf(error);
      }
    },
    async replay(file) {
      return replayLogText(await readFile(join(REPO_ROOT, file), 'utf8'));
    },

    async createSession(options) {
      try {
        return { ok: true, value: await monitor.create(options as SessionOptions) };
      } catch (error) {
        return refusalOf(error);
      }
    },
    async postUsage(id, body) {
      const parsed = parseUsageInput(body);
      if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'usage');
      return monitor.postUsage(id, parsed.value);
    },
    view: (id) => monitor.view(id),
    async loadSample(name, file) {
      // The id the server gives the first load of a sample, so that the two views compare whole.
      const log = await readFile(join(REPO_ROOT, file), 'utf8');
      return monitor.loadLog({ log, id: `sample-${name}-1` });
    },
    async loadLog(file, id) {
      return monitor.loadLog({ log: await readFile(join(REPO_ROOT, file), 'utf8'), id });
    },

    async checkHotState(body) {
      const state = hotStateOf(body.hotState);
      const limits = body.limits as BudgetLimitsInput | undefined;
      const maxTokens =
        (body.maxTokens as number | undefined) ?? limits?.maxHotStateTokens ?? DEFAULT_MAX_HOT_STATE_TOKENS;
      return {
        capped: capHotState(state, maxTokens),
        budgets: validateBudgets(state, body.prompt as PromptParts | undefined, limits ? { limits } : {}),
      };
    },
    async promptRegressions(hotState, prompt) {
      return promptRegressions(promptMetrics(hotStateOf(hotState), prompt as PromptParts, { now }));
    },

    async kvSnapshot(input, canFit) {
      try {
        const snapshot = contextPressure(input as Parameters<typeof contextPressure>[0]);
        return {
          ok: true,
          value: { json: snapshot.toJSON(), canFit: canFit.map((n) => snapshot.canFit(n)) },
        };
      } catch (error) {
        return refusalOf(error);
      }
    },
    async healthThresholds(profile) {
      return { ...healthThresholds(profile) };
    },
    async cautionCadence(value) {
      return cautionCadence(value);
    },
    async evaluateTriggers(state, input, config) {
      return evaluateTriggers(state, input, config);
    },
    async thinkingBudget(tpmLeft) {
      return thinkingBudget({ tpmLeft, provider: 'anthropic' });
    },
  };
  return driver;
}
