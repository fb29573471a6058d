import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayResult, SessionView, UsageAnswer, VerdictReason } from '../../src/internal.js';
import { cliDriver } from './drivers/cli.js';
import { absentOperations, type Driver, OPERATIONS, type Operation, type Outcome } from './drivers/driver.js';
import { httpDriver } from './drivers/http.js';
import { libraryDriver } from './drivers/library.js';
import {
  disciplineFixtures,
  type ExpandedStep,
  expandSteps,
  healthFixtures,
  type InvalidSession,
  kvFixtures,
  logFixtures,
  pressureFixtures,
  type RecordedLog,
  type SessionScenario,
  STEPS_START,
  sessionScenarios,
  triggerFixtures,
} from './fixtures.js';

/**
 * The shared contract suite (CONVENTIONS.md 7; issue 8): one fixture set (test/contract/fixtures) through the
 * library, the HTTP service and the CLI. Each surface must give the answer the fixtures write down (from
 * DESIGN.md and the logs' documentation, never from a run of barometer), and the same answer as the others.
 * A surface without an operation runs none of its fixtures (no test is generated, none is skipped); each driver
 * says which operations it lacks and why, and a test per driver checks that list.
 */

const drivers: Driver[] = [libraryDriver(STEPS_START), httpDriver(STEPS_START), cliDriver()];

/**
 * Disagreements this suite found and that are not fixed yet, each with what is wrong. Their tests are expected to
 * fail (`it.fails`): when a fix lands, the test passes, `it.fails` reports it, and the entry must go.
 */
const KNOWN_DISAGREEMENTS: Readonly<Record<string, string>> = {
  'agree/pressure/invalid/unknown-parameter':
    "the CLI refuses an unknown flag in its flag parser's words (\"unknown option '--memory-used-percnt'\", with a " +
    'suggestion) where the library and HTTP say "unknown parameter"; all three refuse it',
};
/** `it` (concurrent), or `it.fails` for a known disagreement, named so that the report says which. */
function testFor(key: string): { test: typeof it.concurrent; name: (name: string) => string } {
  const known = KNOWN_DISAGREEMENTS[key];
  return known
    ? { test: it.concurrent.fails, name: (name) => `${name} [known disagreement: ${known}]` }
    : { test: it.concurrent, name: (name) => name };
}

beforeAll(async () => {
  await Promise.all(drivers.map((driver) => driver.start()));
  // A CLI answer is a process start (up to a second of CPU): start them all now (the driver runs as many at once as
  // the machine has cores), so that they run beside the in-process drivers' tests instead of after them. The tests await the same
  // answers; a failure shows there, not here.
  for (const driver of drivers.filter((candidate) => candidate.name === 'cli')) {
    const started: Promise<unknown>[] = [];
    for (const vector of pressureFixtures.vectors) started.push(pressureOf(driver, vector.id, vector.input));
    for (const vector of pressureFixtures.invalid)
      started.push(pressureOf(driver, `invalid/${vector.id}`, vector.input));
    for (const log of logFixtures.logs) started.push(replayOf(driver, log));
    for (const answer of started) answer.catch(() => undefined);
  }
});
afterAll(async () => {
  await Promise.all(drivers.map((driver) => driver.stop()));
});

/**
 * Each operation runs once per driver and fixture: the per-driver tests and the agreement tests read the same
 * answer (sessions are stateful, and a CLI process costs a Node.js start).
 */
const answers = new Map<string, Promise<unknown>>();
function once<T>(driver: Driver, key: string, run: () => Promise<T>): Promise<T> {
  const id = `${driver.name}/${key}`;
  let answer = answers.get(id) as Promise<T> | undefined;
  if (!answer) {
    answer = run();
    answers.set(id, answer);
  }
  return answer;
}

/**
 * The one volatile field of the answers compared across drivers. Sessions need none: the library and HTTP drivers
 * share a fixed clock (createdAt), every usage step carries its timestamp, and both use the same session ids.
 */
