import { evaluatePressure, viability } from '../src/pressure/index.js';
import type { PressureInput } from '../src/pressure/types.js';

/** Evaluations per second of evaluatePressure, against the bare viability equation as the baseline. */
export function benchPressureEvaluation(durationMs = 2000): {
  evalsPerSecond: number;
  baselinePerSecond: number;
} {
  const inputs: PressureInput[] = [];
  for (let index = 0; index < 1024; index++) {
    inputs.push({
      memoryUsedPercent: index % 101,
      tokenBurnRatePerMin: (index * 7) % 201,
      contextDriftPercent: (index * 13) % 101,
      sessionAgeSeconds: index * 11,
      tokenBudgetTotal: 100000,
      tokenBudgetUsed: (index * 97) % 100000,
      systemMode: 'production',
    });
  }
  const now = Date.now();
  const measure = (step: (input: PressureInput) => number) => {
    let sink = 0;
    let count = 0;
    const start = performance.now();
    let elapsed = 0;
    while (elapsed < durationMs) {
      for (let index = 0; index < 1024; index++) sink += step(inputs[index]!);
      count += 1024;
      elapsed = performance.now() - start;
    }
    if (sink === Number.MIN_VALUE) console.log(sink);
    return (count / elapsed) * 1000;
  };
  // Warm both up so the JIT has compiled them before measuring.
  measure((input) => evaluatePressure(input, { now }).pressure.sessionViability);
  const baselinePerSecond = measure((input) =>
    viability(input.memoryUsedPercent!, input.tokenBurnRatePerMin!, input.contextDriftPercent!),
  );
  const evalsPerSecond = measure((input) => evaluatePressure(input, { now }).pressure.sessionViability);
  return { evalsPerSecond, baselinePerSecond };
}