function normalise(value: unknown): unknown {
  if (value && typeof value === 'object' && 'ok' in value && 'value' in value) {
    const outcome = value as { ok: true; value: { timestamp?: unknown } };
    // The pressure report's timestamp: the CLI process stamps its own wall clock (a command takes no clock), the
    // library and HTTP drivers share a fixed one.
    if (typeof outcome.value?.timestamp === 'string')
      return { ...outcome, value: { ...outcome.value, timestamp: '<clock>' } };
  }
  return value;
}

// Operations, one per fixture kind, shared by the per-driver and the agreement tests.
const pressureOf = (driver: Driver, id: string, input: Record<string, unknown>) =>
  once(driver, `pressure/${id}`, () => driver.pressure!(input));
const replayOf = (driver: Driver, log: RecordedLog) =>
  once(driver, `replay/${log.id}`, () => driver.replay!(log.file));
const sampleOf = (driver: Driver, log: RecordedLog) =>
  once(driver, `sample/${log.id}`, () => driver.loadSample!(log.sample!, log.file));
const hotStateCheckOf = (driver: Driver, id: string, body: Record<string, unknown>) =>
  once(driver, `hot-state/${id}`, () => driver.checkHotState!(body));

interface ScenarioRun {
  created: Outcome<SessionView>;
  steps: ExpandedStep[];
  answers: UsageAnswer[];
  view: SessionView;
}
const scenarioOf = (driver: Driver, scenario: SessionScenario) =>
  once(driver, `session/${scenario.id}`, async (): Promise<ScenarioRun> => {
    const created = await driver.createSession!({ id: scenario.id, ...scenario.session });
    if (!created.ok) throw new Error(`${scenario.id}: session refused: ${JSON.stringify(created.issues)}`);
    const steps = expandSteps(scenario.steps);
    const answered: UsageAnswer[] = [];
    for (const step of steps) answered.push(await driver.postUsage!(scenario.id, step.body));
    return { created, steps, answers: answered, view: await driver.view!(scenario.id) };
  });
const invalidSessionOf = (driver: Driver, invalid: InvalidSession) =>
  once(driver, `invalid-session/${invalid.id}`, () =>
    driver.createSession!({ id: invalid.id, ...invalid.session }),
  );

function reasonOf(answer: UsageAnswer, model: VerdictReason['model']): VerdictReason {
  const reason = answer.verdict.reasons.find((candidate) => candidate.model === model);
  if (!reason) throw new Error(`no ${model} reason in ${JSON.stringify(answer.verdict.reasons)}`);
  return reason;
}

/** A phrase in a text, or a whole number standing alone (so that 72 matches neither 172 nor 7.2). */
function mentions(text: string, expected: string): boolean {
  if (!/^-?\d+$/.test(expected)) return text.includes(expected);
  return new RegExp(`(?<![0-9.-])${expected}(?![0-9]|\\.[0-9])`).test(text);
}

function checkStep(answer: UsageAnswer, step: ExpandedStep, check: typeof expect): void {
  const wanted = step.expect;
  if (!wanted) return;
  if (wanted.health) {
    const { reminder, ...rest } = wanted.health;
    check(answer.health).toMatchObject(rest);
    if (reminder === null) check(answer.health.reminder).toBeNull();
    else if (reminder) check(answer.health.reminder?.id).toBe(reminder);
  }
  for (const [model, reason] of Object.entries(wanted.reasons ?? {})) {
    const { mentions: texts = [], ...said } = reason;
    const actual = reasonOf(answer, model as VerdictReason['model']);
    check(actual, model).toMatchObject(said);
    for (const text of texts)
      check(mentions(actual.reason, text), `the ${model} reason "${actual.reason}" mentions ${text}`).toBe(
        true,
      );
  }
  if (wanted.regulator) check(answer.regulator).toMatchObject(wanted.regulator);
  for (const [key, value] of Object.entries(wanted.verdict ?? {}))
    check(answer.verdict[key as keyof UsageAnswer['verdict']], `verdict.${key}`).toEqual(value);
  if (wanted.trigger) {
    const { mentions: word, ...decision } = wanted.trigger;
    check(answer.trigger).toMatchObject(decision);
    if (word) check(answer.trigger.reasons.join('; ')).toContain(word);
  }
  if (wanted.signals) check(answer.signals).toMatchObject(wanted.signals);
  if (wanted.events)
    check(answer.events.map((event) => event.type)).toEqual(check.arrayContaining(wanted.events));
}

/**
 * DESIGN.md's rules applied to every call of a replay: context health from the call's prompt and window (003:
 * optimal 100,000, critical floor(window x 0.9)), the verdict table (caution and critical are compress; a
 * regulator terminate caused by memory over 95% of the window is compress, urgent; terminate only when a budget
 * is spent or the KV cache is below its floor, and a replay has neither), and the summary's own definitions.
 */
function checkReplayRules(result: ReplayResult, check: typeof expect): void {
  check(result.summary.calls).toBe(result.calls.length);
  let peak: number | null = null;
  let triggered = false;
  for (const call of result.calls) {
    // Seed 004's triggers, without a quota (survival is not evaluated) and before anything locks them: semantic
    // fires on a task completed above 50,000 tokens, standard above 200,000, and nothing else makes them speak.
    const triggers = call.reasons.find((reason) => reason.model === 'triggers');
    const compacted = result.compactions.some((compaction) => compaction.beforeCallIndex <= call.index);
    const reached =
      call.promptTokens !== null &&
      ((call.taskCompleted && call.promptTokens > 50_000) || call.promptTokens > 200_000);
    if (triggers?.action === 'compress') check(reached, `call ${call.index} triggered`).toBe(true);
    if (reached && !triggered && !compacted)
      check(triggers?.action, `call ${call.index}: first trigger`).toBe('compress');
    triggered ||= triggers?.action === 'compress';
    const where = `call ${call.index} (${call.promptTokens} of ${call.contextWindow})`;
    if (call.promptTokens !== null && (peak === null || call.promptTokens > peak)) peak = call.promptTokens;
    check(call.action, where).not.toBe('terminate');
    if (call.promptTokens === null) {
      check(call.health, where).toBe('unknown');
      continue;
    }
    if (call.contextWindow === null) continue;
    const critical = Math.floor(call.contextWindow * 0.9);
    const level =
      call.promptTokens > critical ? 'critical' : call.promptTokens > 100_000 ? 'caution' : 'healthy';
    check(call.health, where).toBe(level);
    const health = call.reasons.find((reason) => reason.model === 'health');
    if (level === 'healthy') check(health, where).toMatchObject({ action: 'continue' });
    else {
      check(health, where).toMatchObject({
        action: 'compress',
        priority: level === 'critical' ? 'urgent' : 'normal',
      });
      check(call.action, where).toBe('compress');
    }
    if (call.promptTokens / call.contextWindow > 0.95) {
      const regulator = call.reasons.find((reason) => reason.model === 'regulator');
      check(regulator, where).toMatchObject({ action: 'compress', priority: 'urgent' });
    }
  }
  check(result.summary.peakPromptTokens).toBe(peak);
  const firstCompress = result.calls.find(
    (call) => call.action === 'compress' || call.action === 'terminate',
  );
  check(result.summary.firstCompressCallIndex).toBe(firstCompress?.index ?? null);
}

function checkLog(result: ReplayResult, log: RecordedLog, check: typeof expect): void {
  const wanted = log.expect;
  check(result.format).toBe(wanted.format);
  if (wanted.model) check(result.model).toBe(wanted.model);
  if (wanted.modelPrefix) check(result.model.startsWith(wanted.modelPrefix), result.model).toBe(true);
  if (wanted.contextWindow) check(result.contextWindow).toBe(wanted.contextWindow);
  check(result.summary).toMatchObject(wanted.summary);
  check(result.compactions).toHaveLength(wanted.compactions.length);
  wanted.compactions.forEach((compaction, index) => {
    check(result.compactions[index]).toMatchObject(compaction);
  });
  for (const call of wanted.calls ?? [])
    check(result.calls.find((candidate) => candidate.index === call.index)).toMatchObject(call);
  checkReplayRules(result, check);
}

/**
 * `describe` for the fixtures of an operation the driver has; for one it lacks, nothing: no skipped tests, whose
 * reasons the reporter does not print. What each driver lacks, and why, is checked by the test below.
 */
function describeIf(operation: unknown): (name: string, body: () => void) => void {
  return operation === undefined ? () => undefined : describe;
}

describe.each(drivers)('the $name driver', (driver) => {
  const lacks = Object.keys(driver.lacks);
  it(`lacks exactly the operations it documents, and runs every other fixture: ${lacks.length === 0 ? 'it lacks none' : lacks.map((operation) => `${operation} (${driver.lacks[operation as Operation]})`).join('; ')}`, () => {
    expect(absentOperations(driver)).toEqual(OPERATIONS.filter((operation) => operation in driver.lacks));
    for (const reason of Object.values(driver.lacks)) expect(reason.length).toBeGreaterThan(20);
  });

  describeIf(driver.pressure)('seed 000 regulator (pressure)', () => {
    for (const vector of pressureFixtures.vectors) {
      const { test, name } = testFor(`${driver.name}/pressure/${vector.id}`);
      test(name(vector.id), async ({ expect }) => {
        const outcome = await pressureOf(driver, vector.id, vector.input);
        if (!outcome.ok) throw new Error(`refused: ${JSON.stringify(outcome.issues)}`);
        const { timestamp, ...report } = outcome.value;
        expect(timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        expect(report).toEqual(vector.expect);
      });
    }

    for (const vector of pressureFixtures.invalid) {
      const { test, name } = testFor(`${driver.name}/pressure/invalid/${vector.id}`);
      test(name(`refuses ${vector.id}, naming the fields`), async ({ expect }) => {
        const outcome = await pressureOf(driver, `invalid/${vector.id}`, vector.input);
        expect(outcome.ok, JSON.stringify(outcome)).toBe(false);
        if (!outcome.ok) expect(outcome.issues.map((issue) => issue.field)).toEqual(vector.expectFields);
      });
    }
  });

  describeIf(driver.replay)('recorded logs (replay)', () => {
    it.concurrent.for(logFixtures.logs)('replays $id', async (log, { expect }) => {
      checkLog(await replayOf(driver, log), log, expect);
    });
  });

  describeIf(driver.loadSample)('the seed sample loaded into a live session', () => {
    it.concurrent.for(logFixtures.logs.filter((log) => log.sample))(
      'loads $sample',
      async (log, { expect }) => {
        const view = await sampleOf(driver, log);
        expect(view.id).toBe(`sample-${log.sample}-1`);
        expect(view.generations).toBe(log.expect.summary.calls);
        // The live session tells the same story as the replay of its log, call by call.
        const replay = driver.replay ? await replayOf(driver, log) : undefined;
        if (replay) {
          expect(
            view.timeline.map(({ promptTokens, health, regulatorLevel, action }) => ({
              promptTokens,
              health,
              regulatorLevel,
              action,
            })),
          ).toEqual(
            replay.calls.map(({ promptTokens, health, regulatorLevel, action }) => ({
              promptTokens,
              health,
              regulatorLevel,
              action,
            })),
          );
        }
      },
    );
  });

  describeIf(driver.loadLog)('recorded logs loaded into a live session', () => {
    it.concurrent.for(logFixtures.logs)('loads $id', async (log, { expect }) => {
      const view = await once(driver, `load/${log.id}`, () => driver.loadLog!(log.file, `log-${log.id}`));
      const replay = await replayOf(driver, log);
      expect(view.generations).toBe(log.expect.summary.calls);
      expect(view.markers.filter((marker) => marker.type === 'compaction')).toHaveLength(
        log.expect.compactions.length,
      );
      expect(view.timeline.map((point) => [point.index, point.health, point.action])).toEqual(
        replay.calls.map((call) => [call.index, call.health, call.action]),
      );
    });
  });

  describeIf(driver.createSession)('sessions (seeds 001, 003, 004 and the verdict table)', () => {
    it.concurrent.for(sessionScenarios)('$id', async (scenario, { expect }) => {
      const run = await scenarioOf(driver, scenario);
      if (scenario.expectCreated && run.created.ok)
        expect(run.created.value).toMatchObject(scenario.expectCreated);
      run.answers.forEach((answer, index) => {
        expect(answer.generation).toBe(index + 1);
        checkStep(answer, run.steps[index]!, expect);
      });
      if (scenario.expectReminderGenerations) {
        const reminded = run.answers
          .filter((answer) =>
            answer.events.some(
              (event) => event.type === 'reminder_added' || event.type === 'reminder_updated',
            ),
          )
          .map((answer) => answer.generation);
        expect(reminded).toEqual(scenario.expectReminderGenerations);
      }
      // The view agrees with the answers it was built from.
      expect(run.view.generations).toBe(run.answers.length);
      expect(run.view.timeline.map((point) => point.action)).toEqual(
        run.answers.map((answer) => answer.verdict.action),
      );
    });

    it.concurrent.for(kvFixtures.invalidSessions)(
      'refuses $id, naming the field',
      async (invalid, { expect }) => {
        const outcome = await invalidSessionOf(driver, invalid);
        expect(outcome.ok, 'the session was created').toBe(false);
        if (!outcome.ok) expect(outcome.issues.map((issue) => issue.field)).toEqual(invalid.expectFields);
        await expect(driver.view!(invalid.id)).rejects.toThrow();
      },
    );
  });

  describeIf(driver.checkHotState)('seed 002 hot-state check', () => {
    it.concurrent.for(disciplineFixtures.check)('$id', async (vector, { expect }) => {
      const { capped, budgets } = await hotStateCheckOf(driver, vector.id, vector.body);
      if (vector.expect.capped) {
        const { maxTokens, stateKeysWithin, ...rest } = vector.expect.capped;
        expect(capped).toMatchObject(rest);
        if (maxTokens !== undefined) expect(capped.tokens).toBeLessThanOrEqual(maxTokens);
        if (stateKeysWithin)
          expect(stateKeysWithin).toEqual(expect.arrayContaining(Object.keys(capped.state)));
      }
      if (vector.expect.budgets) {
        const { violationCodes, ...rest } = vector.expect.budgets;
        expect(budgets).toMatchObject(rest);
        if (violationCodes)
          expect(budgets.violations.map((violation) => violation.code)).toEqual(violationCodes);
      }
    });
  });

  describeIf(driver.promptRegressions)('seed 002 prompt regressions', () => {
    it.for(disciplineFixtures.regressions)('$id', async (vector, { expect }) => {
      const warnings = await driver.promptRegressions!(vector.hotState, vector.prompt);
      expect(warnings.map((warning) => warning.code)).toEqual(vector.expectCodes);
    });
  });

  describeIf(driver.kvSnapshot)('seed 001 KV snapshot', () => {
    it.for(kvFixtures.snapshots)('$id', async (vector, { expect }) => {
      const sizes = (vector.canFit ?? []).map(([size]) => size);
      const outcome = await driver.kvSnapshot!(vector.input, sizes);
      if (!outcome.ok) throw new Error(`refused: ${JSON.stringify(outcome.issues)}`);
      expect(outcome.value.json).toMatchObject(vector.expect);
      expect(outcome.value.canFit).toEqual((vector.canFit ?? []).map(([, fits]) => fits));
    });

    it.for(kvFixtures.invalidSnapshots)('refuses $id, naming the field', async (vector, { expect }) => {
      const outcome = await driver.kvSnapshot!(vector.input as Record<string, number>, []);
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect(outcome.issues.map((issue) => issue.field)).toEqual(vector.expectFields);
    });
  });

  describeIf(driver.healthThresholds)('seed 003 thresholds and caution cadence', () => {
    it.for(healthFixtures.thresholds)('$id', async (vector, { expect }) => {
      expect(await driver.healthThresholds!(vector.profile)).toEqual(vector.expect);
    });
    it.for(healthFixtures.cadence)('$id', async (vector, { expect }) => {
      expect(await driver.cautionCadence!(vector.value ?? undefined)).toBe(vector.expect);
    });
  });

  describeIf(driver.evaluateTriggers)('seed 004 trigger decisions and thinking budget', () => {
    it.for(triggerFixtures.decisions)('$id', async (vector, { expect }) => {
      let previous: Awaited<ReturnType<NonNullable<Driver['evaluateTriggers']>>> | undefined;
      for (const call of vector.calls) {
        const state = call.afterPrevious && previous ? previous.state : {};
        const decision = await driver.evaluateTriggers!(
          state,
          { tokens: call.tokens, turns: call.turns },
          vector.config,
        );
        const where = `(${call.tokens}, ${call.turns})`;
        expect(decision.fire, where).toBe(call.fire);
        expect(decision.trigger, where).toBe(call.trigger);
        if (call.mentions) expect(decision.reasons.join('; '), where).toContain(call.mentions);
        previous = decision;
      }
    });
    it.for(triggerFixtures.thinking)('$id', async (vector, { expect }) => {
      expect(await driver.thinkingBudget!(vector.tpmLeft)).toMatchObject(vector.expect);
    });
  });
});

describe('the drivers agree', () => {
  /** The drivers that have an operation; a comparison needs at least two. */
  const having = (operation: keyof Driver) => drivers.filter((driver) => driver[operation] !== undefined);

  async function expectAgreement(operation: keyof Driver, answerOf: (driver: Driver) => Promise<unknown>) {
    const [first, ...others] = having(operation);
    if (!first || others.length === 0) throw new Error(`fewer than two drivers have ${operation}`);
    const reference = normalise(await answerOf(first));
    for (const other of others)
      expect(normalise(await answerOf(other)), `${other.name} against ${first.name}`).toEqual(reference);
  }

  const pressureCases = [
    ...pressureFixtures.vectors,
    ...pressureFixtures.invalid.map((vector) => ({ ...vector, id: `invalid/${vector.id}` })),
  ];
  for (const vector of pressureCases) {
    const { test, name } = testFor(`agree/pressure/${vector.id}`);
    test(name(`on pressure ${vector.id} (library, HTTP, CLI)`), async () => {
      await expectAgreement('pressure', (driver) => pressureOf(driver, vector.id, vector.input));
    });
  }

  it.each(logFixtures.logs)('on the replay of $id (library, HTTP, CLI)', async (log) => {
    await expectAgreement('replay', (driver) => replayOf(driver, log));
  });

  it.each(logFixtures.logs.filter((log) => log.sample))(
    'on the loaded sample $sample (library, HTTP)',
    async (log) => {
      await expectAgreement('loadSample', (driver) => sampleOf(driver, log));
    },
  );

  it.each(sessionScenarios)(
    'on session $id: creation, every answer, the view (library, HTTP)',
    async (scenario) => {
      await expectAgreement('createSession', (driver) => scenarioOf(driver, scenario));
    },
  );

  it.each(kvFixtures.invalidSessions)('on refusing $id (library, HTTP)', async (invalid) => {
    await expectAgreement('createSession', (driver) => invalidSessionOf(driver, invalid));
  });

  it.each(disciplineFixtures.check)('on hot-state check $id (library, HTTP)', async (vector) => {
    await expectAgreement('checkHotState', (driver) => hotStateCheckOf(driver, vector.id, vector.body));
  });
});
